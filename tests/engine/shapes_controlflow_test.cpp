// Shape inference through If, Loop, Scan and model-local functions; shape rules for unknown ops; write-back.
#include <gtest/gtest.h>

#include "ir/rewriter.h"
#include "shapes/shape_inference.h"
#include "shapes/shape_rules.h"
#include "shapes/write_back.h"
#include "shapes_test_support.h"

namespace onyx {
namespace {

using testing::errorsOf;
using testing::inferredNamed;
using testing::parseOrFail;
using testing::shapeNamed;

TEST(ShapeInferenceControlFlow, IfKeepsDimsTheBranchesAgreeOn) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[N, 4] x) => (float y) {
      y = If (c) <
        then_branch = t () => (float[N, 4] a) { a = Relu(x) },
        else_branch = e () => (float[N, 4] b) { b = Sigmoid(x) }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 4]");
  EXPECT_EQ(shapeNamed(result, "a"), "[N, 4]");
}

TEST(ShapeInferenceControlFlow, IfWithDisagreeingBranchesGivesAnUnknownDimNamingTheIf) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[N, 4] x) => (float y) {
      y = If (c) <
        then_branch = t () => (float a) { a = Relu(x) },
        else_branch = e () => (float b) { b = Concat <axis = 1> (x, x) }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* y = inferredNamed(result, "y");
  ASSERT_TRUE(y && y->type.shape());
  EXPECT_EQ((*y->type.shape())[0].toString(), "N");
  const Dim& differing = (*y->type.shape())[1];
  ASSERT_TRUE(differing.isUnknown() && differing.origin());
  EXPECT_EQ(differing.origin()->opType, "If");
  EXPECT_EQ(differing.origin()->reason, "If: the branches disagree: dim 1 is 4 or 8");
}

TEST(ShapeInferenceControlFlow, IfWithAKnownConditionTakesThatBranch) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x) => (float y) {
      c = Constant <value = bool {0}> ()
      y = If (c) <
        then_branch = t () => (float a) { a = Relu(x) },
        else_branch = e () => (float b) { b = Concat <axis = 1> (x, x) }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 8]");
}

TEST(ShapeInferenceControlFlow, AnInconsistentBranchThatNeverRunsOnlyWarns) {
  // The AffineGrid function body (test_affine_grid_3d_expanded): the branch for 2-D sizes squeezes an axis
  // that is 1 only when it runs.
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N, 4] x) => (float y) {
      c = Constant <value = bool {0}> ()
      axis = Constant <value = int64[1] {1}> ()
      y = If (c) <
        then_branch = t () => (float a) { a = Squeeze(x, axis) },
        else_branch = e () => (float b) { b = Relu(x) }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 4]");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, Diagnostic::Severity::Warning);
  EXPECT_EQ(result.diagnostics[0].message.rfind("in then_branch, which never runs: ", 0), 0u) << result.diagnostics[0].message;
}

TEST(ShapeInferenceControlFlow, TheSameInconsistencyInABranchThatMayRunIsAnError) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[N, 4] x) => (float y) {
      axis = Constant <value = int64[1] {1}> ()
      y = If (c) <
        then_branch = t () => (float a) { a = Squeeze(x, axis) },
        else_branch = e () => (float b) { b = Relu(x) }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_NE(errorsOf(result), "");
}

TEST(ShapeInferenceControlFlow, LoopCarryingASequenceMergesItsElementTypes) {
  // test_loop13_seq: the carried sequence is declared with scalar elements and gains 1-D slices.
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (int64 trips, bool keep, float[] start) => (float out) {
      out = Loop (trips, keep, start) <body = b (int64 i, bool c_in, float[] s_in) => (bool c_out, float s_out) {
        c_out = Identity(c_in)
        x = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
        s_out = SequenceInsert(s_in, x)
      }>
    })");
  ASSERT_TRUE(model);
  // onnx 1.12's text syntax has no sequence types: declare them here.
  Rewriter rewriter(*model);
  Value* start = model->graph().inputs()[2];
  rewriter.setType(start, Type::sequence(Type::tensor(DataType::Float, Shape{})));
  Graph* body = start->uses()[0].node->attribute("body")->getGraph();
  rewriter.setType(body->inputs()[2], Type::sequence(Type::tensor(DataType::Float, Shape{})));
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  const InferredValue* out = inferredNamed(result, "out");
  ASSERT_TRUE(out);
  ASSERT_EQ(out->type.kind(), Type::Kind::Sequence);
  EXPECT_TRUE(out->type.element().isTensor());
  EXPECT_FALSE(out->type.element().shape()) << out->type.toString();  // rank 0 or 1: unknown
}

TEST(ShapeInferenceControlFlow, LoopCarriesStateAndStacksScanOutputs) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N] x) => (float final, float scanned) {
      trips = Constant <value = int64 {5}> ()
      keep = Constant <value = bool {1}> ()
      final, scanned = Loop (trips, keep, x) <body = b (int64 i, bool c_in, float[N] v_in) => (bool c_out, float[N] v_out, float[N] s) {
        c_out = Identity(c_in)
        v_out = Add(v_in, v_in)
        s = Identity(v_in)
      }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "final"), "[N]");
  EXPECT_EQ(shapeNamed(result, "scanned"), "[5, N]");
}

TEST(ShapeInferenceControlFlow, LoopWithADataDependentConditionHasAnUnknownTripCount) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N] x, int64 trips, bool keep) => (float final, float scanned) {
      final, scanned = Loop (trips, keep, x) <body = b (int64 i, bool c_in, float[N] v_in) => (bool c_out, float[N] v_out, float[N] s) {
        total = ReduceSum <keepdims = 0> (v_in)
        zero = Constant <value = float {0.0}> ()
        c_out = Greater(total, zero)
        v_out = Identity(v_in)
        s = Identity(v_in)
      }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* scanned = inferredNamed(result, "scanned");
  ASSERT_TRUE(scanned && scanned->type.shape());
  ASSERT_TRUE((*scanned->type.shape())[0].isUnknown());
  EXPECT_EQ((*scanned->type.shape())[0].origin()->reason, "Loop: iteration count depends on the condition computed in the body");
  EXPECT_EQ((*scanned->type.shape())[1].toString(), "N");
}

TEST(ShapeInferenceControlFlow, LoopStateThatGrowsBecomesUnknownAtTheLoop) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float final) {
      trips = Constant <value = int64 {3}> ()
      final = Loop (trips, , x) <body = b (int64 i, bool c_in, float[2] v_in) => (bool c_out, float v_out) {
        c_out = Identity(c_in)
        v_out = Concat <axis = 0> (v_in, v_in)
      }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  const InferredValue* final = inferredNamed(result, "final");
  ASSERT_TRUE(final && final->type.shape());
  ASSERT_TRUE((*final->type.shape())[0].isUnknown());
  EXPECT_EQ((*final->type.shape())[0].origin()->opType, "Loop");
}

TEST(ShapeInferenceControlFlow, ScanStacksAlongTheSequence) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[D] init, float[T, D] xs) => (float total, float ys) {
      total, ys = Scan (init, xs) <num_scan_inputs = 1, body = b (float[D] acc, float[D] row) => (float[D] acc_out, float[D] y) {
        acc_out = Add(acc, row)
        y = Identity(acc_out)
      }>
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "total"), "[D]");
  EXPECT_EQ(shapeNamed(result, "ys"), "[T, D]");
}

TEST(ShapeInferenceControlFlow, FunctionsAreInferredThroughTheirBodiesWithTheCallsAttributes) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[N, 2, 3, 4] x) => (float y, float z) {
      y = local.FlattenAt <k = 2> (x)
      z = local.FlattenAt <k = 1> (x)
    }
    <domain: "local", opset_import: ["" : 17]>
    FlattenAt <k> (a) => (b) {
      r = Relu(a)
      b = Flatten <axis: int = @k> (r)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  EXPECT_EQ(errorsOf(result), "");
  EXPECT_EQ(shapeNamed(result, "y"), "[2*N, 12]");
  EXPECT_EQ(shapeNamed(result, "z"), "[N, 24]");
}

TEST(ShapeRules, RulesLetInferenceContinuePastUnknownOps) {
  auto rules = ShapeRules::parse(R"(
    # a custom op
    custom::Pair: out0 = in0; out1 = [in0[0], in0[-1] * 2, 4] : int64
  )");
  ASSERT_TRUE(rules) << rules.error().toString();
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17, "custom" : 1]>
    g (float[N, 3] x) => (float y, int64 z) {
      a, b = custom.Pair(x)
      y = Relu(a)
      z = Identity(b)
    })");
  ASSERT_TRUE(model);
  ShapeInferenceOptions options;
  options.rules = &*rules;
  auto result = inferShapes(*model, options);
  EXPECT_EQ(shapeNamed(result, "y"), "[N, 3]");
  EXPECT_EQ(shapeNamed(result, "z"), "[N, 6, 4]");
  EXPECT_EQ(inferredNamed(result, "z")->type.elemType(), DataType::Int64);
}

TEST(ShapeRules, SyntaxErrorsNameTheLine) {
  auto rules = ShapeRules::parse("custom::Ok: out0 = in0\ncustom::Bad: out0 = [in0[0] +]\n", "my.rules");
  ASSERT_FALSE(rules);
  EXPECT_EQ(rules.error().where, "my.rules:2");
  auto noDomain = ShapeRules::parse("Relu out0 = in0", "r");
  ASSERT_FALSE(noDomain);
  EXPECT_EQ(noDomain.error().where, "r:1");
}

TEST(ShapeWriteBack, ExpressionsBecomeDimParamsThatReadBackAsExpressions) {
  auto model = parseOrFail(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[M, 4] a, float[N, 4] b) => (float y) {
      c = Concat <axis = 0> (a, b)
      y = Relu(c)
    })");
  ASSERT_TRUE(model);
  auto result = inferShapes(*model);
  auto log = writeBack(*model, result);
  ASSERT_TRUE(log);
  const Value* c = model->graph().findValue("c");
  ASSERT_TRUE(c && c->type().shape());
  EXPECT_TRUE(c->hasValueInfo());
  EXPECT_EQ((*c->type().shape())[0].expr().symbolName(), "M + N");
  log->undo();
  EXPECT_FALSE(c->hasValueInfo());
}

}  // namespace
}  // namespace onyx
