// ai.onnx.preview.training Gradient (ops/misc/gradient_cpu.cpp): reverse-mode derivatives checked against
// central finite differences of the same graph's y, through broadcasting arithmetic, activations and a
// MatMul; y independent of an x gives zeros; nodes it cannot differentiate and inputs missing from xs/zs
// are errors naming them.
#include <gtest/gtest.h>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

constexpr const char* kTrainingHeader =
    R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
)";

double sumOf(const RunValue& v) {
  const TensorValue& t = std::get<TensorValue>(v);
  double s = 0;
  for (int64_t i = 0; i < t.count(); ++i) s += t.doubleAt(i);
  return s;
}

TEST(ExecGradient, MatchesFiniteDifferences) {
  // Every rule once: a MatMul, broadcasts of [4] and [2, 1] against [2, 4], each activation.
  auto model =
      parseModelText(std::string(kTrainingHeader) +
                     R"(g (double[2,3] x, double[3,4] w, double[4] b, double[2,1] s) => (double[2,4] y,
                                     double[2,3] dx, double[3,4] dw, double[4] db, double[2,1] ds) {
      h = MatMul (x, w)
      a = Sigmoid (h)
      m = Mul (a, b)
      t = Tanh (s)
      e = Exp (t)
      q = Div (m, e)
      r = Relu (q)
      l = Log (e)
      n = Neg (l)
      u = Sub (r, n)
      k = Sqrt (e)
      y = Add (u, k)
      dx, dw, db, ds = ai.onnx.preview.training.Gradient <xs = ["x", "w", "b", "s"], y = "y"> (x, w, b, s)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = Executor::create(**model, ExecutorOptions{});
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  NamedValues inputs = {{"x", randomTensor(DataType::Double, {2, 3}, 1, -1, 1)},
                        {"w", randomTensor(DataType::Double, {3, 4}, 2, -1, 1)},
                        {"b", randomTensor(DataType::Double, {4}, 3, 0.5f, 2)},
                        {"s", randomTensor(DataType::Double, {2, 1}, 4, -1, 1)}};
  auto result = (*executor)->run(inputs);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  const double h = 1e-6;
  for (size_t x = 0; x < inputs.size(); ++x) {
    const TensorValue& grad = std::get<TensorValue>((*result)[1 + x]);
    const TensorValue& value = std::get<TensorValue>(inputs[x].second);
    ASSERT_EQ(grad.dims(), value.dims());
    for (int64_t i = 0; i < grad.count(); ++i) {
      NamedValues plus = inputs, minus = inputs;
      TensorValue up = value.clone(), down = value.clone();
      up.data<double>()[i] += h;
      down.data<double>()[i] -= h;
      plus[x].second = up;
      minus[x].second = down;
      auto above = (*executor)->run(plus);
      auto below = (*executor)->run(minus);
      ASSERT_TRUE(above.ok() && below.ok());
      const double numeric = (sumOf((*above)[0]) - sumOf((*below)[0])) / (2 * h);
      EXPECT_NEAR(grad.doubleAt(i), numeric, 1e-6) << inputs[x].first << "[" << i << "]";
    }
  }
}

std::vector<double> values(const TensorValue& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.count(); ++i) v.push_back(t.doubleAt(i));
  return v;
}

TEST(ExecGradient, AnXThatYDoesNotReadGetsZerosInItsType) {
  auto model = parseModelText(std::string(kTrainingHeader) +
                              R"(g (float[3] a, float[3] b) => (float[3] da, float[3] db) {
      y = Mul (a, a)
      da, db = ai.onnx.preview.training.Gradient <xs = ["a", "b"], y = "y"> (a, b)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto result = runGraph(**model,
                         {{"a", TensorValue::fromVector<float>(DataType::Float, {3}, {1, -2, 3})},
                          {"b", TensorValue::fromVector<float>(DataType::Float, {3}, {4, 5, 6})}},
                         false);
  ASSERT_EQ(result.outputs.size(), 2u);
  const TensorValue& da = std::get<TensorValue>(result.outputs[0]);
  const TensorValue& db = std::get<TensorValue>(result.outputs[1]);
  ASSERT_EQ(da.dtype(), DataType::Float);
  EXPECT_EQ(values(da), (std::vector<double>{2, -4, 6}));
  EXPECT_EQ(values(db), (std::vector<double>{0, 0, 0}));
}

std::string gradientError(const std::string& text, const NamedValues& inputs) {
  auto model = parseModelText(std::string(kTrainingHeader) + text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  if (!model.ok()) return "";
  auto executor = Executor::create(**model, ExecutorOptions{});
  if (!executor.ok()) return executor.error().toString();
  auto result = (*executor)->run(inputs);
  return result.ok() ? "" : result.error().toString();
}

TEST(ExecGradient, UndifferentiableNodesAndMissingInputsAreNamed) {
  NamedValues ab = {{"a", TensorValue::fromVector<float>(DataType::Float, {2}, {1.5f, 2.5f})},
                    {"b", TensorValue::fromVector<float>(DataType::Float, {2}, {1, 2})}};
  std::string floor = gradientError(R"(g (float[2] a, float[2] b) => (float[2] da) {
      f = Floor (a)
      y = Mul (f, b)
      da = ai.onnx.preview.training.Gradient <xs = ["a"], zs = ["b"], y = "y"> (a, b)
    })",
                                    ab);
  EXPECT_NE(floor.find("cannot differentiate through Floor"), std::string::npos) << floor;
  std::string missing = gradientError(R"(g (float[2] a, float[2] b) => (float[2] da) {
      y = Mul (a, b)
      da = ai.onnx.preview.training.Gradient <xs = ["a"], y = "y"> (a)
    })",
                                      ab);
  EXPECT_NE(missing.find("'b', which is neither in xs or zs nor a constant"), std::string::npos) << missing;
  std::string count = gradientError(R"(g (float[2] a, float[2] b) => (float[2] da) {
      y = Mul (a, b)
      da = ai.onnx.preview.training.Gradient <xs = ["a"], zs = ["b"], y = "y"> (a)
    })",
                                    ab);
  EXPECT_NE(count.find("one input per name in xs and zs"), std::string::npos) << count;
}

}  // namespace
}  // namespace onyx::exec::testing
