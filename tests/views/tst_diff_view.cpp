// The diff change list: rows, colours and stepping from change to change, offscreen.
#include <QListWidget>
#include <QSignalSpy>
#include <QtTest>

#include "diffview/diff_colors.h"
#include "diffview/diff_list_view.h"
#include "diffview/diff_window.h"
#include "graph/graph_canvas.h"
#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx::views {

class TestDiffView : public QObject {
  Q_OBJECT

 private:
  static std::shared_ptr<Model> chain() {
    auto model = parseModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}> {
  a = Relu(x)
  b = Sigmoid(a)
  c = Mul(b, w)
  d = Add(a, c)
  y = Transpose <perm = [0, 1]> (d)
}
)");
    if (!model) qFatal("%s", model.error().toString().c_str());
    return std::move(*model);
  }

  // The chain without its Sigmoid (#2), and a Neg (#6) feeding the Add (#4).
  static std::shared_ptr<Model> edited(const Model& original) {
    std::shared_ptr<Model> copy = Rewriter::copyModel(original);
    Rewriter rw(*copy);
    Graph& g = copy->graph();
    Node* sigmoid = g.findValue("b")->producer();
    rw.replaceAllUsesWith(sigmoid->output(0), g.findValue("a"));
    rw.removeNode(sigmoid);
    Node* add = g.findValue("d")->producer();
    Node* neg = rw.addNode(g, {.opType = "Neg", .inputs = {g.findValue("x")}, .outputNames = {"n"}}, add);
    rw.setInput(add, 0, neg->output(0));
    return copy;
  }

  static bool waitForLevel(GraphCanvas& canvas) {
    if (canvas.shownLayout() && !canvas.isLayingOut()) return true;
    QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
    return shown.wait(60000);
  }

  static QColor rowBackground(const DiffListView& view, int row) {
    return view.list()->item(row)->background().color();
  }

 private Q_SLOTS:
  void listsAndColoursTheChanges() {
    auto before = chain();
    DiffListView view;
    view.compare(before, edited(*before), diff::MatchBy::NodeIds);
    QCOMPARE(view.summaryText(), QString("1 added, 1 removed, 2 changed nodes"));
    QCOMPARE(view.changeCount(), 4);
    QCOMPARE(view.list()->item(0)->text(), QString("- node Sigmoid (#2)"));
    QCOMPARE(view.list()->item(1)->text(), QString("+ node Neg (#6)"));
    QCOMPARE(view.list()->item(2)->text(), QString("~ node Mul (#3): input 0 'b' -> 'a'"));
    QCOMPARE(view.list()->item(3)->text(), QString("~ node Add (#4): input 0 'a' -> 'n'"));
    QCOMPARE(rowBackground(view, 0).rgb(), diffToneColor(DiffTone::Removed).rgb());
    QCOMPARE(rowBackground(view, 1).rgb(), diffToneColor(DiffTone::Added).rgb());
    QCOMPARE(rowBackground(view, 2).rgb(), diffToneColor(DiffTone::Changed).rgb());
    // The overlay colours of the nodes on each side.
    const diff::ModelDiff& d = view.diff();
    QCOMPARE(nodeStatusColor(d.statusBefore(2)), diffToneColor(DiffTone::Removed));
    QCOMPARE(nodeStatusColor(d.statusAfter(6)), diffToneColor(DiffTone::Added));
    QCOMPARE(nodeStatusColor(d.statusAfter(4)), diffToneColor(DiffTone::Changed));
    QVERIFY(!nodeStatusColor(d.statusAfter(5)).isValid());  // Transpose is unchanged
    QVERIFY(!nodeStatusColor(d.statusBefore(1)).isValid());
  }

  void stepsFromChangeToChange() {
    auto before = chain();
    DiffListView view;
    view.compare(before, edited(*before), diff::MatchBy::NodeIds);
    QSignalSpy activated(&view, &DiffListView::changeActivated);
    QCOMPARE(view.currentChange(), -1);
    view.nextChange();
    QCOMPARE(view.currentChange(), 0);
    view.nextChange();
    view.nextChange();
    QCOMPARE(view.currentChange(), 2);
    view.previousChange();
    QCOMPARE(view.currentChange(), 1);
    view.nextChange();
    view.nextChange();
    view.nextChange();  // stays on the last change
    QCOMPARE(view.currentChange(), 3);
    QCOMPARE(activated.count(), 6);  // rows 0, 1, 2, 1, 2, 3
    // Each step names the nodes concerned on both sides: the removed Sigmoid, the added Neg, the Add.
    QCOMPARE(activated.at(0).at(1).value<NodeId>(), NodeId(2));
    QCOMPARE(activated.at(0).at(2).value<NodeId>(), kNoNode);
    QCOMPARE(activated.at(3).at(1).value<NodeId>(), kNoNode);
    QCOMPARE(activated.at(3).at(2).value<NodeId>(), NodeId(6));
    QCOMPARE(activated.at(5).at(1).value<NodeId>(), NodeId(4));
    QCOMPARE(activated.at(5).at(2).value<NodeId>(), NodeId(4));
  }

  void unchangedNodesAreGreySoOpColoursNeverReadAsChanges() {
    auto before = chain();
    DiffWindow window(*before, *edited(*before), "before", "after", diff::MatchBy::NodeIds);
    window.show();
    QVERIFY(waitForLevel(*window.beforeCanvas()));
    QVERIFY(waitForLevel(*window.afterCanvas()));
    // Relu (#1) is unchanged; its op colour is a red like "removed". It is drawn grey on both sides.
    for (GraphCanvas* canvas : {window.beforeCanvas(), window.afterCanvas()}) {
      BoxItem* relu = canvas->scene()->boxForNode(1);
      QVERIFY(relu);
      const QColor fill = relu->shownFill();
      QVERIFY(fill != diffToneColor(DiffTone::Removed));
      QVERIFY(fill != diffToneColor(DiffTone::Added));
      QCOMPARE(fill.hslSaturation(), 0);
    }
    // The changes keep their colours: the removed Sigmoid, the added Neg.
    QCOMPARE(window.beforeCanvas()->scene()->boxForNode(2)->shownFill(), diffToneColor(DiffTone::Removed));
    QCOMPARE(window.afterCanvas()->scene()->boxForNode(6)->shownFill(), diffToneColor(DiffTone::Added));
  }

  void escapeAndCtrlWCloseTheDiffWindow() {
    auto before = chain();
    auto after = edited(*before);
    for (const QKeySequence& key : {QKeySequence(Qt::Key_Escape), QKeySequence(Qt::CTRL | Qt::Key_W)}) {
      DiffWindow window(*before, *after, "before", "after", diff::MatchBy::NodeIds);
      window.show();
      window.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&window));
      QVERIFY(window.isVisible());
      QTest::keySequence(&window, key);
      QVERIFY2(!window.isVisible(), qPrintable(key.toString()));
    }
  }

  void identicalModelsListNothing() {
    auto model = chain();
    DiffListView view;
    view.compare(model, model, diff::MatchBy::Structure);
    QCOMPARE(view.changeCount(), 0);
    QCOMPARE(view.summaryText(), QString("0 added, 0 removed, 0 changed nodes"));
    view.nextChange();
    QCOMPARE(view.currentChange(), -1);
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestDiffView)
#include "tst_diff_view.moc"
