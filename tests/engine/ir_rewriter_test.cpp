// The rewriter keeps use lists, names and ids consistent, emits change events and can revert.
#include <gtest/gtest.h>

#include "ir/rewriter.h"

namespace onyx {
namespace {

struct SmallGraph {
  Model model;
  Rewriter rw{model};
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim::symbol("N"), 4}));
  Value* w = rw.addInitializer(g, "w", Tensor::fromValues<float>(DataType::Float, {4}, {1, 2, 3, 4}));
  Node* mul = rw.addNode(g, {.opType = "Mul", .name = "/block/Mul", .inputs = {x, w}, .outputNames = {"y"}});
  Node* relu = rw.addNode(g, {.opType = "Relu", .name = "/block/act/Relu", .inputs = {mul->output(0)}, .outputNames = {"z"}});
  SmallGraph() { rw.setGraphOutputs(g, {relu->output(0)}); }
};

TEST(Rewriter, LinksProducersAndUses) {
  SmallGraph s;
  Value* y = s.g.findValue("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->producer(), s.mul);
  EXPECT_EQ(y->producerOutput(), 0);
  ASSERT_EQ(y->uses().size(), 1u);
  EXPECT_EQ(y->uses()[0].node, s.relu);
  EXPECT_EQ(y->uses()[0].index, 0);
  ASSERT_EQ(s.x->uses().size(), 1u);
  EXPECT_EQ(s.x->uses()[0].node, s.mul);
  Value* z = s.relu->output(0);
  ASSERT_EQ(z->uses().size(), 1u);
  EXPECT_EQ(z->uses()[0].graphOutput, &s.g);
  EXPECT_TRUE(s.w->isInitializer());
  EXPECT_EQ(s.w->type().toString(), "float32[4]");
  EXPECT_EQ(s.x->type().toString(), "float32[N, 4]");
  EXPECT_NE(s.mul->id(), s.relu->id());
  EXPECT_EQ(s.g.findNode(s.relu->id()), s.relu);
}

TEST(Rewriter, ReplaceAllUsesCoversNodesAndGraphOutputs) {
  SmallGraph s;
  Value* z = s.relu->output(0);
  s.rw.replaceAllUsesWith(z, s.mul->output(0));
  EXPECT_TRUE(z->uses().empty());
  EXPECT_EQ(s.g.outputs()[0], s.mul->output(0));
  s.rw.removeNode(s.relu);
  EXPECT_EQ(s.g.nodeCount(), 1u);
  EXPECT_EQ(s.g.findValue("z"), nullptr);
  ASSERT_EQ(s.mul->output(0)->uses().size(), 1u);
  EXPECT_EQ(s.mul->output(0)->uses()[0].graphOutput, &s.g);
}

TEST(Rewriter, RemovingAUsedNodeIsAProgrammerError) {
  SmallGraph s;
  EXPECT_THROW(s.rw.removeNode(s.mul), std::logic_error);
  EXPECT_EQ(s.g.nodeCount(), 2u);
}

TEST(Transaction, RevertRestoresStructureAndIds) {
  SmallGraph s;
  NodeId reluId = s.relu->id();
  {
    Transaction tx(s.model, "drop relu");
    s.rw.replaceAllUsesWith(s.relu->output(0), s.mul->output(0));
    s.rw.removeNode(s.relu);
    s.rw.setAttribute(s.mul, Attribute::ofInt("broadcast", 1));
    s.rw.renameValue(s.mul->output(0), "product");
    EXPECT_EQ(s.g.nodeCount(), 1u);
    tx.revert();
  }
  EXPECT_EQ(s.g.nodeCount(), 2u);
  EXPECT_EQ(s.g.findNode(reluId), s.relu);
  EXPECT_EQ(s.mul->attribute("broadcast"), nullptr);
  EXPECT_EQ(s.g.findValue("y"), s.mul->output(0));
  EXPECT_EQ(s.g.findValue("product"), nullptr);
  ASSERT_EQ(s.mul->output(0)->uses().size(), 1u);
  EXPECT_EQ(s.mul->output(0)->uses()[0].node, s.relu);
  EXPECT_EQ(s.g.outputs()[0], s.relu->output(0));
}

TEST(Transaction, DestructorRevertsUncommittedEdits) {
  SmallGraph s;
  {
    Transaction tx(s.model, "abandoned");
    s.rw.renameNode(s.mul, "renamed");
  }
  EXPECT_EQ(s.mul->name(), "/block/Mul");
  EXPECT_EQ(s.model.activeTransaction(), nullptr);
}

TEST(ChangeLog, UndoRedoAlternateAndEmitEvents) {
  SmallGraph s;
  std::vector<std::string> events;
  s.model.subscribe([&](const ChangeEvent& e) {
    events.push_back(std::string(changeKindName(e.kind)) + (e.undoing ? " (undo)" : ""));
  });
  std::shared_ptr<ChangeLog> log;
  Node* added = nullptr;
  {
    Transaction tx(s.model, "add sigmoid");
    added = s.rw.addNode(s.g, {.opType = "Sigmoid", .inputs = {s.relu->output(0)}, .outputNames = {"s"}});
    s.rw.setGraphOutputs(s.g, {added->output(0)});
    log = tx.commit();
  }
  EXPECT_EQ(log->size(), 2u);
  EXPECT_EQ(log->label(), "add sigmoid");
  NodeId id = added->id();
  log->undo();
  EXPECT_EQ(s.g.nodeCount(), 2u);
  EXPECT_EQ(s.g.findNode(id), nullptr);
  EXPECT_EQ(s.relu->output(0)->uses().size(), 1u);  // only the graph output again
  log->redo();
  EXPECT_EQ(s.g.findNode(id), added);
  EXPECT_EQ(s.g.outputs()[0], added->output(0));
  ASSERT_EQ(s.relu->output(0)->uses().size(), 1u);
  EXPECT_EQ(s.relu->output(0)->uses()[0].node, added);
  std::vector<std::string> expected = {"node-added",          "graph-outputs-changed",
                                       "graph-outputs-changed (undo)", "node-removed (undo)",
                                       "node-added",          "graph-outputs-changed"};
  EXPECT_EQ(events, expected);
}

TEST(Subgraphs, OuterReferencesResolveToTheOuterValueAndCountAsUses) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* cond = rw.addGraphInput(g, "cond", Type::tensor(DataType::Bool, Shape{}));
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{3}));
  auto thenBody = std::make_shared<Graph>(&model, &g);
  Value* outer = thenBody->resolve("x");
  EXPECT_EQ(outer, x);
  Node* neg = rw.addNode(*thenBody, {.opType = "Neg", .inputs = {outer}, .outputNames = {"nx"}});
  rw.setGraphOutputs(*thenBody, {neg->output(0)});
  auto elseBody = std::make_shared<Graph>(&model, &g);
  rw.setGraphOutputs(*elseBody, {x});
  Node* ifNode = rw.addNode(g, {.opType = "If",
                                .inputs = {cond},
                                .outputNames = {"out"},
                                .attributes = {Attribute::ofGraph("then_branch", thenBody),
                                               Attribute::ofGraph("else_branch", elseBody)}});
  EXPECT_EQ(thenBody->owner(), ifNode);
  // x is used by Neg inside then_branch and directly as else_branch's output.
  ASSERT_EQ(x->uses().size(), 2u);
  EXPECT_EQ(x->uses()[0].node, neg);
  EXPECT_EQ(x->uses()[1].graphOutput, elseBody.get());
  {
    Transaction tx(model, "drop if");
    rw.removeNode(ifNode);
    EXPECT_TRUE(x->uses().empty()) << "a removed body must not keep uses of outer values";
    tx.revert();
  }
  EXPECT_EQ(x->uses().size(), 2u);
}

}  // namespace
}  // namespace onyx
