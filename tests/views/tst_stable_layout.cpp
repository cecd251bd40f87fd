// A layout that stays put on the canvas: after a structural edit of the shown level (a pass step, an undo)
// the boxes the edit did not touch stay where they were, and the diff window's after side keeps the boxes
// its before side has. Writes the before/after screenshots of a real pass step for the README.
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QtTest>
#include <map>

#include "diffview/diff_window.h"
#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "ir/rewriter.h"
#include "layout/synthetic_models.h"
#include "model_document.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"

namespace onyx::views {
namespace {

constexpr int kLayoutTimeoutMs = 120000;

struct Fixture {
  explicit Fixture(std::shared_ptr<Model> shared)
      : model(*shared), document(std::move(shared), QStringLiteral("test.onnx")) {
    canvas.resize(1280, 720);
    canvas.show();
  }
  bool open() {
    QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
    canvas.setDocument(&document);
    return shown.wait(kLayoutTimeoutMs);
  }
  bool laidOutAfter(const std::function<void()>& step) {
    QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
    step();
    if (!shown.wait(kLayoutTimeoutMs)) return false;
    QTest::qWait(20);
    return !canvas.isLayingOut();
  }
  Model& model;
  ModelDocument document;
  GraphCanvas canvas;
};

std::map<std::string, QRectF> nodeBoxes(const GraphScene& scene) {
  std::map<std::string, QRectF> boxes;
  for (const BoxItem* box : scene.boxes())
    if (box->levelItem().kind == layout::ItemKind::Node) boxes[box->levelItem().key] = box->box();
  return boxes;
}

struct Stability {
  int unchanged = 0;
  int kept = 0;
  double share() const { return unchanged ? double(kept) / unchanged : 0; }
};

// Boxes of `after` that `before` has too, and how many of them stayed within a pixel.
Stability compare(const std::map<std::string, QRectF>& before, const std::map<std::string, QRectF>& after) {
  Stability s;
  for (const auto& [key, box] : after) {
    auto found = before.find(key);
    if (found == before.end()) continue;
    ++s.unchanged;
    QPointF moved = box.center() - found->second.center();
    if (std::abs(moved.x()) <= 1 && std::abs(moved.y()) <= 1) ++s.kept;
  }
  return s;
}

std::shared_ptr<Model> loadShared(const QString& path) {
  auto model = loadModel(QFile::encodeName(path).toStdString());
  return model ? std::shared_ptr<Model>(std::move(model).value()) : nullptr;
}

QString sharedModel(const QString& name) {
  return qEnvironmentVariable("ONYX_TEST_DATA", QStringLiteral(ONYX_DEFAULT_TEST_DATA)) + "/models/" + name +
         "/model.onnx";
}

}  // namespace

class TestStableLayout : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // One node of a 105-node level replaced in one transaction, then undone: the other boxes do not move.
  void aChangedNodeLeavesTheOthersInPlaceAndSoDoesItsUndo() {
    Fixture f(std::shared_ptr<Model>(layout::makeNetworkLike({.nodes = 130})));
    QVERIFY(f.model.graph().nodes().size() >= 100);
    QVERIFY(f.open());
    const auto before = nodeBoxes(*f.canvas.scene());
    QCOMPARE(before.size(), f.model.graph().nodes().size());
    Graph& graph = f.model.graph();
    Node* softmax = nullptr;
    for (Node* node : graph.nodes())
      if (node->opType() == "Softmax") softmax = node;  // the last one
    QVERIFY(softmax);
    const uint64_t kept = f.canvas.layoutService().stats().keptLayouts;
    std::shared_ptr<ChangeLog> log;
    QVERIFY(f.laidOutAfter([&] {
      Transaction transaction(f.model, "replace");
      Rewriter r(f.model);
      Node* sigmoid = r.addNode(graph,
                                {.opType = "Sigmoid", .inputs = {softmax->input(0)}, .outputNames = {"replaced"}},
                                softmax);
      r.setType(sigmoid->output(0), softmax->output(0)->type());
      r.replaceAllUsesWith(softmax->output(0), sigmoid->output(0));
      r.removeNode(softmax);
      log = transaction.commit();
    }));
    QCOMPARE(f.canvas.layoutService().stats().keptLayouts, kept + 1);
    const auto after = nodeBoxes(*f.canvas.scene());
    const Stability step = compare(before, after);
    QCOMPARE(step.unchanged, int(before.size()) - 1);
    QVERIFY2(step.share() >= 0.9, qPrintable(QString("%1 of %2 kept").arg(step.kept).arg(step.unchanged)));

    QVERIFY(f.laidOutAfter([&] { log->undo(); }));
    const Stability undo = compare(before, nodeBoxes(*f.canvas.scene()));
    QCOMPARE(undo.unchanged, int(before.size()));
    QVERIFY2(undo.share() >= 0.9, qPrintable(QString("%1 of %2 kept").arg(undo.kept).arg(undo.unchanged)));
  }

  // A real pass step on the canvas: elementwise-fusion on resnet18 (eight Add+Relu pairs fused). Writes
  // stable-layout-before.png and stable-layout-after.png (same view) for the README.
  void aRealPassStepKeepsTheUntouchedBoxes() {
    const QString path = sharedModel(QStringLiteral("resnet18"));
    if (!QFileInfo::exists(path)) QSKIP(qPrintable("test data not found: " + path + " (set ONYX_TEST_DATA)"));
    auto model = loadShared(path);
    QVERIFY(model);
    Fixture f(model);
    QVERIFY(f.open());
    const auto before = nodeBoxes(*f.canvas.scene());
    // Zoomed on the first residual Add, so the fused boxes are readable.
    const Node* firstAdd = nullptr;
    for (const Node* node : f.model.graph().nodes())
      if (!firstAdd && node->opType() == "Add") firstAdd = node;
    QVERIFY(firstAdd);
    f.canvas.view()->setTransform(QTransform::fromScale(0.9, 0.9));
    f.canvas.view()->centerOn(f.canvas.scene()->boxForNode(firstAdd->id())->box().center());
    QDir().mkpath(QStringLiteral(ONYX_BINARY_DIR "/screenshots"));
    f.canvas.grab().save(QStringLiteral(ONYX_BINARY_DIR "/screenshots/stable-layout-before.png"));

    passes::PassManager manager(f.model);
    auto pass = passes::createPass("elementwise-fusion");
    QVERIFY(pass);
    QVERIFY(f.laidOutAfter([&] { QVERIFY(manager.runPass(*pass).ok()); }));
    f.canvas.grab().save(QStringLiteral(ONYX_BINARY_DIR "/screenshots/stable-layout-after.png"));
    const auto after = nodeBoxes(*f.canvas.scene());
    QVERIFY(after.size() < before.size());
    const Stability step = compare(before, after);
    QVERIFY(step.unchanged > 30);
    QCOMPARE(step.kept, step.unchanged);
    QVERIFY(f.canvas.shownLayout()->keptItems > 0);
  }

  // The diff window between two steps: the after side keeps the boxes of the nodes the before side shows.
  void theDiffWindowsAfterSideFollowsItsBeforeSide() {
    std::shared_ptr<Model> before(layout::makeNetworkLike({.nodes = 130}));
    auto after = Rewriter::copyModel(*before);
    {
      Graph& graph = after->graph();
      Node* softmax = nullptr;
      for (Node* node : graph.nodes())
        if (node->opType() == "Softmax") softmax = node;
      Rewriter r(*after);
      Node* sigmoid = r.addNode(
          graph, {.opType = "Sigmoid", .inputs = {softmax->input(0)}, .outputNames = {"replaced"}}, softmax);
      r.setType(sigmoid->output(0), softmax->output(0)->type());
      r.replaceAllUsesWith(softmax->output(0), sigmoid->output(0));
      r.removeNode(softmax);
    }
    DiffWindow window(*before, *after, QStringLiteral("before"), QStringLiteral("after"), diff::MatchBy::NodeIds);
    window.show();
    auto waitFor = [](GraphCanvas& canvas) {
      if (canvas.shownLayout() && !canvas.isLayingOut()) return true;
      QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
      return shown.wait(kLayoutTimeoutMs);
    };
    QVERIFY(waitFor(*window.beforeCanvas()));
    QVERIFY(waitFor(*window.afterCanvas()));
    QVERIFY(window.afterCanvas()->shownLayout()->keptItems > 0);
    const Stability sides =
        compare(nodeBoxes(*window.beforeCanvas()->scene()), nodeBoxes(*window.afterCanvas()->scene()));
    QCOMPARE(sides.unchanged, int(before->graph().nodes().size()) - 1);
    QVERIFY2(sides.share() >= 0.9, qPrintable(QString("%1 of %2 kept").arg(sides.kept).arg(sides.unchanged)));
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestStableLayout)
#include "tst_stable_layout.moc"
