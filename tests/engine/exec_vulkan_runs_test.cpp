// A steady-state run on the Vulkan backend does its work in one submit: the six shared models, after a
// warm-up run, make exactly one queue submit and one host wait, upload exactly their input bytes, read back
// exactly their output bytes, run no node on the CPU, and still match test_data_set_0. lavapipe is slow:
// one data set each, two runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "exec/compare.h"
#include "exec/executor.h"
#include "exec_vulkan_test_util.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

int64_t tensorBytes(const RunValue& value) {
  const auto* t = std::get_if<TensorValue>(&value);
  return t ? t->byteSize() : 0;
}

std::string describeHostNodes(const RunReport& report) {
  std::string out;
  for (const HostNodeRun& n : report.hostNodes) out += "\n  " + n.node + ": " + n.why;
  return out;
}

class VulkanSteadyRun : public ::testing::TestWithParam<std::string> {};

TEST_P(VulkanSteadyRun, OneSubmitAndOnlyInputAndOutputBytes) {
  ONYX_REQUIRE_VULKAN();
  const std::string relative = "models/" + GetParam();
  ONYX_REQUIRE_SHARED(dir, relative);
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();

  auto warmup = (*executor)->run(data->inputs);  // uploads weights, folds constants and shapes
  ASSERT_TRUE(warmup.ok()) << warmup.error().toString();
  auto outputs = (*executor)->run(data->inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();

  const RunReport& report = (*executor)->lastRunReport();
  EXPECT_EQ(report.device.submits, 1);
  EXPECT_EQ(report.device.waits, 1);
  int64_t inputBytes = 0, outputBytes = 0;
  for (const auto& [name, value] : data->inputs) inputBytes += tensorBytes(value);
  for (const RunValue& value : *outputs) outputBytes += tensorBytes(value);
  EXPECT_EQ(report.device.bytesUp, inputBytes);
  EXPECT_EQ(report.device.bytesDown, outputBytes);
  EXPECT_TRUE(report.hostNodes.empty()) << "nodes on the CPU:" << describeHostNodes(report);

  ASSERT_EQ(outputs->size(), data->outputs.size());
  for (size_t k = 0; k < outputs->size(); ++k) {
    Comparison c = compareValues((*outputs)[k], data->outputs[k], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Exec, VulkanSteadyRun,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
                                           "bert_small", "gpt2_small"));

// The first `length` tokens of each [batch, sequence] input.
NamedValues truncated(const NamedValues& inputs, int64_t length) {
  NamedValues out;
  for (const auto& [name, value] : inputs) {
    const TensorValue& t = std::get<TensorValue>(value);
    TensorValue shorter = TensorValue::allocate(t.dtype(), {t.dim(0), length});
    for (int64_t b = 0; b < t.dim(0); ++b)
      for (int64_t i = 0; i < length; ++i) shorter.data<int64_t>()[b * length + i] = t.data<int64_t>()[b * t.dim(1) + i];
    out.push_back({name, shorter});
  }
  return out;
}

void expectIdentical(const std::vector<RunValue>& a, const std::vector<RunValue>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    const TensorValue& x = std::get<TensorValue>(a[k]);
    const TensorValue& y = std::get<TensorValue>(b[k]);
    ASSERT_EQ(x.dims(), y.dims());
    EXPECT_EQ(std::memcmp(x.raw(), y.raw(), size_t(x.byteSize())), 0) << "output " << k << " differs";
  }
}

// Record once, replay: runs with the dims of the last run submit the command buffer recorded then (and give
// the very same outputs); new dims record again, and match the CPU.
TEST(VulkanReplay, SameDimsReplayNewDimsRecordAgain) {
  ONYX_REQUIRE_VULKAN();
  ONYX_REQUIRE_SHARED(dir, "models/bert_small");
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  Executor& ex = **executor;

  auto first = ex.run(data->inputs);
  ASSERT_TRUE(first.ok()) << first.error().toString();
  EXPECT_EQ(ex.lastRunReport().device.replays, 0);  // nothing recorded yet
  auto second = ex.run(data->inputs);
  ASSERT_TRUE(second.ok()) << second.error().toString();
  auto third = ex.run(data->inputs);
  ASSERT_TRUE(third.ok()) << third.error().toString();
  EXPECT_EQ(ex.lastRunReport().device.submits, 1);
  EXPECT_EQ(ex.lastRunReport().device.replays, 1);
  expectIdentical(*second, *third);
  expectIdentical(*first, *third);

  const NamedValues shorter = truncated(data->inputs, 32);
  auto fourth = ex.run(shorter);
  ASSERT_TRUE(fourth.ok()) << fourth.error().toString();
  EXPECT_EQ(ex.lastRunReport().device.replays, 0);  // new dims: recorded again
  auto fifth = ex.run(shorter);
  ASSERT_TRUE(fifth.ok()) << fifth.error().toString();
  auto sixth = ex.run(shorter);
  ASSERT_TRUE(sixth.ok()) << sixth.error().toString();
  EXPECT_EQ(ex.lastRunReport().device.replays, 1);
  expectIdentical(*fourth, *sixth);
  ASSERT_EQ(std::get<TensorValue>((*sixth)[0]).dim(1), 32);

  auto cpu = Executor::create(**model, ExecutorOptions{});
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expected = (*cpu)->run(shorter);
  ASSERT_TRUE(expected.ok()) << expected.error().toString();
  for (size_t k = 0; k < expected->size(); ++k) {
    Comparison c = compareValues((*sixth)[k], (*expected)[k], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
  }
}

// The same inputs with the token order reversed (same dims, other values).
NamedValues reversedTokens(const NamedValues& inputs) {
  NamedValues out;
  for (const auto& [name, value] : inputs) {
    TensorValue t = std::get<TensorValue>(value).clone();
    if (name == "input_ids") std::reverse(t.data<int64_t>(), t.data<int64_t>() + t.count());
    out.push_back({name, t});
  }
  return out;
}

// Without the walk: from the fourth run with the same dims the executor copies the inputs into the recorded
// staging buffers and submits the recording, and each run still computes on its own inputs (other token
// values, then the first again), while outputs the caller holds keep their values.
TEST(VulkanReplay, RunsReplayedWithoutTheWalkComputeOnTheirOwnInputs) {
  ONYX_REQUIRE_VULKAN();
  ONYX_REQUIRE_SHARED(dir, "models/bert_small");
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  Executor& ex = **executor;
  auto data = loadTestDataSet(**model, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  const NamedValues reversed = reversedTokens(data->inputs);
  auto cpu = Executor::create(**model, ExecutorOptions{});
  ASSERT_TRUE(cpu.ok()) << cpu.error().toString();
  auto expectedReversed = (*cpu)->run(reversed);
  ASSERT_TRUE(expectedReversed.ok()) << expectedReversed.error().toString();

  // The first run uploads the weights, the second records the steady state, the third replays it after
  // walking the plan: from then on the walk is skipped.
  for (int run = 0; run < 3; ++run) {
    auto out = ex.run(data->inputs);
    ASSERT_TRUE(out.ok()) << out.error().toString();
    EXPECT_TRUE(ex.lastRunReport().planWalked);
  }
  auto fromReversed = ex.run(reversed);
  ASSERT_TRUE(fromReversed.ok()) << fromReversed.error().toString();
  EXPECT_FALSE(ex.lastRunReport().planWalked);
  EXPECT_EQ(ex.lastRunReport().device.submits, 1);
  EXPECT_EQ(ex.lastRunReport().device.waits, 1);
  const std::vector<RunValue> held = *fromReversed;
  auto again = ex.run(data->inputs);
  ASSERT_TRUE(again.ok()) << again.error().toString();
  EXPECT_FALSE(ex.lastRunReport().planWalked);
  for (size_t k = 0; k < data->outputs.size(); ++k) {
    Comparison r = compareValues(held[k], (*expectedReversed)[k], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(r.ok) << "reversed tokens, output " << k << ": " << r.reason;
    Comparison c = compareValues((*again)[k], data->outputs[k], Tolerance{1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "data set 0, output " << k << ": " << c.reason;
    EXPECT_FALSE(compareValues(held[k], (*again)[k], Tolerance{1e-3, 1e-4}).ok) << "the token order is lost";
  }
  NamedValues outOfRange = reversedTokens(data->inputs);
  for (auto& [name, value] : outOfRange)
    if (name == "input_ids") std::get<TensorValue>(value).data<int64_t>()[3] = 1 << 30;
  auto refused = ex.run(outOfRange);  // not replayed: the walk's Gather names the bad index
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().toString().find("out of range"), std::string::npos) << refused.error().toString();
  auto shorter = ex.run(truncated(data->inputs, 32));
  ASSERT_TRUE(shorter.ok()) << shorter.error().toString();
  EXPECT_TRUE(ex.lastRunReport().planWalked);  // new dims
}

// An input a device kernel reads on the host (Reshape's shape) changes the recorded commands with its
// values, so every run walks the plan: the outputs follow each run's shape.
TEST(VulkanReplay, AnInputReadOnTheHostWalksEveryRun) {
  ONYX_REQUIRE_VULKAN();
  auto model = parseModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
reshape (float[2, 6] x, int64[2] s) => (float[a, b] y) {
  r = Reshape (x, s)
  y = Relu (r)
}
)");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.backends = {"vulkan"};
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  TensorValue x = TensorValue::allocate(DataType::Float, {2, 6});
  for (int64_t i = 0; i < 12; ++i) x.data<float>()[i] = float(i - 6);
  for (auto shape : {std::vector<int64_t>{3, 4}, {3, 4}, {3, 4}, {4, 3}, {6, 2}}) {
    auto out = (*executor)->run({{"x", x}, {"s", TensorValue::fromVector<int64_t>(DataType::Int64, {2}, shape)}});
    ASSERT_TRUE(out.ok()) << out.error().toString();
    EXPECT_TRUE((*executor)->lastRunReport().planWalked);
    EXPECT_EQ(std::get<TensorValue>((*out)[0]).dims(), Dims(shape.begin(), shape.end()));
  }
}

}  // namespace
}  // namespace onyx::exec
