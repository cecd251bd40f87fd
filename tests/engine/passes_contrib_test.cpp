// The passes on ONNX Runtime's com.microsoft ops (#22): the contrib ops Onyx implements are pure, so dead
// ones go and equal ones merge, never with an op of another domain or with other attributes; ops of the
// domain Onyx does not know stay; elementwise-fusion leaves them out of its groups; and every registered pass
// leaves the outputs of the ONNX Runtime-optimized models (../shared/models-ort) equal to ONNX Runtime's.
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "exec/executor.h"
#include "passes_test_support.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

const char* kHeader = "<ir_version: 8, opset_import: [\"\" : 20, \"com.microsoft\" : 1]>\n";

std::string model(const std::string& graph) { return kHeader + graph; }

TEST(ContribPasses, DeadCodeEliminationRemovesUnusedContribNodesAndKeepsUnknownOnes) {
  PassStep step = expectRewrite("dead-code-elimination", model(R"(
g (float[2, 8] x, float[8] bias) => (float[2, 8] y) {
  dead = com.microsoft.FastGelu (x, bias)
  dead_too = com.microsoft.Gelu (dead)
  unknown = com.microsoft.NotAnOnnxRuntimeOp (x)
  y = Neg(x)
})"),
                                model(R"(
g (float[2, 8] x, float[8] bias) => (float[2, 8] y) {
  unknown = com.microsoft.NotAnOnnxRuntimeOp (x)
  y = Neg(x)
})"));
  EXPECT_EQ(counter(step, "nodes-removed"), 2);
  EXPECT_NE(skipReasons(step).find("op of domain 'com.microsoft' may have side effects"), std::string::npos)
      << skipReasons(step);
}

TEST(ContribPasses, CommonSubexpressionEliminationMergesEqualContribNodesOnly) {
  // g1 and g2 are one com.microsoft Gelu; g3 is ai.onnx's Gelu (opset 20) of the same input: another op.
  // The FusedMatMuls differ in alpha, the two with alpha 0.5 merge.
  PassStep step = expectRewrite("common-subexpression-elimination", model(R"(
g (float[2, 8] x, float[8, 8] w) => (float[2, 8] a, float[2, 8] b, float[2, 8] c, float[2, 8] d, float[2, 8] e) {
  g1 = com.microsoft.Gelu (x)
  g2 = com.microsoft.Gelu (x)
  g3 = Gelu (x)
  a = Add(g1, g2)
  b = Identity(g3)
  m1 = com.microsoft.FusedMatMul <alpha = 0.5> (x, w)
  m2 = com.microsoft.FusedMatMul <alpha = 0.25> (x, w)
  m3 = com.microsoft.FusedMatMul <alpha = 0.5> (x, w)
  c = Add(m1, m2)
  d = Identity(m3)
  u1 = com.microsoft.NotAnOnnxRuntimeOp (x)
  u2 = com.microsoft.NotAnOnnxRuntimeOp (x)
  e = Add(u1, u2)
})"),
                                model(R"(
g (float[2, 8] x, float[8, 8] w) => (float[2, 8] a, float[2, 8] b, float[2, 8] c, float[2, 8] d, float[2, 8] e) {
  g1 = com.microsoft.Gelu (x)
  g3 = Gelu (x)
  a = Add(g1, g1)
  b = Identity(g3)
  m1 = com.microsoft.FusedMatMul <alpha = 0.5> (x, w)
  m2 = com.microsoft.FusedMatMul <alpha = 0.25> (x, w)
  c = Add(m1, m2)
  d = Identity(m1)
  u1 = com.microsoft.NotAnOnnxRuntimeOp (x)
  u2 = com.microsoft.NotAnOnnxRuntimeOp (x)
  e = Add(u1, u2)
})"));
  EXPECT_EQ(counter(step, "nodes-merged"), 2);
}

TEST(ContribPasses, ElementwiseFusionFusesAroundContribOpsWithoutSwallowingThem) {
  auto parsed = parse(model(R"(
g (float[2, 8] x, float[2, 8] s, float[8] bias) => (float[2, 8] y) {
  a = Add(x, s)
  b = Relu(a)
  c = com.microsoft.Gelu (b)
  d = com.microsoft.BiasAdd (c, bias, s)
  e = Sigmoid(d)
  y = Mul(e, d)
})"));
  ASSERT_TRUE(parsed);
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Float, {2, 8});
  exec::TensorValue s = exec::TensorValue::allocate(DataType::Float, {2, 8});
  exec::TensorValue bias = exec::TensorValue::allocate(DataType::Float, {8});
  for (int64_t i = 0; i < 8; ++i) bias.data<float>()[i] = 0.25f * float(i) - 1.0f;
  for (int64_t i = 0; i < 16; ++i) x.data<float>()[i] = 0.3f * float(i) - 2.0f, s.data<float>()[i] = 0.1f * float(i % 5);
  auto run = [&](const Model& m) {
    auto executor = exec::Executor::create(m);
    EXPECT_TRUE(executor.ok()) << executor.error().toString();
    auto out = (*executor)->run({{"x", x}, {"s", s}, {"bias", bias}});
    EXPECT_TRUE(out.ok()) << out.error().toString();
    return std::get<exec::TensorValue>((*out)[0]).clone();
  };
  exec::TensorValue before = run(*parsed);
  PassStep step = runOnce(*parsed, "elementwise-fusion");
  EXPECT_TRUE(step.changed);
  int contrib = 0;
  for (const Node* node : parsed->graph().nodes()) contrib += node->domain() == "com.microsoft";
  EXPECT_EQ(contrib, 2) << printModelText(*parsed);
  for (const auto& function : parsed->functions)
    for (const Node* node : function->body->nodes())
      EXPECT_TRUE(node->domain().empty()) << node->describe() << " fused into " << function->name;
  exec::Comparison same = exec::compareValues(run(*parsed), before, {1e-6, 1e-7});
  EXPECT_TRUE(same.ok) << same.reason;
}

// Every registered pass, alone, on the ONNX Runtime-optimized BERTs: the outputs still match ONNX Runtime's
// test outputs at the tolerance `onyx run --check` uses for each (tests/cli/ort_models_tests.cmake).
TEST(ContribPasses, EveryPassKeepsTheOrtModelsOutputs) {
  struct OrtModel {
    const char* name;
    exec::Tolerance tolerance;
  };
  const OrtModel models[] = {{"bert_small_ortopt_fp16", {1e-2, 5e-3}}, {"bert_small_int4", {1e-3, 1e-4}}};
  for (const OrtModel& ort : models) {
    const std::string relative = std::string("models-ort/") + ort.name;
    ONYX_REQUIRE_SHARED(folder, relative);
    for (const PassInfo& info : passRegistry()) {
      SCOPED_TRACE(std::string(ort.name) + " after " + info.name);
      auto loaded = loadModel(folder / "model.onnx");
      ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
      Model& m = **loaded;
      auto data = exec::loadTestDataSet(m, folder / "test_data_set_0");
      ASSERT_TRUE(data.ok()) << data.error().toString();
      runOnce(m, info.name);
      auto executor = exec::Executor::create(m);
      ASSERT_TRUE(executor.ok()) << executor.error().toString();
      auto outputs = (*executor)->run(data->inputs);
      ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
      ASSERT_EQ(outputs->size(), data->outputs.size());
      for (size_t k = 0; k < outputs->size(); ++k) {
        exec::Comparison c = exec::compareValues((*outputs)[k], data->outputs[k], ort.tolerance);
        EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
      }
    }
  }
}

}  // namespace
}  // namespace onyx::passes::testing
