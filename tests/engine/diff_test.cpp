// The graph diff: small textual models with known edits, compared line by line.
#include <gtest/gtest.h>

#include "diff/diff_format.h"
#include "diff/graph_diff.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx::diff {
namespace {

std::unique_ptr<Model> parse(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return model.ok() ? std::move(*model) : std::make_unique<Model>();
}

std::vector<std::string> lines(const ModelDiff& diff) {
  std::vector<std::string> result;
  for (const Change& change : diff.changes) result.push_back(formatChange(change));
  return result;
}

using Lines = std::vector<std::string>;

Node* nodeWithOutput(Model& model, const std::string& output) {
  Value* value = model.graph().findValue(output);
  return value ? value->producer() : nullptr;
}

// Five unnamed nodes (#1 Relu .. #5 Transpose) and two initializers.
const char* kChain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, int64[2] s = {1, 4}> {
  a = Relu(x)
  b = Sigmoid(a)
  c = Mul(b, w)
  d = Add(a, c)
  y = Transpose <perm = [0, 1]> (d)
}
)";

TEST(Diff, AModelAgainstItselfHasNoChanges) {
  auto model = parse(kChain);
  for (MatchBy by : {MatchBy::Structure, MatchBy::NodeIds}) {
    ModelDiff diff = diffModels(*model, *model, by);
    EXPECT_TRUE(diff.empty()) << formatDiffText(diff);
    EXPECT_EQ(formatSummary(diff.summary), "0 added, 0 removed, 0 changed nodes");
    EXPECT_EQ(diff.beforeToAfter.size(), 5u);
  }
}

TEST(Diff, TwoParsesOfTheSameTextHaveNoChanges) {
  auto a = parse(kChain);
  auto b = parse(kChain);
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_TRUE(diff.empty()) << formatDiffText(diff);
}

TEST(ModelCopy, KeepsIdsAndContentAndIsIndependent) {
  auto model = parse(kChain);
  auto copy = Rewriter::copyModel(*model);
  EXPECT_EQ(printModelText(*copy), printModelText(*model));
  std::vector<NodeId> idsA, idsB;
  for (const Node* node : model->graph().nodes()) idsA.push_back(node->id());
  for (const Node* node : copy->graph().nodes()) idsB.push_back(node->id());
  EXPECT_EQ(idsA, idsB);
  for (NodeId id : idsB) EXPECT_NE(copy->graph().findNode(id), nullptr);
  EXPECT_TRUE(diffModels(*model, *copy, MatchBy::NodeIds).empty());
  // New nodes of the copy get fresh ids.
  Rewriter rw(*copy);
  Node* extra = rw.addNode(
      copy->graph(), {.opType = "Neg", .inputs = {copy->graph().findValue("x")}, .outputNames = {"neg"}});
  EXPECT_GT(extra->id(), idsA.back());
  EXPECT_EQ(model->graph().nodeCount(), 5u);
  EXPECT_EQ(model->graph().findValue("neg"), nullptr);
}

TEST(ModelCopy, CopiesBodiesWithTheirOuterUses) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[N] x) => (float[N] y) {
  y = If (c) <then_branch = t () => (float[N] ty) { n = Neg(x)
    ty = Abs(n) }, else_branch = e () => (float[N] ey) { ey = Relu(x) }>
}
)");
  auto copy = Rewriter::copyModel(*model);
  EXPECT_EQ(printModelText(*copy), printModelText(*model));
  Value* x = copy->graph().findValue("x");
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->uses().size(), 2u);  // Neg in then_branch, Relu in else_branch
  EXPECT_NE(x->uses()[0].node->graph(), &copy->graph());
  EXPECT_EQ(x->uses()[0].node->graph()->parent(), &copy->graph());
  EXPECT_TRUE(diffModels(*model, *copy, MatchBy::NodeIds).empty());
}

TEST(Diff, SharedModelAgainstACopyWithOneNodeRemoved) {
  auto model = parse(kChain);
  auto copy = Rewriter::copyModel(*model);
  Rewriter rw(*copy);
  Node* sigmoid = nodeWithOutput(*copy, "b");
  rw.replaceAllUsesWith(sigmoid->output(0), copy->graph().findValue("a"));
  rw.removeNode(sigmoid);
  Lines expected = {"- node Sigmoid (#2)", "~ node Mul (#3): input 0 'b' -> 'a'"};
  for (MatchBy by : {MatchBy::NodeIds, MatchBy::Structure}) {
    ModelDiff diff = diffModels(*model, *copy, by);
    EXPECT_EQ(lines(diff), expected);
    EXPECT_EQ(formatSummary(diff.summary), "0 added, 1 removed, 1 changed nodes");
    EXPECT_EQ(diff.statusBefore(2), NodeStatus::Removed);
    EXPECT_EQ(diff.statusBefore(3), NodeStatus::Changed);
    EXPECT_EQ(diff.statusAfter(3), NodeStatus::Changed);
    EXPECT_EQ(diff.statusAfter(4), NodeStatus::Unchanged);
    EXPECT_EQ(diff.beforeToAfter.at(5), 5u);
  }
}

TEST(Diff, RewiredInputAndAddedNodeByLineage) {
  auto model = parse(kChain);
  auto copy = Rewriter::copyModel(*model);
  Rewriter rw(*copy);
  Graph& g = copy->graph();
  Node* neg = rw.addNode(g, {.opType = "Neg", .inputs = {g.findValue("x")}, .outputNames = {"n"}},
                         nodeWithOutput(*copy, "d"));
  rw.setInput(nodeWithOutput(*copy, "d"), 0, neg->output(0));
  ModelDiff diff = diffModels(*model, *copy, MatchBy::NodeIds);
  EXPECT_EQ(lines(diff), (Lines{"+ node Neg (#6)", "~ node Add (#4): input 0 'a' -> 'n'"}));
  EXPECT_EQ(diff.statusAfter(6), NodeStatus::Added);
  EXPECT_EQ(formatSummary(diff.summary), "1 added, 0 removed, 1 changed nodes");
}

// Unrelated files: B is A without the Sigmoid, written by hand, so its nodes have other ids and no names.
TEST(Diff, UnnamedNodesMatchByStructureAcrossARemoval) {
  auto a = parse(kChain);
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, int64[2] s = {1, 4}> {
  a = Relu(x)
  c = Mul(a, w)
  d = Add(a, c)
  y = Transpose <perm = [0, 1]> (d)
}
)");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_EQ(lines(diff), (Lines{"- node Sigmoid (#2)", "~ node Mul (#2): input 0 'b' -> 'a'"}));
  EXPECT_EQ(diff.beforeToAfter.at(4), 3u);  // Add
  EXPECT_EQ(diff.beforeToAfter.at(5), 4u);  // Transpose
}

// The Mul sits between a removed Identity and a Relu replaced by a LeakyRelu: neither its inputs nor its
// uses label it the same on both sides, but it reads the same weight at the same input.
TEST(Diff, NodesBetweenChangesMatchByTheirMatchedNeighbours) {
  auto a = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, float[4] b = {0.5, 0.5, 0.5, 0.5}> {
  i = Identity(x)
  m = Mul(i, w)
  a = Add(m, b)
  r = Relu(a)
  y = Transpose <perm = [0, 1]> (r)
}
)");
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, float[4] b = {0.5, 0.5, 0.5, 0.5}> {
  m = Mul(x, w)
  a = Add(m, b)
  r = LeakyRelu <alpha = 0.1> (a)
  y = Transpose <perm = [0, 1]> (r)
}
)");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_EQ(lines(diff), (Lines{
                             "- node Identity (#1)",
                             "- node Relu (#4)",
                             "+ node LeakyRelu (#3)",
                             "~ node Mul (#1): input 0 'i' -> 'x'",
                             "~ node Transpose (#4): input 0 'r' from Relu (#4) -> LeakyRelu (#3)",
                         }))
      << formatDiffText(diff);
  EXPECT_EQ(diff.beforeToAfter.at(3), 2u);  // the Adds
}

TEST(Diff, RenamedNodesAndValuesMatchStructurally) {
  auto a = parse(kChain);
  // The same graph with other value names, its independent nodes in another order, and named nodes.
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] out) <float[4] w = {1.0, 2.0, 3.0, 4.0}, int64[2] s = {1, 4}> {
  r = Relu(x)
  sg = Sigmoid(r)
  m = Mul(sg, w)
  sum = Add(r, m)
  out = Transpose <perm = [0, 1]> (sum)
}
)");
  Rewriter rw(*b);
  for (Node* node : b->graph().nodes()) rw.renameNode(node, "/block/" + node->opType());
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_EQ(diff.summary.nodesAdded, 0u);
  EXPECT_EQ(diff.summary.nodesRemoved, 0u);
  EXPECT_EQ(diff.summary.nodesChanged, 5u);  // each renamed
  EXPECT_EQ(diff.summary.valuesRenamed, 5u);
  EXPECT_EQ(formatSummary(diff.summary), "0 added, 0 removed, 5 changed nodes; 5 values renamed");
  Lines text = lines(diff);
  ASSERT_EQ(text.size(), 10u);
  EXPECT_EQ(text[0], "~ node Relu '/block/Relu' (#1): name <none> -> '/block/Relu'");
  EXPECT_EQ(text[1], "~ value 'a': renamed to 'r'");
  EXPECT_EQ(text[9], "~ value 'y': renamed to 'out'");
}

TEST(Diff, NamedNodeWithAnotherOpIsAnOpChange) {
  auto a = parse(kChain);
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, int64[2] s = {1, 4}> {
  a = Relu(x)
  b = HardSigmoid(a)
  c = Mul(b, w)
  d = Add(a, c)
  y = Transpose <perm = [0, 1]> (d)
}
)");
  Rewriter(*a).renameNode(nodeWithOutput(*a, "b"), "gate");
  Rewriter(*b).renameNode(nodeWithOutput(*b, "b"), "gate");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_EQ(lines(diff), (Lines{"~ node HardSigmoid 'gate' (#2): op Sigmoid -> HardSigmoid"}));
}

TEST(Diff, AttributesAddedRemovedAndChanged) {
  auto a = parse(kChain);
  auto b = Rewriter::copyModel(*a);
  Rewriter rw(*b);
  Node* transpose = nodeWithOutput(*b, "y");
  rw.setAttribute(transpose, Attribute::ofInts("perm", {1, 0}));
  Node* relu = nodeWithOutput(*b, "a");
  rw.setAttribute(relu, Attribute::ofFloat("alpha", 0.5f));
  Node* mul = nodeWithOutput(*b, "c");
  rw.setAttribute(mul, Attribute::ofString("note", "scaled"));
  Rewriter(*a).setAttribute(nodeWithOutput(*a, "c"), Attribute::ofInt("legacy", 1));
  Rewriter(*a).setAttribute(nodeWithOutput(*a, "c"), Attribute::ofString("note", "plain"));
  Lines expected = {
      "~ node Relu (#1): attribute alpha added: 0.5",
      "~ node Mul (#3): attribute legacy removed (was 1)",
      "~ node Mul (#3): attribute note \"plain\" -> \"scaled\"",
      "~ node Transpose (#5): attribute perm [0, 1] -> [1, 0]",
  };
  EXPECT_EQ(lines(diffModels(*a, *b, MatchBy::NodeIds)), expected);
  // Unnamed nodes with another attribute value still match by their matched neighbours.
  EXPECT_EQ(lines(diffModels(*a, *b, MatchBy::Structure)), expected);
}

TEST(Diff, TensorAttributesDifferByContent) {
  auto a = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) {
  k = Constant <value = float[2] {1.0, 2.0}> ()
  y = Add(x, k)
}
)");
  auto b = Rewriter::copyModel(*a);
  Rewriter(*b).setAttribute(
      nodeWithOutput(*b, "k"),
      Attribute::ofTensor("value", Tensor::fromValues<float>(DataType::Float, {2}, {1, 3})));
  Lines text = lines(diffModels(*a, *b, MatchBy::NodeIds));
  ASSERT_EQ(text.size(), 1u);
  EXPECT_EQ(text[0].rfind("~ node Constant (#1): attribute value <tensor float32[2]> #", 0), 0u) << text[0];
  EXPECT_NE(text[0].find(" -> <tensor float32[2]> #"), std::string::npos) << text[0];
}

TEST(Diff, GraphInputsOutputsAndValueTypes) {
  auto a = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x, float[4] bias) => (float[N, 4] y, float[N, 4] r) {
  r = Relu(x)
  y = Add(r, bias)
}
)");
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[M, 4] x, float[4] bias, float[4] scale) => (float[M, 4] y) {
  r = Relu(x)
  t = Add(r, bias)
  y = Mul(t, scale)
}
)");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  EXPECT_EQ(lines(diff), (Lines{
                             "~ value 'x': type float32[N, 4] -> float32[M, 4]",
                             "+ graph input 'scale': float32[4]",
                             "~ graph output 'y': from Add (#2) -> Mul (#3)",
                             "- graph output 'r': float32[N, 4]",
                             "+ node Mul (#3)",
                             "~ value 'r': type float32[N, 4] -> ?",
                             "~ value 'y': renamed to 't'",
                             "~ value 't': type float32[N, 4] -> ?",
                         }))
      << formatDiffText(diff);
}

TEST(Diff, InitializersByNameThenByContent) {
  auto a = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}, float[2] v = {5.0, 6.0}, float[2] u = {7.0, 8.0}, float[2] old = {0.0, 0.0}> {
  p = Add(x, w)
  q = Add(p, v)
  r = Add(q, u)
  y = Add(r, old)
}
)");
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) <float[2] w = {1.0, 3.0}, double[2] v = {5.0, 6.0}, float[2] u2 = {7.0, 8.0}, float[3] fresh = {0.0, 0.0, 0.0}> {
  p = Add(x, w)
  q = Add(p, v)
  r = Add(q, u2)
  y = Add(r, fresh)
}
)");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  Lines text = lines(diff);
  ASSERT_EQ(text.size(), 6u) << formatDiffText(diff);
  EXPECT_EQ(text[0].rfind("~ initializer 'w': content float32[2] #", 0), 0u) << text[0];
  EXPECT_EQ(text[1].rfind("~ initializer 'v': element type float32[2] #", 0), 0u) << text[1];
  EXPECT_EQ(text[1].find(" -> float64[2] #"), text[1].find(" -> ")) << text[1];
  EXPECT_EQ(text[2], "~ value 'u': renamed to 'u2'");
  EXPECT_EQ(text[3].rfind("- initializer 'old': float32[2] #", 0), 0u) << text[3];
  EXPECT_EQ(text[4].rfind("+ initializer 'fresh': float32[3] #", 0), 0u) << text[4];
  EXPECT_EQ(text[5], "~ node Add (#4): input 1 'old' -> 'fresh'");
  EXPECT_EQ(formatSummary(diff.summary),
            "0 added, 0 removed, 1 changed nodes; 1 initializer added; 1 initializer removed; "
            "2 initializers changed; 1 value renamed");
}

TEST(Diff, BodiesAreDiffedRecursively) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[N] x) => (float[N] y) {
  y = If (c) <then_branch = t () => (float[N] ty) { n = Neg(x)
    ty = Abs(n) }, else_branch = e () => (float[N] ey) { ey = Relu(x) }>
}
)";
  auto a = parse(text);
  auto b = Rewriter::copyModel(*a);
  Node* ifNode = *b->graph().nodes().begin();
  Graph* thenBody = ifNode->attribute("then_branch")->getGraph();
  Rewriter rw(*b);
  Node* abs = thenBody->findValue("ty")->producer();
  rw.setInput(abs, 0, b->graph().findValue("x"));
  rw.removeNode(thenBody->findValue("n")->producer());
  ModelDiff diff = diffModels(*a, *b, MatchBy::NodeIds);
  std::string where = " in " + ifNode->describe() + " then_branch";
  Lines expected = {"- node Neg (#" + std::to_string(abs->id() - 1) + ")" + where,
                    "~ node Abs (#" + std::to_string(abs->id()) + ")" + where + ": input 0 'n' -> 'x'"};
  EXPECT_EQ(lines(diff), expected);
  // The same from two separately parsed files.
  auto c = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[N] x) => (float[N] y) {
  y = If (c) <then_branch = t () => (float[N] ty) { ty = Abs(x) }, else_branch = e () => (float[N] ey) { ey = Relu(x) }>
}
)");
  ModelDiff structural = diffModels(*a, *c, MatchBy::Structure);
  EXPECT_EQ(structural.summary.nodesRemoved, 1u);
  EXPECT_EQ(structural.summary.nodesChanged, 1u);
  EXPECT_EQ(structural.summary.nodesAdded, 0u);
}

TEST(Diff, FunctionsAddedRemovedAndChanged) {
  auto a = parse(R"(
<ir_version: 8, opset_import: ["" : 17, "acme" : 1]>
g (float[2] x) => (float[2] y) {
  t = acme.Twice(x)
  y = acme.Old(t)
}
<domain: "acme", opset_import: ["" : 17]>
Twice (x) => (y) {
  y = Add(x, x)
}
<domain: "acme", opset_import: ["" : 17]>
Old (x) => (y) {
  y = Relu(x)
}
)");
  auto b = parse(R"(
<ir_version: 8, opset_import: ["" : 18, "acme" : 1]>
g (float[2] x) => (float[2] y) {
  t = acme.Twice(x)
  y = acme.New(t)
}
<domain: "acme", opset_import: ["" : 17]>
Twice (x) => (y) {
  y = Mul(x, x)
}
<domain: "acme", opset_import: ["" : 17]>
New (x) => (y) {
  y = Relu(x)
}
)");
  ModelDiff diff = diffModels(*a, *b, MatchBy::Structure);
  // Unnamed nodes of different ops are different nodes; the output named y now comes from another node.
  // Function bodies load first: their nodes are #1 and #2, the main graph's #3 and #4.
  EXPECT_EQ(lines(diff), (Lines{
                             "~ opset ai.onnx: version 17 -> 18",
                             "~ graph output 'y': from acme::Old (#4) -> acme::New (#4)",
                             "- node acme::Old (#4)",
                             "+ node acme::New (#4)",
                             "- function acme.Old",
                             "~ graph output 'y' in function acme.Twice: from Add (#1) -> Mul (#1)",
                             "- node Add (#1) in function acme.Twice",
                             "+ node Mul (#1) in function acme.Twice",
                             "+ function acme.New",
                         }))
      << formatDiffText(diff);
  EXPECT_EQ(
      formatSummary(diff.summary),
      "2 added, 2 removed, 0 changed nodes; 2 graph outputs changed; 1 function added; 1 function removed; "
      "1 function changed; 1 opset import changed");
}

TEST(Diff, OutputIsDeterministicAndJsonNamesEveryChange) {
  auto a = parse(kChain);
  auto b = Rewriter::copyModel(*a);
  Rewriter rw(*b);
  rw.setAttribute(nodeWithOutput(*b, "y"), Attribute::ofInts("perm", {1, 0}));
  rw.renameValue(b->graph().findValue("c"), "scaled");
  std::string first = formatDiffText(diffModels(*a, *b, MatchBy::Structure));
  EXPECT_EQ(formatDiffText(diffModels(*a, *b, MatchBy::Structure)), first);
  EXPECT_EQ(first,
            "0 added, 0 removed, 1 changed nodes; 1 value renamed\n"
            "~ value 'c': renamed to 'scaled'\n"
            "~ node Transpose (#5): attribute perm [0, 1] -> [1, 0]\n");
  std::string json = formatDiffJson(diffModels(*a, *b, MatchBy::Structure));
  EXPECT_NE(json.find("\"nodes_changed\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"attribute-changed\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"before\": \"[0, 1]\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"after_node\": 5"), std::string::npos) << json;
}

}  // namespace
}  // namespace onyx::diff
