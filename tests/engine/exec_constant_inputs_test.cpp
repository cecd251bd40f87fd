// Inputs that hold the same value every run (KernelContext::inputIsConstant): weights, and values the
// executor folded from weights (PyTorch exports Linear weights as Transpose(W)), which oneDNN kernels pack
// once. Initializers that are also graph inputs are defaults a caller may override and are never packed.
#include <gtest/gtest.h>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

std::vector<RunValue> runOnce(Executor& executor, const NamedValues& inputs) {
  auto result = executor.run(inputs);
  EXPECT_TRUE(result.ok()) << result.error().toString();
  return result.ok() ? std::move(*result) : std::vector<RunValue>{};
}

void expectClose(const std::vector<RunValue>& got, const std::vector<RunValue>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(got[i]), std::get<TensorValue>(want[i]), 1e-4, 1e-5))
        << "output " << i;
}

TEST(ExecConstantInputs, WeightsFoldedFromInitializersStayRightOverRuns) {
  // A Linear as exported (MatMul by a Transpose of the weight) and a Conv whose weight is scaled by a
  // constant: both weights are computed in the first run, kept, and packed by the kernels.
  auto model = parseModelText(std::string(kHeader) + R"(g (float[6,4] x, float[1,2,5,5] img) => (float[6,3] y, float[1,3,3,3] c)
      <float[3,4] w = {1, -2, 3, 0.5, -1, 2, 0.25, 4, 3, -3, 1, 2}, float two = {2.0}> {
      wt = Transpose (w)
      y = MatMul (x, wt)
      one = Constant <value = float {1.0}> ()
      ks = Mul (one, two)
      cw = Constant <value = float[3,2,3,3] {1,2,3,4,5,6,7,8,9,-1,-2,-3,-4,-5,-6,-7,-8,-9,1,0,1,0,1,0,1,0,1,
                                             2,2,2,2,2,2,2,2,2,-1,0,1,-1,0,1,-1,0,1,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5}> ()
      cws = Mul (cw, ks)
      c = Conv (img, cws)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto fast = Executor::create(**model, ExecutorOptions{});
  ExecutorOptions oracle;
  oracle.kernelVariant = "reference";
  oracle.foldConstants = false;
  auto reference = Executor::create(**model, oracle);
  ASSERT_TRUE(fast.ok() && reference.ok());
  for (uint64_t seed = 1; seed <= 3; ++seed) {  // the first run packs, the later ones reuse the packs
    SCOPED_TRACE("run " + std::to_string(seed));
    NamedValues inputs = randomInputs(**model, seed * 10);
    expectClose(runOnce(**fast, inputs), runOnce(**reference, inputs));
  }
}

TEST(ExecConstantInputs, InitializerThatIsAGraphInputCanBeOverriddenInAnyRun) {
  // IR 3 lists initializers among the inputs: they are defaults, and a run may pass its own.
  auto model = parseModelText(R"(<ir_version: 3, opset_import: ["" : 13]>
    g (float[6,4] x, float[4,3] w, float[1,2,4,4] img, float[3,2,3,3] k) => (float[6,3] y, float[1,3,2,2] c)
      <float[4,3] w = {1, -2, 3, 0.5, -1, 2, 0.25, 4, 3, -3, 1, 2},
       float[3,2,3,3] k = {1,2,3,4,5,6,7,8,9,-1,-2,-3,-4,-5,-6,-7,-8,-9,1,0,1,0,1,0,1,0,1,
                           2,2,2,2,2,2,2,2,2,-1,0,1,-1,0,1,-1,0,1,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5}> {
      y = MatMul (x, w)
      c = Conv (img, k)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto fast = Executor::create(**model, ExecutorOptions{});
  ExecutorOptions oracle;
  oracle.kernelVariant = "reference";
  auto reference = Executor::create(**model, oracle);
  ASSERT_TRUE(fast.ok() && reference.ok());
  NamedValues defaults = {{"x", randomTensor(DataType::Float, {6, 4}, 1)},
                          {"img", randomTensor(DataType::Float, {1, 2, 4, 4}, 2)}};
  NamedValues overridden = defaults;
  overridden.push_back({"w", randomTensor(DataType::Float, {4, 3}, 3)});
  overridden.push_back({"k", randomTensor(DataType::Float, {3, 2, 3, 3}, 4)});
  for (const NamedValues* inputs : {&defaults, &overridden, &defaults}) {
    SCOPED_TRACE(inputs == &defaults ? "defaults" : "overridden");
    expectClose(runOnce(**fast, *inputs), runOnce(**reference, *inputs));
  }
}

}  // namespace
}  // namespace onyx::exec::testing
