// Executor behaviour: memory planning (arena, in-place, peak), errors for bad inputs naming the node and
// input, unsupported ops, arena exhaustion, scheduling onto another backend with transfers, profiling.
#include <gtest/gtest.h>

#include <cmath>

#include "exec/cpu_backend.h"
#include "exec/memory_planner.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"
#include "profile/profile_summary.h"

namespace onyx::exec::testing {
namespace {

std::unique_ptr<Model> parse(const char* text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return model.ok() ? std::move(*model) : nullptr;
}

const char* kChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
chain (float[N, 64] x) => (float[N, 64] y) {
  a = Relu(x)
  b = Sigmoid(a)
  c = Add(a, b)
  d = Tanh(c)
  y = Mul(d, d)
}
)";

TEST(ExecMemoryPlanner, ReusesMemoryOfDeadTensors) {
  std::vector<BufferRequest> requests = {
      {1000, 0, 1, -1, "a"}, {1000, 1, 2, -1, "b"}, {1000, 2, 3, -1, "c"}, {1000, 3, 4, -1, "d"}};
  MemoryPlan plan = planMemory(requests);
  // Two buffers alive at a time: a and c can share, b and d can share.
  EXPECT_EQ(plan.arenaBytes, 2 * 1024);
  EXPECT_EQ(plan.peakBytes, 2 * 1024);
  for (size_t i = 0; i < requests.size(); ++i)
    for (size_t j = i + 1; j < requests.size(); ++j) {
      bool overlapInTime =
          requests[i].firstStep <= requests[j].lastStep && requests[j].firstStep <= requests[i].lastStep;
      if (overlapInTime) {
        EXPECT_NE(plan.offsets[i], plan.offsets[j]);
      }
    }
}

TEST(ExecMemoryPlanner, InPlaceSharesTheBlock) {
  std::vector<BufferRequest> requests = {{4096, 0, 1, -1, "a"}, {4096, 1, 2, 0, "b"}};
  MemoryPlan plan = planMemory(requests);
  EXPECT_EQ(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.arenaBytes, 4096);
  EXPECT_EQ(plan.inPlaceCount, 1);
}

TEST(ExecExecutor, PlannedRunsMatchTheFirstRunAndReportThePeak) {
  auto model = parse(kChain);
  ASSERT_TRUE(model);
  auto executor = Executor::create(*model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto x = randomTensor(DataType::Float, {8, 64}, 3);
  auto first = (*executor)->run({{"x", x}});
  ASSERT_TRUE(first.ok()) << first.error().toString();
  TensorValue expected = std::get<TensorValue>((*first)[0]).clone();
  for (int i = 0; i < 3; ++i) {
    auto again = (*executor)->run({{"x", x}});
    ASSERT_TRUE(again.ok()) << again.error().toString();
    EXPECT_TRUE(closeTensors(std::get<TensorValue>((*again)[0]), expected, 0, 0));
  }
  MemoryReport report = (*executor)->memoryReport();
  EXPECT_GT(report.arenaBytes, 0);
  EXPECT_GE(report.arenaBytes, report.peakBytes);
  EXPECT_LE(report.arenaBytes, 3 * 8 * 64 * 4);  // a chain of five ops needs at most three live tensors
  EXPECT_FALSE(report.aliveAtPeak.empty());
  EXPECT_EQ(SymBindings({{"N", 8}}), (*executor)->bindings());
}

TEST(ExecExecutor, NewInputShapesArePlannedAgain) {
  auto model = parse(kChain);
  auto executor = Executor::create(*model);
  ASSERT_TRUE(executor.ok());
  ExecutorOptions heapOnly;
  heapOnly.useArena = false;
  auto unplanned = Executor::create(*model, heapOnly);
  for (int64_t n : {2, 5, 2, 1, 5}) {
    auto x = randomTensor(DataType::Float, {n, 64}, uint64_t(n));
    auto planned = (*executor)->run({{"x", x}});
    auto expected = (*unplanned)->run({{"x", x}});
    ASSERT_TRUE(planned.ok()) << planned.error().toString();
    EXPECT_EQ(std::get<TensorValue>((*planned)[0]).dims(), (Dims{n, 64}));
    EXPECT_TRUE(
        closeTensors(std::get<TensorValue>((*planned)[0]), std::get<TensorValue>((*expected)[0]), 0, 0));
  }
}

TEST(ExecExecutor, WrongDtypeNamesTheInput) {
  auto model = parse(kChain);
  auto executor = Executor::create(*model);
  ASSERT_TRUE(executor.ok());
  auto result = (*executor)->run({{"x", randomTensor(DataType::Double, {2, 64}, 1)}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().toString(),
            "input 'x' is float64[2, 64] but the model expects float32[N, 64] (x)");
}

TEST(ExecExecutor, WrongRankNamesTheInput) {
  auto model = parse(kChain);
  auto executor = Executor::create(*model);
  auto result = (*executor)->run({{"x", randomTensor(DataType::Float, {64}, 1)}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().toString(),
            "input 'x' has rank 1 (float32[64]) but the model expects float32[N, 64] (x)");
}

TEST(ExecExecutor, MissingInputIsReported) {
  auto model = parse(kChain);
  auto executor = Executor::create(*model);
  auto result = (*executor)->run({});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().toString(), "missing input 'x' (float32[N, 64]) (x)");
}

TEST(ExecExecutor, RunTimeBroadcastFailureNamesNodeAndInput) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[A] x, float[B] y) => (float[C] z) {
  z = Add(x, y)
}
)");
  auto executor = Executor::create(*model);
  ASSERT_TRUE(executor.ok());
  auto result = (*executor)->run(
      {{"x", randomTensor(DataType::Float, {3}, 1)}, {"y", randomTensor(DataType::Float, {4}, 2)}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().toString().find("cannot broadcast float32[3] with float32[4]"), std::string::npos);
  EXPECT_NE(result.error().where.find("input 1 'y'"), std::string::npos);
}

TEST(ExecExecutor, UnsupportedOpNamesTheNode) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
g (float[2] x) => (float[2] y) {
  y = com.example.Frobnicate(x)
}
)");
  auto executor = Executor::create(*model);
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().toString().find("Frobnicate"), std::string::npos);
  EXPECT_NE(executor.error().toString().find("not supported"), std::string::npos);
}

TEST(ExecExecutor, ArenaExhaustionNamesTheNode) {
  auto model = parse(kChain);
  ExecutorOptions options;
  options.arenaLimitBytes = 1024;
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok());
  auto result = (*executor)->run({{"x", randomTensor(DataType::Float, {16, 64}, 1)}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("over the limit of 1024"), std::string::npos)
      << result.error().toString();
  EXPECT_NE(result.error().where.find("(#"), std::string::npos) << result.error().toString();
}

TEST(ExecExecutor, UnknownBackendIsAClearError) {
  auto model = parse(kChain);
  ExecutorOptions options;
  options.backends = {"metal"};
  auto executor = Executor::create(*model, options);
  ASSERT_FALSE(executor.ok());
  EXPECT_EQ(executor.error().message, "backend 'metal' is not available in this build; choose one of: cpu, vulkan");
}

TEST(ExecExecutor, ProfileHasOneEventPerNodeAndAChromeTrace) {
  auto model = parse(kChain);
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(*model, options);
  auto x = randomTensor(DataType::Float, {4, 64}, 1);
  ASSERT_TRUE((*executor)->run({{"x", x}}).ok());
  ASSERT_TRUE((*executor)->run({{"x", x}}).ok());
  const auto& events = (*executor)->profiler().events();
  ASSERT_EQ(events.size(), 10u);
  EXPECT_EQ(events[2].opType, "Add");
  EXPECT_EQ(events[2].iteration, 0);
  EXPECT_EQ(events[7].iteration, 1);
  EXPECT_EQ(events[2].bytesRead, 2 * 4 * 64 * 4);
  EXPECT_EQ(events[2].bytesWritten, 4 * 64 * 4);
  EXPECT_EQ(events[2].flops, 4 * 64);
  std::string trace = (*executor)->profiler().chromeTraceJson();
  EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(trace.find("\"op\":\"Tanh\""), std::string::npos);
  auto byOp = profile::summarize((*executor)->profiler().events(), profile::SummaryKey::OpType);
  EXPECT_EQ(byOp.size(), 5u);
}

// A backend that runs only Relu, on "device" memory, to check scheduling, fallback and transfers.
class ReluOnlyBackend final : public Backend {
 public:
  std::string_view name() const override { return "fake"; }
  bool usesHostMemory() const override { return false; }
  bool supports(const Node& node, int) const override { return node.opType() == "Relu"; }
  Expected<std::unique_ptr<PreparedNode>> prepare(
      const Node& node, int opset, const NodeShapes& shapes,
      const std::vector<const onyx::Tensor*>& constants) override {
    CpuBackend cpu(pool_);
    return cpu.prepare(node, opset, shapes, constants);
  }
  Expected<TensorValue> toDevice(const TensorValue& host) override {
    ++uploads;
    TensorValue t = host.clone();
    t.setDevice(this);
    return t;
  }
  Expected<TensorValue> toHost(const TensorValue& device) override {
    ++downloads;
    TensorValue t = device.clone();
    t.setDevice(nullptr);
    return t;
  }
  int uploads = 0, downloads = 0;

 private:
  ThreadPool pool_{1};
};

TEST(ExecScheduler, AssignsSupportedNodesFallsBackAndInsertsTransfers) {
  auto model = parse(kChain);
  ExecutorOptions options;
  options.backends = {"fake", "cpu"};
  std::vector<std::unique_ptr<Backend>> extra;
  extra.push_back(std::make_unique<ReluOnlyBackend>());
  auto* fake = static_cast<ReluOnlyBackend*>(extra.back().get());
  auto executor = Executor::create(*model, options, std::move(extra));
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto assignments = (*executor)->assignments();
  ASSERT_EQ(assignments.size(), 5u);
  EXPECT_EQ(assignments[0].backend, "fake");  // Relu
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(assignments[i].backend, "cpu") << assignments[i].node->opType();
  // x goes up to the device; a comes back once for its two CPU consumers.
  EXPECT_EQ((*executor)->transferCount(), 2);
  auto x = randomTensor(DataType::Float, {4, 64}, 9);
  auto result = (*executor)->run({{"x", x}});
  ASSERT_TRUE(result.ok()) << result.error().toString();
  EXPECT_EQ(fake->uploads, 1);
  EXPECT_EQ(fake->downloads, 1);
  auto cpuOnly = Executor::create(*model);
  auto expected = (*cpuOnly)->run({{"x", x}});
  EXPECT_TRUE(closeTensors(std::get<TensorValue>((*result)[0]), std::get<TensorValue>((*expected)[0]), 0, 0));
}

}  // namespace
}  // namespace onyx::exec::testing

namespace onyx::exec::testing {
namespace {

TEST(ExecExecutor, OutputsTheCallerHoldsAreNeverReused) {
  auto model = parse(kChain);
  ASSERT_TRUE(model);
  auto executor = Executor::create(*model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto run = [&](float value) {
    auto x = TensorValue::fromVector<float>(DataType::Float, {4, 64}, std::vector<float>(256, value));
    auto y = (*executor)->run({{"x", x}});
    EXPECT_TRUE(y.ok()) << y.error().toString();
    return std::get<TensorValue>((*y)[0]);
  };
  TensorValue first = run(1.0f);
  TensorValue second = run(2.0f);  // planned run: outputs come from the kept blocks
  TensorValue third = run(3.0f);
  EXPECT_NE(second.raw(), third.raw());
  const float expect2 = std::tanh(2.0f + 1.0f / (1.0f + std::exp(-2.0f)));
  EXPECT_NEAR(second.data<float>()[0], expect2 * expect2, 1e-5);
  const void* dropped = second.raw();
  second = TensorValue();
  TensorValue fourth = run(4.0f);  // may take the block the caller dropped, never the one it holds
  EXPECT_NE(fourth.raw(), third.raw());
  EXPECT_EQ(fourth.raw(), dropped);
  const float expect3 = std::tanh(3.0f + 1.0f / (1.0f + std::exp(-3.0f)));
  EXPECT_NEAR(third.data<float>()[255], expect3 * expect3, 1e-5);
}

}  // namespace
}  // namespace onyx::exec::testing
