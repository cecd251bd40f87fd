// Constant folding at run time: nodes that read only constants run in the first run and later runs reuse
// their outputs (the profile names them "folded"); initializers that are also graph inputs stay live. Shape
// arithmetic (Shape, Gather, Concat of dims) is kept the same way while the dims it read stay the same.
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

// An exporter's flatten: y = Reshape(x, [dim 0 of x, -1]) with the target computed by Shape, Gather,
// Unsqueeze and Concat, then scaled by a value of x itself (not shape arithmetic: never kept).
const char* kShapeModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, C, W] x) => (float[N, M] y) <int64 zero = {0}, int64[1] axes = {0}, int64[1] rest = {-1}> {
  s = Shape (x)
  n = Gather (s, zero)
  n1 = Unsqueeze (n, axes)
  target = Concat <axis = 0> (n1, rest)
  flat = Reshape (x, target)
  first = Gather (flat, zero)
  y = Mul (flat, first)
}
)";

// Runs kShapeModel on x of `dims` holding base, base + 1, ... and checks y.
void runFlatten(Executor& executor, Dims dims, float base) {
  SCOPED_TRACE(describeTensor(DataType::Float, dims));
  executor.profiler().clear();
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<float> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) values[i] = base + float(i);
  auto y = executor.run({{"x", TensorValue::fromVector<float>(DataType::Float, dims, values)}});
  ASSERT_TRUE(y.ok()) << y.error().toString();
  const auto& t = std::get<TensorValue>((*y)[0]);
  const int64_t rows = dims[0], cols = count / dims[0];
  ASSERT_EQ(t.dims(), (Dims{rows, cols}));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      EXPECT_EQ(t.data<float>()[r * cols + c], values[size_t(r * cols + c)] * values[size_t(c)]) << r << "," << c;
}

TEST(ExecFoldConstants, ShapeArithmeticIsKeptWhileTheDimsStay) {
  auto model = parseModelText(kShapeModel);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto runOn = [&](Dims dims, float base) { runFlatten(**executor, std::move(dims), base); };
  auto lastVariant = [&](const char* output) {
    auto v = variantsByOutput(**executor, output);
    return v.empty() ? std::string("(none)") : v.back();
  };
  runOn({2, 3, 4}, 1);
  EXPECT_NE(lastVariant("target"), "folded");
  runOn({2, 3, 4}, 5);  // same dims, other values: the arithmetic is kept, the data path is not
  for (const char* kept : {"s", "n", "n1", "target"}) EXPECT_EQ(lastVariant(kept), "folded") << kept;
  for (const char* live : {"flat", "first", "y"}) EXPECT_NE(lastVariant(live), "folded") << live;
  runOn({3, 2, 2}, 2);  // new dims: everything computed from them again
  for (const char* recomputed : {"s", "n", "n1", "target"})
    EXPECT_NE(lastVariant(recomputed), "folded") << recomputed;
  runOn({3, 2, 2}, 7);
  EXPECT_EQ(lastVariant("target"), "folded");
  runOn({2, 3, 4}, 3);  // and back
  EXPECT_NE(lastVariant("target"), "folded");
}

TEST(ExecFoldConstants, UnprofiledRunsSkipKeptStepsAndStayRight) {
  // Without a profiler the kept values stay in the main graph's slots and their steps are skipped: new
  // dims must still recompute the shape arithmetic, and an initializer given in one run must not stick.
  auto shapes = parseModelText(kShapeModel);
  ASSERT_TRUE(shapes.ok()) << shapes.error().toString();
  auto flatten = Executor::create(**shapes, ExecutorOptions{});
  ASSERT_TRUE(flatten.ok()) << flatten.error().toString();
  const std::pair<Dims, float> runs[] = {{{2, 3, 4}, 1}, {{2, 3, 4}, 5}, {{3, 2, 2}, 2},
                                         {{3, 2, 2}, 7}, {{2, 3, 4}, 3}, {{1, 5, 1}, 4}};
  for (const auto& [dims, base] : runs) runFlatten(**flatten, dims, base);

  auto linear = parseModelText(kModel);
  ASSERT_TRUE(linear.ok()) << linear.error().toString();
  auto executor = Executor::create(**linear, ExecutorOptions{});
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  NamedValues defaults = {{"x", TensorValue::fromVector<float>(DataType::Float, {2, 3}, {1, 0, 0, 0, 1, 1})}};
  NamedValues overridden = defaults;
  overridden.push_back({"bias", TensorValue::fromVector<float>(DataType::Float, {4}, {0, 0, 0, 10})});
  for (const NamedValues* inputs : {&defaults, &defaults, &overridden, &defaults, &overridden}) {
    auto y = (*executor)->run(*inputs);
    ASSERT_TRUE(y.ok()) << y.error().toString();
    const auto& t = std::get<TensorValue>((*y)[0]);
    const bool given = inputs == &overridden;
    EXPECT_EQ(t.data<float>()[0], given ? 1.0f : 3.0f);
    EXPECT_EQ(t.data<float>()[3], given ? 30.0f : 12.0f);
    EXPECT_EQ(t.data<float>()[7], given ? 11.0f + 12.0f + 20.0f : 11.0f + 12.0f + 2.0f);
  }
}

}  // namespace
}  // namespace onyx::exec::testing
