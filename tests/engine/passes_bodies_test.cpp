// Every pattern pass family inside an If branch, a Loop body and a model-local function: the same pattern
// text is placed in each scope (its constants as outer initializers in the If and Loop cases, which the body
// reads across the scope boundary, and as Constant nodes in the function, which has no initializers), the
// pass fires there (in a function with the shapes its calls agree on), the rewritten model
// prints as expected, computes the same outputs, and a second run changes nothing.
#include <regex>

#include "passes_fusion_support.h"

namespace onyx::passes::fusion_testing {
namespace {

enum class Where { IfBranch, LoopBody, Function };

const char* whereName(Where where) {
  return where == Where::IfBranch ? "If branch" : where == Where::LoopBody ? "Loop body" : "function";
}

struct Constant {
  std::string type;   // "float[2]"
  std::string name;   // "w"
  std::string value;  // "{1, 2}"
};

struct Family {
  std::string pass;
  std::string counter;
  int opset = 17;
  std::string type;  // of the input and of the pattern's result
  std::vector<int64_t> dims;
  std::vector<Constant> constants;
  std::string before;  // nodes reading $x and defining $r
  std::string after;   // the nodes after the pass; empty: compare only the op types of `afterOps`
  std::string afterOps;
};

std::string substitute(std::string text, const std::string& x) {
  text = std::regex_replace(text, std::regex("\\$x"), x);
  return std::regex_replace(text, std::regex("\\$r"), "r");
}

// The model with `nodes` in the chosen scope.
std::string modelText(const Family& f, Where where, const std::string& nodes) {
  std::string opsets = "\"\" : " + std::to_string(f.opset);
  std::string initializers;
  for (const Constant& c : f.constants)
    initializers += (initializers.empty() ? "" : ", ") + c.type + " " + c.name + " = " + c.value;
  std::string header = "<ir_version: 8, opset_import: [" + opsets +
                       (where == Where::Function ? ", \"local\" : 1" : "") + "]>\n";
  std::string signature = "g (" + f.type + " x) => (" + f.type + " y)";
  if (where == Where::IfBranch)
    return header + signature + (initializers.empty() ? "" : " <" + initializers + ">") +
           " {\n  c = Constant <value = bool {1}> ()\n  y = If (c) <then_branch = then_body () => (" +
           f.type + " r) {\n" + substitute(nodes, "x") + "\n  }, else_branch = else_body () => (" + f.type +
           " e) { e = Neg(x) }>\n}";
  if (where == Where::LoopBody)
    return header + signature + (initializers.empty() ? "" : " <" + initializers + ">") +
           " {\n  n = Constant <value = int64 {2}> ()\n  go = Constant <value = bool {1}> ()\n"
           "  y = Loop (n, go, x) <body = loop_body (int64 i, bool cond, " +
           f.type + " acc) => (bool keep, " + f.type + " r) {\n  keep = Identity(cond)\n" +
           substitute(nodes, "acc") + "\n  }>\n}";
  std::string constants;
  for (const Constant& c : f.constants)
    constants += "  " + c.name + " = Constant <value = " + c.type + " " + c.value + "> ()\n";
  return header + signature + " {\n  y = local.Pattern (x)\n}\n<domain: \"local\", opset_import: [" + opsets +
         "]>\nPattern (fin) => (r) {\n" + constants + substitute(nodes, "fin") + "\n}";
}

const Graph& patternGraph(const Model& model, Where where) {
  if (where == Where::Function) return *model.functions.front()->body;
  const Node* owner = model.graph().findValue("y")->producer();
  return *owner->subgraphs().front();
}

std::string opsOf(const Graph& graph) {
  std::string ops;
  for (const Node* node : graph.nodes())
    if (node->opType() != "Constant" && node->opType() != "Identity") ops += node->opType() + " ";
  return ops;
}

void expectFamilyIn(const Family& f, Where where) {
  SCOPED_TRACE(f.pass + " in a " + whereName(where));
  std::string text = modelText(f, where, f.before);
  auto before = parse(text);
  auto model = parse(text);
  ASSERT_TRUE(model && before) << text;
  PassResult result = runPass(*model, f.pass);
  ASSERT_EQ(result.error, "");
  EXPECT_TRUE(result.changed) << result.reasons();
  EXPECT_EQ(result.counter(f.counter), 1) << result.reasons();
  if (!f.after.empty()) {
    auto expected = parse(modelText(f, where, f.after));
    ASSERT_TRUE(expected);
    EXPECT_EQ(printModelText(*model), printModelText(*expected));
  } else {
    EXPECT_EQ(opsOf(patternGraph(*model, where)), f.afterOps);
  }
  expectSameOutputs(*before, *model, {{"x", seeded(f.dims, 7)}});
  std::string once = printModelText(*model);
  EXPECT_FALSE(runPass(*model, f.pass).changed);
  EXPECT_EQ(printModelText(*model), once);
}

void expectFamily(const Family& f) {
  for (Where where : {Where::IfBranch, Where::LoopBody, Where::Function}) expectFamilyIn(f, where);
}

const Constant kConvWeights{"float[2, 2, 1, 1]", "w", "{1, 2, 3, 4}"};

TEST(PatternsInBodies, TransposeCancellation) {
  expectFamily(
      {.pass = "transpose-cancellation",
       .counter = "transpose-pairs-removed",
       .type = "float[2, 3]",
       .dims = {2, 3},
       .before = "t1 = Transpose <perm = [1, 0]> ($x)\n t2 = Transpose <perm = [1, 0]> (t1)\n $r = Relu(t2)",
       .after = "$r = Relu($x)"});
}

TEST(PatternsInBodies, SqueezeUnsqueezeCancellation) {
  expectFamily({.pass = "squeeze-unsqueeze-cancellation",
                .counter = "squeeze-unsqueeze-pairs-removed",
                .type = "float[2, 3]",
                .dims = {2, 3},
                .constants = {{"int64[1]", "zero", "{0}"}},
                .before = "u = Unsqueeze($x, zero)\n s = Squeeze(u, zero)\n $r = Relu(s)",
                .after = "$r = Relu($x)"});
}

TEST(PatternsInBodies, ReshapeChainFusion) {
  expectFamily({.pass = "reshape-chain-fusion",
                .counter = "reshapes-merged",
                .type = "float[2, 3]",
                .dims = {2, 3},
                .constants = {{"int64[2]", "s32", "{3, 2}"}, {"int64[2]", "s23", "{2, 3}"}},
                .before = "a = Reshape($x, s32)\n b = Reshape(a, s23)\n $r = Relu(b)",
                .after = "b = Reshape($x, s23)\n $r = Relu(b)"});
}

TEST(PatternsInBodies, IdentityElimination) {
  expectFamily({.pass = "identity-elimination",
                .counter = "identities-removed",
                .type = "float[2, 3]",
                .dims = {2, 3},
                .before = "a = Identity($x)\n $r = Relu(a)",
                .after = "$r = Relu($x)"});
}

TEST(PatternsInBodies, BroadcastReductionElimination) {
  expectFamily({.pass = "broadcast-reduction-elimination",
                .counter = "reductions-removed",
                .type = "float[2, 1, 3]",
                .dims = {2, 1, 3},
                .constants = {{"int64[1]", "one", "{1}"}},
                .before = "a = ReduceSum <keepdims = 1> ($x, one)\n $r = Relu(a)",
                .after = "$r = Relu($x)"});
}

TEST(PatternsInBodies, MatMulAddToGemm) {
  expectFamily(
      {.pass = "matmul-add-to-gemm",
       .counter = "matmul-adds-to-gemm",
       .type = "float[2, 3]",
       .dims = {2, 3},
       .constants = {{"float[3, 3]", "w", "{1, 0, 2, 0, 1, 0, 3, 0, 1}"}, {"float[3]", "b", "{1, 2, 3}"}},
       .before = "m = MatMul($x, w)\n $r = Add(m, b)",
       .after = "$r = Gemm($x, w, b)"});
}

TEST(PatternsInBodies, ConvBnFusion) {
  expectFamily({.pass = "conv-bn-fusion",
                .counter = "batchnorms-folded",
                .type = "float[1, 2, 2, 2]",
                .dims = {1, 2, 2, 2},
                .constants = {kConvWeights,
                              {"float[2]", "sc", "{2, 3}"},
                              {"float[2]", "bi", "{1, -1}"},
                              {"float[2]", "mu", "{0.5, 0.25}"},
                              {"float[2]", "va", "{4, 9}"}},
                .before = "cv = Conv($x, w)\n $r = BatchNormalization(cv, sc, bi, mu, va)",
                .afterOps = "Conv "});
}

TEST(PatternsInBodies, ConvAddFusion) {
  expectFamily({.pass = "conv-add-fusion",
                .counter = "adds-folded-into-conv-bias",
                .type = "float[1, 2, 2, 2]",
                .dims = {1, 2, 2, 2},
                .constants = {kConvWeights, {"float[1, 2, 1, 1]", "k", "{5, 7}"}},
                .before = "cv = Conv($x, w)\n $r = Add(cv, k)",
                .afterOps = "Conv "});
}

TEST(PatternsInBodies, ConvMulFusion) {
  expectFamily(
      {.pass = "conv-mul-fusion",
       .counter = "muls-folded-into-conv",
       .type = "float[1, 2, 2, 2]",
       .dims = {1, 2, 2, 2},
       .constants = {kConvWeights, {"float[2]", "bb", "{1, 2}"}, {"float[1, 2, 1, 1]", "k", "{0.5, 3}"}},
       .before = "cv = Conv($x, w, bb)\n $r = Mul(cv, k)",
       .afterOps = "Conv "});
}

TEST(PatternsInBodies, GeluFusion) {
  expectFamily(
      {.pass = "gelu-fusion",
       .counter = "erf-gelus-fused",
       .opset = 20,
       .type = "float[2, 3]",
       .dims = {2, 3},
       .constants = {{"float", "sq2", "{1.4142135}"}, {"float", "one", "{1}"}, {"float", "half", "{0.5}"}},
       .before = "d = Div($x, sq2)\n e = Erf(d)\n p = Add(e, one)\n m = Mul($x, p)\n $r = Mul(m, half)",
       .after = "$r = Gelu($x)"});
}

TEST(PatternsInBodies, LayerNormFusion) {
  expectFamily({.pass = "layer-norm-fusion",
                .counter = "layer-norms-fused",
                .type = "float[2, 3]",
                .dims = {2, 3},
                .constants = {{"float", "two", "{2}"},
                              {"float", "eps", "{0.001}"},
                              {"float[3]", "gamma", "{1, 2, 3}"},
                              {"float[3]", "beta", "{0, 1, 0}"}},
                .before = "mu = ReduceMean <axes = [-1]> ($x)\n d = Sub($x, mu)\n sq = Pow(d, two)\n"
                          " var = ReduceMean <axes = [-1]> (sq)\n ve = Add(var, eps)\n sd = Sqrt(ve)\n"
                          " n = Div(d, sd)\n g = Mul(n, gamma)\n $r = Add(g, beta)",
                .after = "$r = LayerNormalization <axis = 1, epsilon = 0.001> ($x, gamma, beta)"});
}

// A function called with ranks that disagree keeps no rank for its body: a rewrite valid for one caller only
// is not made, and the skip says why.
TEST(PatternsInBodies, FunctionCallsThatDisagreeKeepTheBodyUnrewritten) {
  auto model = parse(
      "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
      "g (float[2, 3] x, float[1, 2, 3] z) => (float[2, 3] y, float[1, 2, 3] y2) {\n"
      "  y = local.Pattern (x)\n  y2 = local.Pattern (z)\n}\n"
      "<domain: \"local\", opset_import: [\"\" : 17]>\nPattern (fin) => (r) {\n"
      "  w = Constant <value = float[3, 3] {1, 0, 2, 0, 1, 0, 3, 0, 1}> ()\n"
      "  b = Constant <value = float[3] {1, 2, 3}> ()\n  m = MatMul(fin, w)\n  r = Add(m, b)\n}");
  ASSERT_TRUE(model);
  PassResult result = runPass(*model, "matmul-add-to-gemm");
  ASSERT_EQ(result.error, "");
  EXPECT_FALSE(result.changed);
  EXPECT_NE(result.reasons().find("rank of a MatMul input or of the bias unknown"), std::string::npos)
      << result.reasons();
}

}  // namespace
}  // namespace onyx::passes::fusion_testing
