// The plan runner (exec/plan_runner.h) on plans made by the builder: it computes the outputs, frees each
// intermediate after its last reader, keeps folded outputs for the next run (reported as "folded" when
// profiling), and returns a kernel's error.
#include <gtest/gtest.h>

#include "exec/plan_runner.h"
#include "exec_kernel_test_util.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) <float[4] w = {1, 2, 3, 4}> {
  nw = Neg(w)
  a = Relu(x)
  y = Add(a, nw)
})";

std::vector<float> floats(const RunValue& value) {
  const auto& t = std::get<TensorValue>(value);
  return std::vector<float>(t.data<float>(), t.data<float>() + t.count());
}

struct Runner {
  std::unique_ptr<Model> model = parsePlanModel(kModel);
  ThreadPool pool{1};
  CpuBackend cpu{pool};
  BodyPlans bodies;
  std::unique_ptr<GraphPlan> plan;
  Profiler profiler;

  explicit Runner(Backend* preferred = nullptr) {
    if (!model) return;
    std::vector<Backend*> backends = {&cpu};
    if (preferred) backends.insert(backends.begin(), preferred);
    PlanContext context = bareContext(*model, backends);
    context.foldConstants = true;
    plan = planMainGraph(context, bodies);
  }
  Expected<std::vector<RunValue>> run(Frame& frame, bool profile) {
    frame.slots[size_t(plan->inputSlots[0])] =
        TensorValue::fromVector<float>(DataType::Float, {4}, {-1.0f, 0.5f, 2.0f, -3.0f});
    const RunEnvironment env{bodies, pool, profile ? &profiler : nullptr, "cpu"};
    return runPlan(env, *plan, frame, true, 0);
  }
};

TEST(ExecPlanRunner, ComputesTheOutputsAndFreesIntermediates) {
  Runner r;
  ASSERT_TRUE(r.plan);
  Frame frame{r.plan.get(), std::vector<RunValue>(r.plan->slotValue.size()), nullptr};
  auto outputs = r.run(frame, false);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  EXPECT_EQ(floats((*outputs)[0]), (std::vector<float>{-1.0f, -1.5f, -1.0f, -4.0f}));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(frame.slots[size_t(slotNamed(*r.plan, *r.model, "a"))]));
  // Constants stay for the next run; so does the caller's input.
  EXPECT_FALSE(
      std::holds_alternative<std::monostate>(frame.slots[size_t(slotNamed(*r.plan, *r.model, "nw"))]));
  EXPECT_FALSE(std::holds_alternative<std::monostate>(frame.slots[size_t(r.plan->inputSlots[0])]));
  EXPECT_TRUE(r.plan->lastArena && r.plan->lastArena->planned);  // the first run recorded and planned it
}

TEST(ExecPlanRunner, FoldedStepsKeepTheirOutputsForTheNextRun) {
  Runner r;
  ASSERT_TRUE(r.plan);
  const Step* neg = stepProducing(*r.plan, "nw");
  ASSERT_EQ(neg->fold, Fold::Constant);
  Frame first{r.plan.get(), std::vector<RunValue>(r.plan->slotValue.size()), nullptr};
  ASSERT_TRUE(r.run(first, true).ok());
  ASSERT_TRUE(neg->folded.has_value());
  Frame second{r.plan.get(), std::vector<RunValue>(r.plan->slotValue.size()), nullptr};  // nothing kept in it
  auto outputs = r.run(second, true);
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  EXPECT_EQ(floats((*outputs)[0]), (std::vector<float>{-1.0f, -1.5f, -1.0f, -4.0f}));
  std::vector<std::string> variants;
  for (const ProfileEvent& e : r.profiler.events())
    if (e.opType == "Neg") variants.push_back(e.variant);
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_NE(variants[0], "folded");
  EXPECT_EQ(variants[1], "folded");
}

TEST(ExecPlanRunner, AKernelErrorEndsTheRun) {
  FakeBackend failing("failing", true, {{"Relu", {}}});
  Runner r(&failing);
  ASSERT_TRUE(r.plan);
  Frame frame{r.plan.get(), std::vector<RunValue>(r.plan->slotValue.size()), nullptr};
  auto outputs = r.run(frame, false);
  ASSERT_FALSE(outputs.ok());
  EXPECT_NE(outputs.error().message.find("fake kernels do not run"), std::string::npos)
      << outputs.error().toString();
  EXPECT_NE(outputs.error().where.find("Relu"), std::string::npos);
}

}  // namespace
}  // namespace onyx::exec::testing
