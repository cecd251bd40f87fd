// verify() names the node and what is wrong; scopes come from node names.
#include <gtest/gtest.h>

#include "ir/rewriter.h"
#include "ir/scopes.h"
#include "ir/verify.h"

namespace onyx {
namespace {

std::vector<std::string> messages(const Model& model) {
  std::vector<std::string> out;
  for (const Diagnostic& d : verify(model)) out.push_back(d.message);
  return out;
}

TEST(Verify, CleanGraphHasNoDiagnostics) {
  Model model;
  Rewriter rw(model);
  Value* x = rw.addGraphInput(model.graph(), "x", Type::tensor(DataType::Float, Shape{2}));
  Node* relu = rw.addNode(model.graph(), {.opType = "Relu", .name = "r", .inputs = {x}, .outputNames = {"y"}});
  rw.setGraphOutputs(model.graph(), {relu->output(0)});
  EXPECT_TRUE(verify(model).empty());
}

TEST(Verify, ReportsUndefinedInputsAndOutputs) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* ghost = rw.addUndefinedValue(g, "ghost");
  Node* relu = rw.addNode(g, {.opType = "Relu", .name = "r", .inputs = {ghost}, .outputNames = {"y"}});
  Value* missing = rw.addUndefinedValue(g, "missing");
  rw.setGraphOutputs(g, {relu->output(0), missing});
  auto found = messages(model);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], "input 'ghost' of Relu 'r' (#1) is not produced by any node, graph input or initializer");
  EXPECT_EQ(found[1], "graph output 'missing' is not produced by any node, input or initializer");
}

TEST(Verify, ReportsDuplicateDefinitions) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{2}));
  rw.addNode(g, {.opType = "Relu", .name = "a", .inputs = {x}, .outputNames = {"y"}});
  rw.addNode(g, {.opType = "Neg", .name = "b", .inputs = {x}, .outputNames = {"y"}});
  auto found = messages(model);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "value 'y' is defined 2 times, by Relu 'a' (#1) and Neg 'b' (#2); each value name must be produced once");
}

TEST(Verify, ReportsCyclesNamingTheNodes) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{2}));
  Node* a = rw.addNode(g, {.opType = "Add", .name = "a", .inputs = {x, x}, .outputNames = {"p"}});
  Node* b = rw.addNode(g, {.opType = "Relu", .name = "b", .inputs = {a->output(0)}, .outputNames = {"q"}});
  rw.setInput(a, 1, b->output(0));
  auto order = topologicalOrder(g);
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.error().message,
            "the graph has a cycle: Add 'a' (#1) <- Relu 'b' (#2) <- Add 'a' (#1); a value cannot depend on itself");
}

TEST(Verify, ReportsInitializerTypeMismatch) {
  Model model;
  Rewriter rw(model);
  Value* w = rw.addInitializer(model.graph(), "w", Tensor::fromValues<int64_t>(DataType::Int64, {2}, {1, 2}));
  rw.setType(w, Type::tensor(DataType::Float, Shape{3}));
  auto found = messages(model);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], "initializer 'w' holds int64 but is declared float32");
  EXPECT_EQ(found[1], "initializer 'w' has shape [2] but is declared [3]");
}

TEST(Verify, TopologicalOrderIsStableAndFixesStoredOrder) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{2}));
  Node* consumer = rw.addNode(g, {.opType = "Relu", .name = "late", .inputs = {x}, .outputNames = {"y"}});
  Node* producer = rw.addNode(g, {.opType = "Neg", .name = "early", .inputs = {x}, .outputNames = {"n"}}, consumer);
  rw.setInput(consumer, 0, producer->output(0));
  auto order = topologicalOrder(g);
  ASSERT_TRUE(order.ok());
  EXPECT_EQ((*order)[0], producer);
  EXPECT_EQ((*order)[1], consumer);
  rw.moveBefore(producer, nullptr);  // now stored consumer-first
  auto diagnostics = verify(model);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].severity, Diagnostic::Severity::Warning);
  EXPECT_EQ((*topologicalOrder(g))[0], producer);
}

TEST(Scopes, TreeFollowsNodeNames) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{2}));
  for (const char* name : {"/encoder/layer.0/attention/MatMul", "/encoder/layer.0/attention/Softmax",
                           "/encoder/layer.1/MatMul", "/head/Gemm", "loose"})
    x = rw.addNode(g, {.opType = "Relu", .name = name, .inputs = {x}, .outputNames = {std::string(name) + ":0"}})
            ->output(0);
  ScopeTree tree = ScopeTree::build(g);
  EXPECT_EQ(tree.root().totalNodes, 5u);
  EXPECT_EQ(tree.root().nodes.size(), 1u);  // "loose"
  ASSERT_EQ(tree.root().children.size(), 2u);
  EXPECT_EQ(tree.root().children[0]->path, "/encoder");
  EXPECT_EQ(tree.root().children[0]->totalNodes, 3u);
  const Scope* attention = tree.find("/encoder/layer.0/attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->name, "attention");
  EXPECT_EQ(attention->depth, 3);
  EXPECT_EQ(attention->nodes.size(), 2u);
  EXPECT_EQ(tree.scopeOf(attention->nodes[0]->id()), attention);
  EXPECT_EQ(tree.find("/head/")->totalNodes, 1u);
  EXPECT_EQ(tree.find("/nothing"), nullptr);
}

}  // namespace
}  // namespace onyx
