// How the views follow edits made through the engine's Rewriter (in transactions, undone through their
// change logs, as the GUI's undo commands do): the canvas patches text in place for renames, attribute and
// type edits and lays out once per structural burst; the inspector follows the node it shows.
#include <QSignalSpy>
#include <QtTest>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/level_patch.h"
#include "inspector_view.h"
#include "ir/model.h"
#include "ir/rewriter.h"
#include "model_document.h"
#include "onnx/onnx_io.h"

namespace onyx::views {
namespace {

constexpr int kLayoutTimeoutMs = 120000;

// Softmax's axis is one of the attributes its box shows ("axis 1").
constexpr const char* kChainModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
chain (float[N, 4] x) => (float[N, 4] y, float[N, 4] z) {
  a = Softmax <axis = 1> (x)
  b = Relu (a)
  y = Neg (b)
  z = Sigmoid (x)
}
)";

constexpr const char* kIfModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
choose (float[N] x, bool c) => (float[N] y) {
  r = Relu (x)
  y = If (c) <then_branch = thenGraph () => (float[N] t) { t = Sigmoid (r) },
              else_branch = elseGraph () => (float[N] e) { e = Neg (r) }>
}
)";

std::shared_ptr<Model> parse(const char* text) {
  auto parsed = parseModelText(text);
  if (!parsed) qFatal("%s", parsed.error().toString().c_str());
  return std::shared_ptr<Model>(std::move(parsed).value());
}

Node* nodeOfOp(const Graph& graph, std::string_view op) {
  for (Node* node : graph.nodes())
    if (node->opType() == op) return node;
  return nullptr;
}

// A canvas and an inspector on one document, the canvas shown (offscreen) with its first level laid out.
struct Fixture {
  explicit Fixture(std::shared_ptr<Model> shared)
      : model(*shared), document(std::move(shared), QStringLiteral("test.onnx")) {
    canvas.resize(900, 600);
    canvas.show();
    inspector.setDocument(&document);
  }
  bool open() {
    QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
    canvas.setDocument(&document);
    return shown.wait(kLayoutTimeoutMs);
  }
  // Runs `edit` in one transaction and waits until the canvas answered it with a patch.
  std::shared_ptr<ChangeLog> editExpectingPatch(const std::function<void(Rewriter&)>& edit) {
    QSignalSpy patched(&canvas, &GraphCanvas::levelPatched);
    auto log = commit(edit);
    if (!patched.wait(5000)) qWarning("no patch");
    QTest::qWait(20);  // a layout asked for after the patch would show in the count now
    return log;
  }
  std::shared_ptr<ChangeLog> commit(const std::function<void(Rewriter&)>& edit) {
    Transaction transaction(model, "edit");
    Rewriter rewriter(model);
    edit(rewriter);
    return transaction.commit();
  }
  // Runs `step` and waits for the layout it causes.
  bool laidOutAfter(const std::function<void()>& step) {
    QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
    step();
    if (!shown.wait(kLayoutTimeoutMs)) return false;
    QTest::qWait(20);  // a second layout asked for by the same burst would have started by now
    return !canvas.isLayingOut();
  }
  Model& model;
  ModelDocument document;
  GraphCanvas canvas;
  InspectorView inspector;
};

EdgeItem* edgeInto(GraphScene& scene, const Value* value, NodeId consumer) {
  BoxItem* target = scene.boxForNode(consumer);
  for (EdgeItem* edge : scene.edgesForValue(value))
    if (target && edge->levelEdge().to == target->index()) return edge;
  return nullptr;
}

}  // namespace

class TestViewEvents : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void eventsAreClassifiedByKindAndGraph() {
    std::shared_ptr<Model> shared = parse(kIfModel);
    const Graph& main = shared->graph();
    const Graph& thenBody = *nodeOfOp(main, "If")->subgraphs()[0];
    const Graph& elseBody = *nodeOfOp(main, "If")->subgraphs()[1];
    using Kind = ChangeEvent::Kind;
    auto event = [](Kind kind, const Graph* graph) { return ChangeEvent{kind, graph, kNoNode, {}, false}; };
    auto impact = [](std::vector<ChangeEvent> events, const Graph& shown) { return impactOn(events, shown); };
    QVERIFY(impact({event(Kind::AttributeChanged, &main), event(Kind::NodeRenamed, &main)}, main) ==
            LevelImpact::Relabel);
    // One structural event of the shown graph decides the whole burst.
    QVERIFY(impact({event(Kind::NodeRenamed, &main), event(Kind::NodeAdded, &main)}, main) ==
            LevelImpact::Relayout);
    QVERIFY(impact({event(Kind::InputsChanged, &main)}, main) == LevelImpact::Relayout);
    // A body of the shown graph, or the graph enclosing a shown body: checked by a patch.
    QVERIFY(impact({event(Kind::NodeAdded, &thenBody)}, main) == LevelImpact::Relabel);
    QVERIFY(impact({event(Kind::NodeRemoved, &main)}, thenBody) == LevelImpact::Relabel);
    // Another body: nothing the level draws.
    QVERIFY(impact({event(Kind::NodeAdded, &thenBody), event(Kind::ValueRenamed, &thenBody)}, elseBody) ==
            LevelImpact::None);
    QVERIFY(impact({event(Kind::FunctionAdded, nullptr)}, elseBody) == LevelImpact::Relayout);
  }

  void anAttributeEditRelabelsTheBoxWithoutALayoutAndUndoRestoresIt() {
    Fixture f(parse(kChainModel));
    QVERIFY(f.open());
    Node* softmax = nodeOfOp(f.model.graph(), "Softmax");
    BoxItem* box = f.canvas.scene()->boxForNode(softmax->id());
    QVERIFY(box);
    QVERIFY(box->lines().contains("axis 1"));
    const QRectF where = box->box();
    const uint64_t layouts = f.canvas.layoutRequestCount();
    const uint64_t dotRuns = f.canvas.layoutService().stats().dotRuns;

    auto log = f.editExpectingPatch([&](Rewriter& r) { r.setAttribute(softmax, Attribute::ofInt("axis", 0)); });
    QCOMPARE(f.canvas.patchCount(), uint64_t(1));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);
    QCOMPARE(f.canvas.layoutService().stats().dotRuns, dotRuns);
    QCOMPARE(f.canvas.scene()->boxForNode(softmax->id()), box);  // the same item, not a new scene
    QVERIFY(box->lines().contains("axis 0"));
    QVERIFY(!box->lines().contains("axis 1"));
    QCOMPARE(box->box(), where);
    QVERIFY(f.canvas.shownLayout()->level->items[box->index()].attributeLines == std::vector<std::string>{"axis 0"});

    QSignalSpy patched(&f.canvas, &GraphCanvas::levelPatched);
    log->undo();
    QVERIFY(patched.wait(5000));
    QCOMPARE(patched.takeFirst().at(0).value<size_t>(), size_t(1));  // only Softmax's box changed
    QVERIFY(box->lines().contains("axis 1"));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);
    QCOMPARE(f.canvas.layoutService().stats().dotRuns, dotRuns);
  }

  void renamesRelabelTheNodeTheTerminalAndTheEdges() {
    Fixture f(parse(kChainModel));
    QVERIFY(f.open());
    const Graph& graph = f.model.graph();
    Node* relu = nodeOfOp(graph, "Relu");
    Value* x = graph.findValue("x");
    const uint64_t layouts = f.canvas.layoutRequestCount();
    BoxItem* input = f.canvas.scene()->boxForKey("in:x");
    QVERIFY(input);
    QCOMPARE(input->title(), QString("x"));

    f.editExpectingPatch([&](Rewriter& r) {
      r.renameNode(relu, "act");
      r.renameValue(x, "u");  // as wide as "x": the terminal keeps its box
    });
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);
    QCOMPARE(f.canvas.scene()->boxForNode(relu->id())->name(), QString("act"));
    QCOMPARE(input->title(), QString("u"));
    QCOMPARE(f.canvas.scene()->boxForKey("in:u"), input);
    QVERIFY(!f.canvas.scene()->boxForKey("in:x"));
    EdgeItem* edge = edgeInto(*f.canvas.scene(), x, nodeOfOp(graph, "Softmax")->id());
    QVERIFY(edge);
    QCOMPARE(edge->toolTip(), QString("u"));
  }

  void aValueTypeEditRelabelsItsEdgesAndTerminalBeforeAndAfterReinference() {
    Fixture f(parse(kChainModel));
    QVERIFY(f.open());
    const Graph& graph = f.model.graph();
    Value* x = graph.findValue("x");
    EdgeItem* edge = edgeInto(*f.canvas.scene(), x, nodeOfOp(graph, "Sigmoid")->id());
    QVERIFY(edge);
    QCOMPARE(edge->label().plainText(), QString("float32[N, 4]"));
    BoxItem* input = f.canvas.scene()->boxForKey("in:x");
    const uint64_t layouts = f.canvas.layoutRequestCount();

    // float16 is as wide as float32 on the terminal's box, which keeps its size.
    auto log = f.editExpectingPatch(
        [&](Rewriter& r) { r.setType(x, Type::tensor(DataType::Float16, Shape{Dim::symbol("N"), Dim(4)})); });
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);
    // The inference still says float32: the edited value shows its declared type until it runs again.
    QCOMPARE(edge->label().plainText(), QString("float16[N, 4]"));
    QVERIFY(input->lines().contains("float16[N, 4]"));

    QSignalSpy inferred(&f.document, &ModelDocument::shapesChanged);
    f.document.reinfer();
    QVERIFY(inferred.wait(kLayoutTimeoutMs));
    QCOMPARE(edge->label().plainText(), QString("float16[N, 4]"));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);

    QSignalSpy patched(&f.canvas, &GraphCanvas::levelPatched);
    log->undo();
    QVERIFY(patched.wait(5000));
    QCOMPARE(edge->label().plainText(), QString("float32[N, 4]"));
    QVERIFY(input->lines().contains("float32[N, 4]"));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);
  }

  void textThatNoLongerFitsItsBoxLaysOutOnce() {
    Fixture f(parse(kChainModel));
    QVERIFY(f.open());
    const uint64_t layouts = f.canvas.layoutRequestCount();
    Value* x = f.model.graph().findValue("x");
    const double width = f.canvas.scene()->boxForKey("in:x")->box().width();
    QVERIFY(f.laidOutAfter([&] {
      f.commit([&](Rewriter& r) { r.renameValue(x, "a_much_longer_input_name_than_the_box_has_room_for"); });
    }));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts + 1);
    QCOMPARE(f.canvas.patchCount(), uint64_t(0));
    BoxItem* input = f.canvas.scene()->boxForKey("in:a_much_longer_input_name_than_the_box_has_room_for");
    QVERIFY(input);
    QVERIFY(input->box().width() > width);
  }

  void aStructuralBurstLaysOutExactlyOnceAndSoDoesItsUndo() {
    Fixture f(parse(kChainModel));
    QVERIFY(f.open());
    Graph& graph = f.model.graph();
    Node* softmax = nodeOfOp(graph, "Softmax");
    const size_t nodes = f.canvas.scene()->nodeItemCount();
    const uint64_t layouts = f.canvas.layoutRequestCount();
    const uint64_t dotRuns = f.canvas.layoutService().stats().dotRuns;
    const uint64_t keptLayouts = f.canvas.layoutService().stats().keptLayouts;
    std::shared_ptr<ChangeLog> log;
    QVERIFY(f.laidOutAfter([&] {
      // Five events: a node added, the outputs changed, an attribute, a rename and a type.
      log = f.commit([&](Rewriter& r) {
        Node* exp = r.addNode(graph, {.opType = "Exp", .inputs = {graph.findValue("b")}, .outputNames = {"e"}});
        std::vector<Value*> outputs = graph.outputs();
        outputs.push_back(exp->output(0));
        r.setGraphOutputs(graph, outputs);
        r.setAttribute(softmax, Attribute::ofInt("axis", 0));
        r.renameNode(softmax, "soft");
        r.setType(exp->output(0), Type::tensor(DataType::Float, Shape{Dim::symbol("N"), Dim(4)}));
      });
    }));
    QCOMPARE(log->size(), size_t(5));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts + 1);
    // One layout, laid out around the one on screen (layout/stable_layout.h) instead of by a dot run.
    QCOMPARE(f.canvas.layoutService().stats().dotRuns + f.canvas.layoutService().stats().keptLayouts,
             dotRuns + keptLayouts + 1);
    QCOMPARE(f.canvas.layoutService().stats().keptLayouts, keptLayouts + 1);
    QCOMPARE(f.canvas.patchCount(), uint64_t(0));
    QCOMPARE(f.canvas.scene()->nodeItemCount(), nodes + 1);
    QVERIFY(nodeOfOp(graph, "Exp"));
    QVERIFY(f.canvas.scene()->boxForNode(nodeOfOp(graph, "Exp")->id()));
    QVERIFY(f.canvas.scene()->boxForNode(softmax->id())->lines().contains("axis 0"));
    QCOMPARE(f.canvas.scene()->boxForNode(softmax->id())->name(), QString("soft"));

    QVERIFY(f.laidOutAfter([&] { log->undo(); }));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts + 2);
    QCOMPARE(f.canvas.scene()->nodeItemCount(), nodes);
    QVERIFY(f.canvas.scene()->boxForNode(softmax->id())->lines().contains("axis 1"));

    // Removing a node (and the graph output it fed): two events, one layout.
    QVERIFY(f.laidOutAfter([&] {
      f.commit([&](Rewriter& r) {
        Node* sigmoid = nodeOfOp(graph, "Sigmoid");
        r.setGraphOutputs(graph, {graph.findValue("y")});
        r.removeNode(sigmoid);
      });
    }));
    QCOMPARE(f.canvas.layoutRequestCount(), layouts + 3);
    QCOMPARE(f.canvas.scene()->nodeItemCount(), nodes - 1);
  }

  void editsOfOtherGraphsDoNotLayOutTheShownLevel() {
    Fixture f(parse(kIfModel));
    QVERIFY(f.open());
    Graph& main = f.model.graph();
    Node* ifNode = nodeOfOp(main, "If");
    Graph& thenBody = *ifNode->subgraphs()[0];
    const uint64_t layouts = f.canvas.layoutRequestCount();

    // A node added in a body of the shown graph that uses nothing from outside: the main level is the same.
    f.editExpectingPatch([&](Rewriter& r) {
      r.addNode(thenBody, {.opType = "Identity", .inputs = {thenBody.findValue("t")}, .outputNames = {"t2"}});
    });
    QCOMPARE(f.canvas.layoutRequestCount(), layouts);

    // Shown: the else branch. Edits of the then branch are another graph's.
    QSignalSpy shown(&f.canvas, &GraphCanvas::levelShown);
    QVERIFY(f.canvas.enterBody(ifNode->id(), 1));
    QVERIFY(shown.wait(kLayoutTimeoutMs));
    const uint64_t inBody = f.canvas.layoutRequestCount();
    const uint64_t patches = f.canvas.patchCount();
    f.commit([&](Rewriter& r) {
      r.removeNode(nodeOfOp(thenBody, "Identity"));
      r.renameNode(nodeOfOp(thenBody, "Sigmoid"), "then_sigmoid");
    });
    QTest::qWait(50);
    QCOMPARE(f.canvas.layoutRequestCount(), inBody);
    QCOMPARE(f.canvas.patchCount(), patches);

    // A rename in the main graph of a value the else branch uses shows on its port, without a layout.
    f.editExpectingPatch([&](Rewriter& r) { r.renameValue(main.findValue("r"), "q"); });
    QCOMPARE(f.canvas.layoutRequestCount(), inBody);
    BoxItem* port = f.canvas.scene()->boxForKey("pin:q");
    QVERIFY(port);
    QCOMPARE(port->title(), QString("q"));

    // The body's node now reads an outer value it did not use: the level gains a port, laid out once.
    QVERIFY(f.laidOutAfter([&] {
      f.commit([&](Rewriter& r) { r.setInput(nodeOfOp(*ifNode->subgraphs()[1], "Neg"), 0, main.findValue("x")); });
    }));
    QCOMPARE(f.canvas.layoutRequestCount(), inBody + 1);
  }

  void theInspectorFollowsEditsOfTheNodeItShows() {
    Fixture f(parse(kChainModel));
    Graph& graph = f.model.graph();
    Node* softmax = nodeOfOp(graph, "Softmax");
    f.document.select(Selection{&graph, softmax->id(), nullptr});
    InspectorView& inspector = f.inspector;
    QCOMPARE(inspector.row("Attributes", "axis")->text(InspectorView::kValueColumn), QString("1"));

    auto attributeEdit = f.commit([&](Rewriter& r) { r.setAttribute(softmax, Attribute::ofInt("axis", 0)); });
    QTRY_COMPARE(inspector.row("Attributes", "axis")->text(InspectorView::kValueColumn), QString("0"));

    f.commit([&](Rewriter& r) { r.renameNode(softmax, "soft"); });
    QTRY_COMPARE(inspector.row("Node", "name")->text(InspectorView::kValueColumn), QString("soft"));

    f.commit([&](Rewriter& r) {
      r.setType(graph.findValue("x"), Type::tensor(DataType::Float, Shape{Dim::symbol("M"), Dim(4)}));
    });
    QTRY_COMPARE(inspector.row("Inputs", "x")->text(InspectorView::kValueColumn), QString("float32[M, 4]"));

    // An edit elsewhere leaves the tree alone.
    const int rebuilds = inspector.rebuildCount();
    f.commit([&](Rewriter& r) { r.renameNode(nodeOfOp(graph, "Sigmoid"), "other"); });
    QTest::qWait(50);
    QCOMPARE(inspector.rebuildCount(), rebuilds);

    // Removed (its consumer rewired first), it shows as removed; the undo brings it back.
    auto removal = f.commit([&](Rewriter& r) {
      r.setInput(nodeOfOp(graph, "Relu"), 0, graph.findValue("x"));
      r.removeNode(softmax);
    });
    QTRY_VERIFY(inspector.section("Removed"));
    QVERIFY(!inspector.section("Node"));
    QVERIFY(inspector.row("Removed", QString::fromStdString(softmax->describe())));
    removal->undo();
    QTRY_VERIFY(inspector.section("Node"));
    QVERIFY(!inspector.section("Removed"));
    QCOMPARE(inspector.row("Attributes", "axis")->text(InspectorView::kValueColumn), QString("0"));
    attributeEdit->undo();
    QTRY_COMPARE(inspector.row("Attributes", "axis")->text(InspectorView::kValueColumn), QString("1"));
  }

  void theInspectorFollowsTheConsumersOfTheValueItShows() {
    Fixture f(parse(kChainModel));
    Graph& graph = f.model.graph();
    Value* a = graph.findValue("a");
    f.document.select(Selection{&graph, kNoNode, a});
    QCOMPARE(f.inspector.section("Consumers")->childCount(), 1);
    f.commit([&](Rewriter& r) { r.setInput(nodeOfOp(graph, "Sigmoid"), 0, a); });
    QTRY_COMPARE(f.inspector.section("Consumers")->childCount(), 2);
    f.commit([&](Rewriter& r) { r.renameValue(a, "probabilities"); });
    QTRY_COMPARE(f.inspector.row("Value", "name")->text(InspectorView::kValueColumn), QString("probabilities"));
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestViewEvents)
#include "tst_view_events.moc"
