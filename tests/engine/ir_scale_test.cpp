// What keeps edits of large graphs linear (issue #25): the node-name and body-holder indexes the rewriter
// keeps in each Graph, batched value removal with its undo, and the nesting check (ir/nesting.h).
#include <gtest/gtest.h>

#include "ir/nesting.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx {
namespace {

Type row() { return Type::tensor(DataType::Float, Shape{4}); }

TEST(GraphIndexes, NodeNamesFollowAddRemoveRenameAndUndo) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", row());
  Node* a = rw.addNode(g, {.opType = "Relu", .name = "same", .inputs = {x}, .outputNames = {"a"}});
  Node* b = rw.addNode(g, {.opType = "Neg", .name = "same", .inputs = {a->output(0)}, .outputNames = {"b"}});
  rw.setGraphOutputs(g, {b->output(0)});
  EXPECT_TRUE(g.hasNodeNamed("same"));
  {
    Transaction edit(model, "rename");
    rw.renameNode(a, "first");
    EXPECT_TRUE(g.hasNodeNamed("same"));  // b still has it
    EXPECT_TRUE(g.hasNodeNamed("first"));
    rw.renameNode(b, "second");
    EXPECT_FALSE(g.hasNodeNamed("same"));
    edit.revert();
  }
  EXPECT_TRUE(g.hasNodeNamed("same"));
  EXPECT_FALSE(g.hasNodeNamed("first"));
  EXPECT_FALSE(g.hasNodeNamed("second"));
  rw.setGraphOutputs(g, {a->output(0)});
  rw.removeNode(b);
  EXPECT_TRUE(g.hasNodeNamed("same"));
  EXPECT_TRUE(g.bodyHolders().empty());
}

TEST(GraphIndexes, BodyHoldersFollowGraphAttributes) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* c = rw.addGraphInput(g, "c", Type::tensor(DataType::Bool, Shape{}));
  auto body = std::make_shared<Graph>(&model);
  Node* inner = rw.addNode(*body, {.opType = "Identity", .name = "i", .inputs = {c}, .outputNames = {"o"}});
  rw.setGraphOutputs(*body, {inner->output(0)});
  Node* node = rw.addNode(g, {.opType = "Loop", .name = "loop", .inputs = {}, .outputNames = {"r"}});
  EXPECT_TRUE(g.bodyHolders().empty());
  {
    Transaction edit(model, "body");
    rw.setAttribute(node, Attribute::ofGraph("body", body));
    ASSERT_EQ(g.bodyHolders().size(), 1u);
    EXPECT_EQ(g.bodyHolders().at(node->id()), node);
    edit.revert();
  }
  EXPECT_TRUE(g.bodyHolders().empty());
}

TEST(Rewriter, RemoveValuesInOneEditAndUndoRestoresOrder) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  std::vector<Value*> all;
  for (int i = 0; i < 6; ++i)
    all.push_back(rw.addInitializer(g, "w" + std::to_string(i), Tensor::fromValues<float>(DataType::Float, {1}, {float(i)})));
  rw.setValueInfo(all[2], true, "doc");
  Transaction edit(model, "remove");
  rw.removeValues({all[1], all[2], all[4]});
  ASSERT_EQ(g.initializers().size(), 3u);
  EXPECT_EQ(g.initializers()[0], all[0]);
  EXPECT_EQ(g.initializers()[1], all[3]);
  EXPECT_EQ(g.initializers()[2], all[5]);
  EXPECT_EQ(g.findValue("w2"), nullptr);
  EXPECT_TRUE(g.valueInfo().empty());
  auto log = edit.commit();
  log->undo();
  EXPECT_EQ(g.initializers(), all);
  EXPECT_EQ(g.findValue("w2"), all[2]);
  EXPECT_TRUE(all[2]->hasValueInfo());
  EXPECT_EQ(all[4]->initializer()->values<float>()[0], 4.0f);
  log->redo();
  EXPECT_EQ(g.initializers().size(), 3u);
  EXPECT_EQ(g.findValue("w4"), nullptr);
}

TEST(Nesting, RecursiveFunctionIsNamedWithItsCycle) {
  auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[4] x) => (float[4] y) { y = local.A(x) }
<domain: "local", opset_import: ["" : 17, "local" : 1]>
A (a) => (b) {
  t = Relu(a)
  b = local.B(t)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
B (a) => (b) { b = local.A(a) })");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("model-local function 'local.A' calls itself (local.A -> local.B -> local.A)"),
            std::string::npos)
      << model.error().message;
}

TEST(Nesting, CallChainsCountTowardsTheLimit) {
  Model model;
  Rewriter rw(model);
  Value* x = rw.addGraphInput(model.graph(), "x", row());
  // F0 calls F1 ... calls F29: 30 levels, over the limit of 24; and without recursion anywhere.
  for (int i = 0; i < 30; ++i) {
    auto function = std::make_shared<Function>();
    function->domain = "local";
    function->name = "F" + std::to_string(i);
    function->body = std::make_shared<Graph>(&model);
    Value* a = rw.addGraphInput(*function->body, "a", Type());
    Node* node = rw.addNode(*function->body, {.opType = i + 1 < 30 ? "F" + std::to_string(i + 1) : "Relu",
                                              .domain = i + 1 < 30 ? "local" : "",
                                              .inputs = {a},
                                              .outputNames = {"b"}});
    rw.setGraphOutputs(*function->body, {node->output(0)});
    rw.addFunction(function);
  }
  Node* call = rw.addNode(model.graph(), {.opType = "F0", .domain = "local", .inputs = {x}, .outputNames = {"y"}});
  rw.setGraphOutputs(model.graph(), {call->output(0)});
  auto checked = checkNesting(model);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().message.find("nest 25 levels deep, over the nesting limit of 24"), std::string::npos)
      << checked.error().message;
}

}  // namespace
}  // namespace onyx
