// How loading links names: a body's reference to an outer-scope name is a use of the outer Value; a name
// used before its definition still links; a name defined nowhere becomes an undefined value.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "ir/verify.h"
#include "onnx_io_test_support.h"

namespace onyx {
namespace {

using testing::modelFromText;

bool usedBy(const Value* value, const Node* node) {
  return std::any_of(value->uses().begin(), value->uses().end(),
                     [node](const Use& use) { return use.node == node; });
}

Node* onlyNode(const Graph& graph) {
  EXPECT_EQ(graph.nodeCount(), 1u);
  return *graph.nodes().begin();
}

TEST(OnnxScopes, IfBodiesUseOuterValues) {
  auto model = modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
})");
  ASSERT_TRUE(model);
  const Graph& graph = model->graph();
  Value* t = graph.findValue("t");
  Value* x = graph.findValue("x");
  Node* branch = graph.findValue("y")->producer();
  ASSERT_EQ(branch->opType(), "If");
  Graph* thenBody = branch->attribute("then_branch")->getGraph();
  Graph* elseBody = branch->attribute("else_branch")->getGraph();
  EXPECT_EQ(thenBody->parent(), &graph);
  EXPECT_EQ(thenBody->owner(), branch);
  Node* add = onlyNode(*thenBody);
  Node* neg = onlyNode(*elseBody);
  EXPECT_EQ(add->input(0), t);
  EXPECT_EQ(add->input(1), x);
  EXPECT_EQ(neg->input(0), t);
  EXPECT_TRUE(usedBy(t, add));
  EXPECT_TRUE(usedBy(t, neg));
  EXPECT_TRUE(usedBy(x, add));
  EXPECT_EQ(thenBody->findValue("t"), nullptr) << "t belongs to the outer graph";
  EXPECT_EQ(thenBody->resolve("t"), t);
  ASSERT_EQ(thenBody->outputs().size(), 1u);
  EXPECT_EQ(thenBody->outputs()[0], add->output(0));
  EXPECT_TRUE(verify(*model).empty());
}

TEST(OnnxScopes, LoopBodyReadsAValueDefinedLaterInTheFile) {
  // Not topologically sorted: the Loop comes before the node producing `scale`. The link is made anyway and
  // verify() reports only the order.
  auto model = modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, bool go, float[4] v) => (float[4] out) {
  out = Loop(n, go, v) <body = b (int64 i, bool cond, float[4] acc) => (bool keep, float[4] next) {
    keep = Identity(cond)
    next = Mul(acc, scale)
  }>
  scale = Relu(v)
})");
  ASSERT_TRUE(model);
  const Graph& graph = model->graph();
  Value* scale = graph.findValue("scale");
  Node* loop = graph.findValue("out")->producer();
  Graph* body = loop->attribute("body")->getGraph();
  Node* mul = *std::next(body->nodes().begin());
  EXPECT_EQ(mul->input(1), scale);
  EXPECT_TRUE(usedBy(scale, mul));
  EXPECT_EQ(mul->input(0), body->inputs()[2]);
  auto diagnostics = verify(*model);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].severity, Diagnostic::Severity::Warning);
  EXPECT_EQ(diagnostics[0].message, "nodes are not stored in topological order");
}

TEST(OnnxScopes, NamesDefinedNowhereBecomeUndefinedValues) {
  auto model = modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, bool c) => (float[4] y) {
  y = If(c) <then_branch = g1 () => (float[4] z) { z = Add(x, ghost) }, else_branch = g2 () => (float[4] w) { w = Neg(x) }>
})");
  ASSERT_TRUE(model);
  Node* branch = model->graph().findValue("y")->producer();
  Graph* thenBody = branch->attribute("then_branch")->getGraph();
  Value* ghost = onlyNode(*thenBody)->input(1);
  ASSERT_NE(ghost, nullptr);
  EXPECT_EQ(ghost->name(), "ghost");
  EXPECT_TRUE(ghost->isUndefined());
  EXPECT_EQ(ghost->graph(), thenBody);
  auto diagnostics = verify(*model);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].message,
            "input 'ghost' of Add (#1) is not produced by any node, graph input or initializer");
  EXPECT_EQ(diagnostics[0].where, "graph 'g' > body 'g1' of If (#3)");
}

TEST(OnnxScopes, NodeIdsFollowLoadOrder) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y) {
  a = Relu(x)
  b = Neg(a)
  y = Abs(b)
})";
  for (int run = 0; run < 2; ++run) {
    auto model = modelFromText(text);
    ASSERT_TRUE(model);
    std::vector<NodeId> ids;
    for (Node* node : model->graph().nodes()) ids.push_back(node->id());
    EXPECT_EQ(ids, (std::vector<NodeId>{1, 2, 3}));
  }
}

TEST(OnnxScopes, InitializersListedAsInputsStayOneValue) {
  // Before IR 4 every initializer was also a graph input: one value, both an input and a constant.
  onnx::ModelProto proto;
  proto.set_ir_version(3);
  proto.add_opset_import()->set_version(9);
  auto* graph = proto.mutable_graph();
  for (const char* name : {"x", "w"}) {
    auto* input = graph->add_input();
    input->set_name(name);
    input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  auto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_float_data(3.0f);
  w->add_dims(1);
  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("y");
  graph->add_output()->set_name("y");
  auto model = parseModel(proto.SerializeAsString(), {}, "old");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Graph& g = (*model)->graph();
  Value* value = g.findValue("w");
  EXPECT_TRUE(value->isGraphInput());
  EXPECT_TRUE(value->isInitializer());
  EXPECT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.initializers(), std::vector<Value*>{value});
  EXPECT_EQ((*g.nodes().begin())->input(1), value);
  EXPECT_TRUE(verify(**model).empty());
  auto bytes = serializeModel(**model);
  ASSERT_TRUE(bytes.ok());
  onnx::ModelProto saved;
  ASSERT_TRUE(saved.ParseFromString(*bytes));
  EXPECT_EQ(saved.graph().input_size(), 2);
  EXPECT_EQ(saved.graph().initializer_size(), 1);
}

TEST(OnnxText, PrintsWhatItParses) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
})";
  auto model = modelFromText(text);
  ASSERT_TRUE(model);
  std::string printed = printModelText(*model);
  EXPECT_EQ(printed, R"(<
  ir_version: 8,
  opset_import: ["" : 17]
>
agraph (float[N] x, bool c) => (float[N] y) {
t = Relu(x)
y = If<then_branch = g1 () => (float[N] z) {
z = Add(t, x)
}
, else_branch = g2 () => (float[N] w) {
w = Neg(t)
}
>(c)
}
)");
  auto again = parseModelText(printed);
  ASSERT_TRUE(again.ok()) << again.error().toString();
  EXPECT_EQ(printModelText(**again), printed);
}

TEST(OnnxText, SyntaxErrorsAreErrors) {
  auto model = parseModelText("agraph (float[N] x) => (float[N] y) { y = Relu(x ");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message.rfind("cannot parse the ONNX text: ", 0), 0u) << model.error().message;
}

}  // namespace
}  // namespace onyx
