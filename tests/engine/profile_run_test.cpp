// The Run dialog's engine side: inputs from random/zeros/test_data_set/.pb files, timed iterations with
// progress and cancellation, output summaries; and the memory plan the executor exposes for the memory view.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "exec/vulkan/vulkan_backend.h"
#include "onnx/onnx_io.h"
#include "support/named_text_model.h"
#include "profile/profile_run.h"
#include "support/test_data.h"

namespace onyx::profile {
namespace {

const char* kChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
chain (float[N, 8] x) => (float[N, 8] y) {
  a = Relu <name = "/a/Relu"> (x)
  b = Sigmoid <name = "/b/Sigmoid"> (a)
  c = Add <name = "/Add"> (a, b)
  y = Mul <name = "/Mul"> (c, c)
}
)";

std::unique_ptr<Model> chain() {
  auto model = testing::parseNamedModelText(kChain);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return std::move(*model);
}

TEST(ProfileRun, InputSymbolsNameTheDimsToBind) {
  auto model = chain();
  EXPECT_EQ(inputSymbols(*model), std::vector<std::string>{"N"});
}

TEST(ProfileRun, ZerosGiveKnownOutputsAndTheProfileHoldsTheTimedIterations) {
  auto model = chain();
  RunRequest request;
  request.inputs = InputSource::Zeros;
  request.bindings = {{"N", 3}};
  request.warmup = 2;
  request.iterations = 4;
  std::vector<std::pair<std::string, int>> seen;
  auto result = runProfiled(*model, request, [&](const RunProgress& p) {
    seen.push_back({p.phase, p.done});
  });
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_EQ(result->latency.ms.size(), 4u);
  EXPECT_LE(result->latency.min(), result->latency.median());
  EXPECT_LE(result->latency.median(), result->latency.max());
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{
                      {"warm-up", 1}, {"warm-up", 2}, {"run", 1}, {"run", 2}, {"run", 3}, {"run", 4}}));
  ASSERT_EQ(result->outputs.size(), 1u);
  const OutputSummary& y = result->outputs[0];
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.elements, 24);
  // relu(0) = 0, sigmoid(0) = 0.5, (0 + 0.5)^2 = 0.25 everywhere.
  EXPECT_DOUBLE_EQ(y.min, 0.25);
  EXPECT_DOUBLE_EQ(y.max, 0.25);
  EXPECT_DOUBLE_EQ(y.mean, 0.25);
  EXPECT_EQ(y.first.size(), 8u);
  EXPECT_EQ(result->profile.iterationCount(), 4);
  EXPECT_EQ(result->profile.events.size(), 16u);  // 4 nodes x 4 timed iterations, none from warm-up
}

TEST(ProfileRun, ARunsProfileWrittenAsChromeTraceReadsBack) {
  auto model = chain();
  RunRequest request;
  request.bindings = {{"N", 2}};
  request.iterations = 3;
  auto result = runProfiled(*model, request);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  const Profile& p = result->profile;
  auto back = parseTrace(exec::chromeTraceJson(p.events, p.iterations), "run.json");
  ASSERT_TRUE(back.ok()) << back.error().toString();
  ASSERT_EQ(back->events.size(), p.events.size());
  EXPECT_EQ(back->iterationCount(), 3);
  for (size_t i = 0; i < p.events.size(); ++i) {
    EXPECT_EQ(back->events[i].node, p.events[i].node);
    EXPECT_EQ(back->events[i].name, p.events[i].name);
  }
}

TEST(ProfileRun, CancelStopsBetweenIterations) {
  auto model = chain();
  RunRequest request;
  request.bindings = {{"N", 2}};
  request.warmup = 0;
  request.iterations = 100;
  std::atomic<bool> cancel = false;
  auto result = runProfiled(
      *model, request, [&](const RunProgress& p) { cancel = p.done == 3; }, &cancel);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_TRUE(result->cancelled);
  EXPECT_EQ(result->latency.ms.size(), 3u);
}

TEST(ProfileRun, BadRequestsAreErrorsThatSayWhatToDo) {
  auto model = chain();
  RunRequest request;
  request.bindings = {{"N", 2}};
  request.backend = "tpu";
  auto bad = runProfiled(*model, request);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("choose one of"), std::string::npos);
  request.backend = "cpu";
  request.inputs = InputSource::TensorFiles;
  bad = runProfiled(*model, request);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("one .pb per input"), std::string::npos);
  request.inputs = InputSource::Random;
  request.bindings.clear();
  EXPECT_FALSE(runProfiled(*model, request).ok());  // N unbound
}

TEST(ProfileRun, MemoryReportExposesThePlannedBuffersWithoutOverlap) {
  auto model = chain();
  RunRequest request;
  request.bindings = {{"N", 16}};
  auto result = runProfiled(*model, request);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  const exec::MemoryReport& m = result->memory;
  ASSERT_FALSE(m.buffers.empty());
  ASSERT_EQ(m.buffers.size(), m.offsets.size());
  EXPECT_EQ(m.stepLabels.size(), 4u);
  ASSERT_EQ(m.stepNodes.size(), 4u);
  EXPECT_EQ(model->graph().findNode(m.stepNodes[0])->name(), "/a/Relu");
  ASSERT_GE(m.peakStep, 0);
  int64_t alive = 0;
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    const exec::BufferRequest& a = m.buffers[i];
    if (a.sharesWith < 0 && a.firstStep <= m.peakStep && m.peakStep <= a.lastStep) alive += a.bytes;
    for (size_t j = i + 1; j < m.buffers.size(); ++j) {
      const exec::BufferRequest& b = m.buffers[j];
      bool sameTime = a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
      bool shared = a.sharesWith == int(j) || b.sharesWith == int(i);
      bool overlap = m.offsets[i] < m.offsets[j] + b.bytes && m.offsets[j] < m.offsets[i] + a.bytes;
      EXPECT_FALSE(sameTime && overlap && !shared) << a.label << " overlaps " << b.label;
    }
  }
  EXPECT_LE(alive, m.peakBytes);
}

TEST(ProfileRun, TestDataSetOfASharedModelRuns) {
  ONYX_REQUIRE_SHARED(folder, "models/squeezenet1_1");
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  RunRequest request;
  request.inputs = InputSource::TestDataSet;
  request.dataSet = folder / "test_data_set_0";
  request.warmup = 0;
  request.iterations = 1;
  auto result = runProfiled(**model, request);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].elements, 1000);
  EXPECT_GT(result->profile.events.size(), 50u);
  EXPECT_GT(result->memory.peakBytes, 0);
}

// The Run dialog's backends are the build's: "auto" and every registered backend. On the Vulkan backend
// (lavapipe in CI) the run reports the device's work, so the run results show submits and bytes.
TEST(ProfileRun, TheDialogRunsOnTheVulkanBackendAndReportsItsWork) {
  auto backends = availableBackends();
  ASSERT_FALSE(backends.empty());
  EXPECT_EQ(backends.front(), "auto");
  EXPECT_NE(std::find(backends.begin(), backends.end(), "cpu"), backends.end());
  ASSERT_NE(std::find(backends.begin(), backends.end(), "vulkan"), backends.end());
  ONYX_REQUIRE_SHARED(folder, "models/squeezenet1_1");
  if (!exec::vulkan::probeDevice()) GTEST_SKIP() << "no Vulkan device";
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  for (const char* backend : {"vulkan", "auto"}) {
    RunRequest request;
    request.backend = backend;
    request.inputs = InputSource::TestDataSet;
    request.dataSet = folder / "test_data_set_0";
    request.warmup = 1;
    request.iterations = 2;
    auto result = runProfiled(**model, request);
    ASSERT_TRUE(result.ok()) << result.error().toString();
    EXPECT_EQ(result->backendUsed, "vulkan") << backend;
    EXPECT_TRUE(result->backendNote.empty()) << result->backendNote;
    EXPECT_EQ(result->device.device.submits, 1) << backend;
    EXPECT_EQ(result->device.device.bytesUp, int64_t(3 * 224 * 224 * 4)) << backend;
    EXPECT_EQ(result->device.device.bytesDown, int64_t(1000 * 4)) << backend;
    ASSERT_EQ(result->outputs.size(), 1u);
    EXPECT_EQ(result->outputs[0].elements, 1000);
  }
}

}  // namespace
}  // namespace onyx::profile
