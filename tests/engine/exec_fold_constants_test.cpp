// Constant folding at run time: nodes that read only constants run in the first run and later runs reuse
// their outputs (the profile names them "folded"); initializers that are also graph inputs stay live.
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"

namespace onyx::exec::testing {
namespace {

// y = x @ Transpose(w) + bias * 2: the Transpose and the Mul read only initializers; `bias` is also a graph
// input, so a caller may replace it and its Mul must not be kept.
const char* kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] x, float[4] bias) => (float[2, 4] y)
  <float[4, 3] w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float two = {2.0},
   float[4] bias = {1, 1, 1, 1}> {
  wt = Transpose <perm = [1, 0]> (w)
  m = MatMul (x, wt)
  b2 = Mul (bias, two)
  y = Add (m, b2)
}
)";

std::vector<std::string> variantsByOutput(Executor& executor, const std::string& output) {
  std::vector<std::string> out;
  for (const ProfileEvent& e : executor.profiler().events())
    if (const Node* n = executor.model().graph().findNode(e.node); n && n->output(0)->name() == output)
      out.push_back(e.variant);
  return out;
}

TEST(ExecFoldConstants, SecondRunReusesWhatReadsOnlyConstants) {
  auto model = parseModelText(kModel);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  NamedValues inputs = {{"x", TensorValue::fromVector<float>(DataType::Float, {2, 3}, {1, 0, 0, 0, 1, 1})}};
  std::vector<float> want = {1 + 2, 4 + 2, 7 + 2, 10 + 2, 2 + 3 + 2, 5 + 6 + 2, 8 + 9 + 2, 11 + 12 + 2};
  for (int run = 0; run < 3; ++run) {
    auto y = (*executor)->run(inputs);
    ASSERT_TRUE(y.ok()) << y.error().toString();
    const auto& t = std::get<TensorValue>((*y)[0]);
    EXPECT_EQ(std::vector<float>(t.span<float>().begin(), t.span<float>().end()), want) << "run " << run;
  }
  auto transposes = variantsByOutput(**executor, "wt");
  ASSERT_EQ(transposes.size(), 3u);
  EXPECT_NE(transposes[0], "folded");
  EXPECT_EQ(transposes[1], "folded");
  EXPECT_EQ(transposes[2], "folded");
  for (const std::string& v : variantsByOutput(**executor, "b2")) EXPECT_NE(v, "folded");
  for (const std::string& v : variantsByOutput(**executor, "m")) EXPECT_NE(v, "folded");

  // The caller's bias replaces the initializer: the result follows it.
  inputs.push_back({"bias", TensorValue::fromVector<float>(DataType::Float, {4}, {0, 0, 0, 10})});
  auto y = (*executor)->run(inputs);
  ASSERT_TRUE(y.ok()) << y.error().toString();
  const auto& t = std::get<TensorValue>((*y)[0]);
  EXPECT_EQ(t.data<float>()[0], 1.0f);
  EXPECT_EQ(t.data<float>()[3], 10.0f + 20.0f);
}

}  // namespace
}  // namespace onyx::exec::testing
