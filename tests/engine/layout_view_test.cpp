// The graph view's model of a level: which boxes and edges a graph shows, collapsed by name scope.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ir/rewriter.h"
#include "ir/scopes.h"
#include "layout/item_text.h"
#include "layout/level_view.h"
#include "layout/synthetic_models.h"

namespace onyx::layout {
namespace {

LevelView level(const Graph& graph, LevelRequest request = {}) {
  request.graph = &graph;
  auto built = buildLevel(request);
  EXPECT_TRUE(built.ok()) << (built.ok() ? "" : built.error().toString());
  return built.ok() ? std::move(built.value()) : LevelView{};
}

bool consumes(const Node* node, const Value* value) {
  return std::find(node->inputs().begin(), node->inputs().end(), value) != node->inputs().end();
}

const Item& itemNamed(const LevelView& view, std::string_view name) {
  auto it = std::find_if(view.items.begin(), view.items.end(), [&](const Item& i) { return i.name == name; });
  EXPECT_NE(it, view.items.end()) << name;
  return *it;
}

TEST(LevelView, SmallGraphShowsEveryNodeWithTerminals) {
  auto model = makeResNet50Like();
  LevelView view = level(model->graph());
  EXPECT_EQ(view.nodeItemCount(), model->graph().nodeCount());
  EXPECT_EQ(view.groupItemCount(), 0u);
  EXPECT_NE(view.find("in:input"), LevelView::npos);
  EXPECT_NE(view.find(std::string("out:") + model->graph().outputs()[0]->name()), LevelView::npos);
  for (const Item& item : view.items) {
    EXPECT_GT(item.width, 0) << item.key;
    EXPECT_GT(item.height, 0) << item.key;
  }
}

TEST(LevelView, EdgesConnectProducersToConsumers) {
  auto model = makeResNet50Like();
  LevelView view = level(model->graph());
  ASSERT_FALSE(view.edges.empty());
  size_t nodeEdges = 0;
  for (const Edge& edge : view.edges) {
    const Item& from = view.items[edge.from];
    const Item& to = view.items[edge.to];
    if (from.kind == ItemKind::Node) {
      EXPECT_EQ(edge.value->producer(), from.node) << edge.valueName;
    } else {
      EXPECT_EQ(from.kind, ItemKind::Input);
      EXPECT_EQ(from.value, edge.value);
    }
    if (to.kind == ItemKind::Node) {
      EXPECT_TRUE(consumes(to.node, edge.value)) << edge.valueName << " -> " << to.name;
      ++nodeEdges;
    } else {
      EXPECT_EQ(to.kind, ItemKind::Output);
    }
  }
  // Every non-initializer input of every node arrives by exactly one edge.
  size_t expected = 0;
  for (const Node* node : model->graph().nodes()) {
    for (const Value* input : node->inputs()) expected += input && !input->isInitializer();
  }
  EXPECT_EQ(nodeEdges, expected);
}

TEST(LevelView, InitializersAreTagsOnTheirConsumerWithKeyAttributes) {
  auto model = makeResNet50Like();
  LevelView view = level(model->graph());
  const Item& conv = itemNamed(view, "/conv1/Conv");
  ASSERT_EQ(conv.initializers.size(), 1u);
  EXPECT_EQ(conv.initializers[0].name, "conv1.weight");
  EXPECT_EQ(conv.initializers[0].typeText, "float32[64, 3, 7, 7]");
  EXPECT_EQ(conv.initializers[0].inputIndex, 1);
  EXPECT_EQ(conv.attributeLines,
            (std::vector<std::string>{"kernel 7×7", "strides 2×2", "dilations 1×1", "pads 3,3,3,3"}));
  for (const Edge& edge : view.edges) EXPECT_FALSE(edge.value->isInitializer()) << edge.valueName;
  // Four BatchNormalization parameters fold into three lines and "+1 more".
  const Item& bn = itemNamed(view, "/bn1/BatchNormalization");
  std::vector<std::string> lines = itemDetailLines(bn);
  EXPECT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines.back(), "bn1.running_var float32[64]");
}

Node* addNode(Rewriter& rw, Graph& g, const std::string& op, const std::string& name,
              std::vector<Value*> inputs, std::vector<Attribute> attributes = {}) {
  return rw.addNode(g, {.opType = op,
                        .domain = "",
                        .name = name,
                        .inputs = std::move(inputs),
                        .outputNames = {name + ":0"},
                        .attributes = std::move(attributes),
                        .overload = "",
                        .docString = "",
                        .unknownFields = ""});
}

TEST(LevelView, ConstantNodesFoldIntoTagsUnlessTheyAreGraphOutputs) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{2, 6}));
  Node* shape =
      addNode(rw, g, "Constant", "/shape", {},
              {Attribute::ofTensor("value", Tensor::fromValues<int64_t>(DataType::Int64, {2}, {3, 4}))});
  Node* reshape = addNode(rw, g, "Reshape", "/reshape", {x, shape->output(0)});
  Node* reshape2 = addNode(rw, g, "Reshape", "/reshape2", {reshape->output(0), shape->output(0)});
  Node* kept = addNode(rw, g, "Constant", "/kept", {}, {Attribute::ofInts("value_ints", {1, 2})});
  rw.setGraphOutputs(g, {reshape2->output(0), kept->output(0)});

  LevelView view = level(g);
  EXPECT_EQ(view.nodeItemCount(), 3u);  // both Reshapes and the Constant that is an output
  EXPECT_EQ(view.foldedConstants, 1u);
  EXPECT_EQ(view.find("n:" + std::to_string(shape->id())), LevelView::npos);
  EXPECT_NE(view.find("n:" + std::to_string(kept->id())), LevelView::npos);
  for (const Node* consumer : {reshape, reshape2}) {
    const Item& item = view.items[view.find("n:" + std::to_string(consumer->id()))];
    ASSERT_EQ(item.initializers.size(), 1u);
    EXPECT_EQ(item.initializers[0].name, "/shape:0");
    EXPECT_EQ(item.initializers[0].typeText, "int64[2]");
    EXPECT_EQ(item.initializers[0].inputIndex, 1);
  }
  for (const Edge& edge : view.edges) EXPECT_NE(edge.valueName, "/shape:0");
}

TEST(LevelView, EdgesCarryTypeTextAndUnresolvedFlag) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{Dim::symbol("N"), 4}));
  Node* a = rw.addNode(g, {.opType = "Relu",
                           .domain = "",
                           .name = "a",
                           .inputs = {x},
                           .outputNames = {"y"},
                           .attributes = {},
                           .overload = "",
                           .docString = "",
                           .unknownFields = ""});
  rw.setType(a->output(0), Type::tensor(DataType::Float, Shape{Dim::symbol("N"), Dim()}));
  Node* b = rw.addNode(g, {.opType = "Relu",
                           .domain = "",
                           .name = "b",
                           .inputs = {a->output(0)},
                           .outputNames = {"z"},
                           .attributes = {},
                           .overload = "",
                           .docString = "",
                           .unknownFields = ""});
  rw.setGraphOutputs(g, {b->output(0)});

  LevelView plain = level(g);
  auto edgeOf = [](const LevelView& view, std::string_view value) {
    return *std::find_if(view.edges.begin(), view.edges.end(),
                         [&](const Edge& e) { return e.valueName == value; });
  };
  EXPECT_EQ(edgeOf(plain, "x").label, "float32[N, 4]");
  EXPECT_FALSE(edgeOf(plain, "x").unresolved);
  EXPECT_EQ(edgeOf(plain, "y").label, "float32[N, ?]");
  EXPECT_TRUE(edgeOf(plain, "y").unresolved);
  EXPECT_EQ(edgeOf(plain, "z").label, "");  // no type known yet
  EXPECT_FALSE(edgeOf(plain, "z").unresolved);

  // Shape inference's view replaces the declared types.
  EdgeLabeler inferred{.label = [](const Value* v) { return "inferred " + v->name(); },
                       .unresolved = [](const Value* v) { return v->name() == "z"; }};
  LevelRequest request;
  request.graph = &g;
  LevelView relabelled = buildLevel(request, inferred).value();
  EXPECT_EQ(edgeOf(relabelled, "y").label, "inferred y");
  EXPECT_FALSE(edgeOf(relabelled, "y").unresolved);
  EXPECT_TRUE(edgeOf(relabelled, "z").unresolved);
}

TEST(LevelView, LargeGraphOpensCollapsedToTopScopes) {
  auto model = makeNetworkLike({.nodes = 400});
  const Graph& g = model->graph();
  LevelRequest request;
  request.collapseThreshold = 100;
  LevelView view = level(g, request);
  ScopeTree scopes = ScopeTree::build(g);
  ASSERT_EQ(scopes.root().children.size(), 2u);  // /embeddings and /encoder
  EXPECT_EQ(view.nodeItemCount(), 0u);
  EXPECT_EQ(view.groupItemCount(), scopes.root().children.size());
  EXPECT_EQ(itemNamed(view, "/embeddings").nodeCount, 3u);
  EXPECT_EQ(itemNamed(view, "/encoder").nodeCount, g.nodeCount() - 3);
  // input -> embeddings -> encoder -> output, each edge once.
  ASSERT_EQ(view.edges.size(), 3u);
  EXPECT_EQ(view.items[view.edges[1].from].name, "/embeddings");
  EXPECT_EQ(view.items[view.edges[1].to].name, "/encoder");

  // Under the threshold the same graph is flat.
  request.collapseThreshold = 1000;
  EXPECT_EQ(level(g, request).nodeItemCount(), g.nodeCount());
}

TEST(LevelView, ExpandingAScopeShowsItsNodesWithPortsAtTheBoundary) {
  auto model = makeNetworkLike({.nodes = 400});
  const Graph& g = model->graph();
  ScopeTree scopes = ScopeTree::build(g);
  LevelRequest request;
  request.scopePath = "/encoder/layer.2";
  request.collapseThreshold = 100;
  LevelView view = level(g, request);
  const Scope* layer = scopes.find("/encoder/layer.2");
  ASSERT_NE(layer, nullptr);
  EXPECT_EQ(view.nodeItemCount(), layer->totalNodes);
  for (const Item& item : view.items) {
    if (item.kind == ItemKind::Node) {
      EXPECT_TRUE(item.name.starts_with("/encoder/layer.2/")) << item.name;
    }
  }
  // The layer reads one value from layer.1 and hands one to layer.3.
  std::vector<const Item*> in, out;
  for (const Item& item : view.items) {
    if (item.kind == ItemKind::PortIn) in.push_back(&item);
    if (item.kind == ItemKind::PortOut) out.push_back(&item);
  }
  ASSERT_EQ(in.size(), 1u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(in[0]->value->producer()->name().starts_with("/encoder/layer.1/"));
  EXPECT_TRUE(out[0]->value->producer()->name().starts_with("/encoder/layer.2/"));
  EXPECT_EQ(view.find("in:input_ids"), LevelView::npos);

  LevelRequest unknown;
  unknown.graph = &g;
  unknown.scopePath = "/decoder";
  auto missing = buildLevel(unknown, scopes);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no scope '/decoder'"), std::string::npos);
}

TEST(LevelView, InlineExpansionFramesTheScopeAndCollapsesItsChildren) {
  auto model = makeNetworkLike({.nodes = 400});
  LevelRequest request;
  request.collapseThreshold = 100;
  request.expandedScopes = {"/encoder", "/encoder/layer.0"};
  LevelView view = level(model->graph(), request);
  ASSERT_EQ(view.clusters.size(), 2u);
  EXPECT_EQ(view.clusters[0].scopePath, "/encoder");
  EXPECT_EQ(view.clusters[1].scopePath, "/encoder/layer.0");
  EXPECT_EQ(view.clusters[1].parent, 0);
  ScopeTree scopes = ScopeTree::build(model->graph());
  const Scope* layer0 = scopes.find("/encoder/layer.0");
  size_t layers = scopes.find("/encoder")->children.size();
  // layer.0's sub-scopes (attention, mlp, norms) are groups inside its frame; the other layers are groups.
  size_t layer0Groups = 0;
  for (const Item& item : view.items) {
    if (item.kind != ItemKind::Group || !item.name.starts_with("/encoder/layer.0/")) continue;
    ++layer0Groups;
    EXPECT_EQ(item.cluster, 1) << item.name;
  }
  EXPECT_EQ(layer0Groups, layer0->children.size());
  EXPECT_EQ(itemNamed(view, "/encoder/layer.1").cluster, 0);
  EXPECT_EQ(view.groupItemCount(), 1 + (layers - 1) + layer0->children.size());
  EXPECT_EQ(view.nodeItemCount(), layer0->nodes.size());  // its own Adds
}

TEST(LevelView, SubgraphBodiesAreLevelsOfTheirOwn) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* cond = rw.addGraphInput(g, "cond", Type::tensor(DataType::Bool, Shape{}));
  Value* x = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{4}));
  auto makeBranch = [&](const std::string& op) {
    auto body = std::make_shared<Graph>(&model, &g);
    Node* n = rw.addNode(*body, {.opType = op,
                                 .domain = "",
                                 .name = "/branch/" + op,
                                 .inputs = {x},
                                 .outputNames = {op + "_out"},
                                 .attributes = {},
                                 .overload = "",
                                 .docString = "",
                                 .unknownFields = ""});
    rw.setGraphOutputs(*body, {n->output(0)});
    return body;
  };
  auto thenBody = makeBranch("Relu");
  auto elseBody = makeBranch("Neg");
  Node* iff = rw.addNode(g, {.opType = "If",
                             .domain = "",
                             .name = "/if",
                             .inputs = {cond},
                             .outputNames = {"y"},
                             .attributes = {Attribute::ofGraph("then_branch", thenBody),
                                            Attribute::ofGraph("else_branch", elseBody)},
                             .overload = "",
                             .docString = "",
                             .unknownFields = ""});
  rw.setGraphOutputs(g, {iff->output(0)});

  LevelView top = level(g);
  const Item& ifItem = itemNamed(top, "/if");
  ASSERT_EQ(ifItem.bodies.size(), 2u);
  EXPECT_EQ(ifItem.bodies[0].label, "then_branch");
  EXPECT_EQ(ifItem.bodies[0].graph, thenBody.get());
  // x is used only inside the bodies: at the top level it flows into the If.
  size_t xEdges = std::count_if(top.edges.begin(), top.edges.end(), [&](const Edge& e) {
    return e.valueName == "x" && top.items[e.to].node == iff;
  });
  EXPECT_EQ(xEdges, 1u);

  LevelView body = level(*ifItem.bodies[0].graph);
  EXPECT_EQ(body.nodeItemCount(), 1u);
  size_t port = body.find("pin:x");
  ASSERT_NE(port, LevelView::npos);  // the outer value enters through a port
  EXPECT_EQ(body.items[port].kind, ItemKind::PortIn);
  EXPECT_NE(body.find("out:Relu_out"), LevelView::npos);
}

TEST(LevelView, CollapsedLevelsSkipSingleChildWrapperScopes) {
  Model model;
  Rewriter rw(model);
  Graph& g = model.graph();
  Value* v = rw.addGraphInput(g, "x", Type::tensor(DataType::Float, Shape{4}));
  for (const char* name : {"/model/a/Relu", "/model/a/Neg", "/model/b/Relu", "/model/b/c/Neg"}) {
    v = rw.addNode(g, {.opType = "Relu",
                       .domain = "",
                       .name = name,
                       .inputs = {v},
                       .outputNames = {std::string(name) + ":0"},
                       .attributes = {},
                       .overload = "",
                       .docString = "",
                       .unknownFields = ""})
            ->output(0);
  }
  rw.setGraphOutputs(g, {v});
  ScopeTree scopes = ScopeTree::build(g);
  EXPECT_EQ(effectiveScope(scopes, "")->path, "/model");
  EXPECT_EQ(effectiveScope(scopes, "/model/b")->path, "/model/b");  // holds a node of its own
  EXPECT_EQ(effectiveScope(scopes, "/nowhere"), nullptr);

  LevelRequest request;
  request.collapseThreshold = 2;
  LevelView view = level(g, request);
  EXPECT_EQ(view.groupItemCount(), 2u);  // /model/a and /model/b, not one /model box
  EXPECT_EQ(itemNamed(view, "/model/a").nodeCount, 2u);
  EXPECT_EQ(itemNamed(view, "/model/b").nodeCount, 2u);
  EXPECT_TRUE(view.clusters.empty());
}

}  // namespace
}  // namespace onyx::layout
