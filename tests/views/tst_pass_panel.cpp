// The pass panel and the diff window over real documents: applying passes (to the model or a scope),
// undo/redo through the QUndoStack, the default pipeline with numeric checks on a shared model, comparing
// steps side by side and in overlay mode, and Save As from the main window; Step Into one rewrite at a time
// with the Measure chart, and its highlight on the main window's canvas.
#include <QAction>
#include <QChart>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "diffview/diff_colors.h"
#include "diffview/diff_list_view.h"
#include "diffview/diff_window.h"
#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "gui/main_window.h"
#include "inspector_view.h"
#include "ir/module_path.h"
#include "model_document.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "passes/pass_panel.h"
#include "passes/pass_session.h"
#include "passes/step_chart.h"
#include "support/test_data.h"

namespace onyx::views {
namespace {

constexpr int kRunTimeoutMs = 120000;
constexpr int kLayoutTimeoutMs = 60000;

// An Identity in each of two scopes, and a node nothing uses.
const char* const kTwoScopes = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) {
  a = Identity(x)
  b = Relu(a)
  c = Identity(b)
  y = Neg(c)
  unused = Exp(x)
})";

std::shared_ptr<Model> twoScopesModel() {
  auto parsed = parseModelText(kTwoScopes);
  if (!parsed) return nullptr;
  std::shared_ptr<Model> model(std::move(*parsed));
  // The text syntax has no node names: give them exporter-style scopes.
  Rewriter rewriter(*model);
  const char* names[] = {"/a/Identity", "/a/Relu", "/b/Identity", "/b/Neg", "/c/Exp"};
  int i = 0;
  for (Node* node : model->graph().nodes()) rewriter.renameNode(node, names[i++]);
  return model;
}

const Node* nodeNamed(const Model& model, const std::string& name) {
  for (const Node* node : model.graph().nodes())
    if (node->name() == name) return node;
  return nullptr;
}

QTreeWidgetItem* catalogueItem(PassPanel& panel, const QString& pass) {
  const auto items = panel.catalogue()->findItems(pass, Qt::MatchExactly, 0);
  return items.isEmpty() ? nullptr : items.front();
}

// Applies `pass` through the panel's Apply button and waits for the run to finish.
bool applyFromPanel(PassPanel& panel, const QString& pass) {
  QTreeWidgetItem* item = catalogueItem(panel, pass);
  if (!item) return false;
  panel.catalogue()->setCurrentItem(item);
  QSignalSpy finished(panel.session(), &PassSession::finished);
  QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
  return finished.wait(kRunTimeoutMs);
}

bool runPipelineFromPanel(PassPanel& panel) {
  QSignalSpy finished(panel.session(), &PassSession::finished);
  QTest::mouseClick(panel.pipelineButton(), Qt::LeftButton);
  return finished.wait(kRunTimeoutMs) && finished.front().at(1).toString().isEmpty();
}

// Two MatMul + Add pairs: matmul-add-to-gemm makes two rewrites, each a new Gemm.
const char* const kTwoDenseLayers = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[5, 4] x) => (float[5, 2] y)
<float[4, 3] w1 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[3] b1 = {0.5, -1, 2},
 float[3, 2] w2 = {1, -1, 0.5, 2, -2, 1}, float[2] b2 = {0.25, -0.25}>
{
  m1 = MatMul(x, w1)
  h = Add(m1, b1)
  r = Relu(h)
  m2 = MatMul(r, w2)
  y = Add(m2, b2)
})";

std::shared_ptr<Model> parsedModel(const char* text) {
  auto parsed = parseModelText(text);
  return parsed ? std::shared_ptr<Model>(std::move(*parsed)) : nullptr;
}

// The op types of `nodes` in `model`, sorted; "gone" for a node not there.
QStringList opTypesOf(const Model& model, const std::vector<NodeId>& nodes) {
  QStringList ops;
  for (NodeId id : nodes) {
    const Node* node = model.graph().findNode(id);
    ops << (node ? QString::fromStdString(node->opType()) : QStringLiteral("gone"));
  }
  ops.sort();
  return ops;
}

// Clicks the point of `series` at x = `step` where the chart draws it.
void clickChartPoint(StepChart& chart, QLineSeries* series, int step) {
  for (const QPointF& point : series->points()) {
    if (std::lround(point.x()) != step) continue;
    const QPointF inChart = chart.chart()->mapToPosition(point, series);
    const QPoint inView = chart.mapFromScene(chart.chart()->mapToScene(inChart));
    QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, inView);
    return;
  }
}

struct PanelFixture {
  explicit PanelFixture(std::shared_ptr<Model> model, const QString& path = QStringLiteral("test.onnx"))
      : document(std::move(model), path), panel(stack) {
    panel.setDocument(&document);
    panel.show();
  }
  ModelDocument document;
  QUndoStack stack;
  PassPanel panel;
};

std::shared_ptr<Model> loadSharedModel(const std::string& name) {
  auto path = testing::sharedPath("models/" + name + "/model.onnx");
  if (path.empty()) return nullptr;
  auto model = loadModel(path);
  return model ? std::shared_ptr<Model>(std::move(*model)) : nullptr;
}

bool waitForLevel(GraphCanvas& canvas) {
  if (canvas.shownLayout() && !canvas.isLayingOut()) return true;
  QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
  return shown.wait(kLayoutTimeoutMs);
}

}  // namespace

class TestPassPanel : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void catalogueListsEveryRegisteredPass() {
    QUndoStack stack;
    PassPanel panel(stack);
    QCOMPARE(panel.catalogue()->topLevelItemCount(), static_cast<int>(passes::passRegistry().size()));
    QTreeWidgetItem* item = catalogueItem(panel, "identity-elimination");
    QVERIFY(item);
    QVERIFY(!item->text(1).isEmpty());  // the summary
  }

  void applyShowsCountersAndUndoRedoRestoreExactly() {
    PanelFixture f(twoScopesModel());
    const std::string original = printModelText(f.document.model());
    QVERIFY(applyFromPanel(f.panel, "identity-elimination"));
    const std::string applied = printModelText(f.document.model());
    QCOMPARE(passes::countNodes(f.document.model()), size_t{3});
    QCOMPARE(f.stack.count(), 1);

    QTreeWidget* history = f.panel.history();
    QCOMPARE(history->topLevelItemCount(), 2);  // the original model and the step
    QTreeWidgetItem* step = history->topLevelItem(1);
    QCOMPARE(step->text(1), QString("identity-elimination"));
    QCOMPARE(step->text(2), QString("5 → 3"));
    QVERIFY2(step->text(5).contains("identities-removed: 2"), qPrintable(step->text(5)));

    f.stack.undo();
    QCOMPARE(printModelText(f.document.model()), original);
    QVERIFY(!f.panel.session()->isApplied(0));
    f.stack.redo();
    QCOMPARE(printModelText(f.document.model()), applied);
    QVERIFY(f.panel.session()->isApplied(0));

    // A pass that changes nothing is in the history but not on the undo stack.
    QVERIFY(applyFromPanel(f.panel, "identity-elimination"));
    QCOMPARE(history->topLevelItemCount(), 3);
    QCOMPARE(history->topLevelItem(2)->text(5), QString("no change"));
    QCOMPARE(f.stack.count(), 1);

    // A new step after an undo replaces the undone ones.
    f.stack.undo();
    QVERIFY(applyFromPanel(f.panel, "dead-code-elimination"));
    QCOMPARE(f.panel.session()->steps().size(), size_t{1});
    QCOMPARE(f.panel.session()->steps().front().record.pass, std::string("dead-code-elimination"));
    QVERIFY(!nodeNamed(f.document.model(), "/c/Exp"));
    QVERIFY(nodeNamed(f.document.model(), "/a/Identity"));
  }

  // Measure shows latency, peak memory and error columns; the steps save as a recipe that loads and replays
  // to the same model; Bisect answers from the dock.
  void measureRecipesAndBisectFromTheDock() {
    PanelFixture f(twoScopesModel());
    QVERIFY(f.panel.history()->isColumnHidden(6));
    QVERIFY(!f.panel.bisectButton()->isEnabled());
    f.panel.measureOption()->setChecked(true);
    QVERIFY(applyFromPanel(f.panel, "identity-elimination"));
    QVERIFY(applyFromPanel(f.panel, "dead-code-elimination"));
    QTreeWidget* history = f.panel.history();
    QVERIFY(!history->isColumnHidden(6));
    QCOMPARE(history->headerItem()->text(6), QString("Latency"));
    for (int row = 0; row < 3; ++row) {
      QTreeWidgetItem* item = history->topLevelItem(row);
      QVERIFY2(item->text(6).endsWith(" ms"), qPrintable(item->text(6)));
      QVERIFY2(item->text(7).endsWith(" KiB"), qPrintable(item->text(7)));
      QCOMPARE(item->text(8), QString("0"));  // both passes keep the outputs exactly
    }
    const std::string optimized = printModelText(f.document.model());

    QVERIFY(f.panel.bisectButton()->isEnabled());
    QVERIFY2(f.panel.bisectSteps().startsWith("Bisect: no step breaks the outputs (2 steps)"),
             qPrintable(f.panel.statusLabel()->text()));

    QTemporaryDir folder;
    const QString recipe = folder.filePath("steps.json");
    QVERIFY2(f.panel.saveRecipe(recipe).startsWith("saved"), qPrintable(recipe));
    PanelFixture replay(twoScopesModel());
    QSignalSpy finished(replay.panel.session(), &PassSession::finished);
    QCOMPARE(replay.panel.loadRecipe(recipe), QString());
    QVERIFY(finished.wait(kRunTimeoutMs));
    QCOMPARE(replay.panel.session()->steps().size(), size_t{2});
    QCOMPARE(printModelText(replay.document.model()), optimized);
    QVERIFY(replay.panel.history()->isColumnHidden(6));  // loaded without Measure checked
    QVERIFY(!replay.panel.loadRecipe(folder.filePath("missing.json")).isEmpty());
  }

  // Step Into: a click shows the next rewrite's match, the next applies it as its own undoable step and
  // shows what it made; with Measure the chart plots the history's Measure columns over the steps in
  // effect, and clicking a point selects its step.
  void stepIntoAppliesOneRewriteAtATimeWithTheMeasureChart() {
    PanelFixture f(parsedModel(kTwoDenseLayers));
    const std::string original = printModelText(f.document.model());
    auto whole = parsedModel(kTwoDenseLayers);
    QVERIFY(whole);
    {
      passes::PassManager manager(*whole);
      auto pass = passes::createPass("matmul-add-to-gemm");
      QVERIFY(manager.runPass(*pass).ok());
    }
    f.panel.measureOption()->setChecked(true);
    f.panel.catalogue()->setCurrentItem(catalogueItem(f.panel, "matmul-add-to-gemm"));
    PassSession& session = *f.panel.session();
    QSignalSpy focusChanged(&f.panel, &PassPanel::rewriteFocusChanged);
    using Phase = RewriteFocus::Phase;

    // The first match: the first Add and its MatMul, shown, not applied.
    QTest::mouseClick(f.panel.stepIntoButton(), Qt::LeftButton);
    QCOMPARE(focusChanged.count(), 1);
    QCOMPARE(session.rewriteFocus().phase, Phase::Matched);
    QCOMPARE(session.rewriteFocus().rewrite, 1);
    QCOMPARE(session.rewriteFocus().rewrites, 2);
    QCOMPARE(opTypesOf(f.document.model(), session.rewriteFocus().nodes), QStringList({"Add", "MatMul"}));
    const std::vector<NodeId> firstMatch = session.rewriteFocus().nodes;
    QVERIFY2(f.panel.statusLabel()->text().contains("rewrite 1 of 2 matches"),
             qPrintable(f.panel.statusLabel()->text()));
    QCOMPARE(printModelText(f.document.model()), original);
    QCOMPARE(f.stack.count(), 0);

    // Applied: one undo entry, the matched nodes gone, the new Gemm shown.
    QTest::mouseClick(f.panel.stepIntoButton(), Qt::LeftButton);
    QCOMPARE(session.rewriteFocus().phase, Phase::Applied);
    QCOMPARE(opTypesOf(f.document.model(), session.rewriteFocus().nodes), QStringList({"Gemm"}));
    QCOMPARE(opTypesOf(f.document.model(), firstMatch), QStringList({"gone", "gone"}));
    QCOMPARE(f.stack.count(), 1);
    QCOMPARE(passes::countNodes(f.document.model()), size_t{4});
    const std::string afterFirst = printModelText(f.document.model());
    QTreeWidget* history = f.panel.history();
    QCOMPARE(history->topLevelItemCount(), 2);
    QCOMPARE(history->topLevelItem(1)->text(1), QString("matmul-add-to-gemm › rewrite 1/2"));
    QVERIFY2(history->topLevelItem(1)->text(5).startsWith("rewrite 1 of 2 at Add"),
             qPrintable(history->topLevelItem(1)->text(5)));

    // The second rewrite: its match, then its Gemm; the model is the pass's whole result.
    QTest::mouseClick(f.panel.stepIntoButton(), Qt::LeftButton);
    QCOMPARE(session.rewriteFocus().phase, Phase::Matched);
    QCOMPARE(session.rewriteFocus().rewrite, 2);
    QCOMPARE(opTypesOf(f.document.model(), session.rewriteFocus().nodes), QStringList({"Add", "MatMul"}));
    QCOMPARE(f.stack.count(), 1);
    QTest::mouseClick(f.panel.stepIntoButton(), Qt::LeftButton);
    QCOMPARE(session.rewriteFocus().phase, Phase::Applied);
    QCOMPARE(f.stack.count(), 2);
    QCOMPARE(printModelText(f.document.model()), printModelText(*whole));
    QCOMPARE(focusChanged.count(), 4);
    QCOMPARE(session.recipe().steps.size(), size_t{1});
    QVERIFY(!session.recipe().steps.front().options.rewriteLimit);

    // The chart: one point per measured step in effect, equal to the history's Measure columns.
    StepChart* chart = f.panel.stepChart();
    QVERIFY(chart->isVisible());
    QCOMPARE(chart->latencySeries()->count(), 3);  // the original model and the two rewrites
    for (int row = 0; row < 3; ++row) {
      QTreeWidgetItem* item = history->topLevelItem(row);
      const passes::StepCost& cost =
          row == 0 ? *session.baselineCost() : *session.steps()[row - 1].record.cost;
      const QPointF latency = chart->latencySeries()->at(row);
      const QPointF peak = chart->peakSeries()->at(row);
      const QPointF nodes = chart->nodeSeries()->at(row);
      QCOMPARE(latency.x(), double(row));
      QCOMPARE(latency.y(), cost.medianMs);
      QCOMPARE(QStringLiteral("%1 ms").arg(latency.y(), 0, 'f', 2), item->text(6));
      QCOMPARE(QStringLiteral("%1 KiB").arg(peak.y(), 0, 'f', 0), item->text(7));
      QCOMPARE(peak.y(), double(cost.peakBytes) / 1024.0);
      QCOMPARE(nodes.y(), double(cost.nodes));
      QCOMPARE(nodes.y(), double(5 - row));
      if (row > 0) QVERIFY2(item->text(2).endsWith(QString::number(5 - row)), qPrintable(item->text(2)));
    }
    // Clicking the first rewrite's point selects its row.
    QSignalSpy clicked(chart, &StepChart::stepClicked);
    clickChartPoint(*chart, chart->nodeSeries(), 1);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().at(0).toInt(), 0);
    QVERIFY(history->currentItem());
    QCOMPARE(history->currentItem()->text(0), QString("1"));

    // Undo takes back one rewrite at a time; the chart follows; the recipe keeps the one applied.
    f.stack.undo();
    QCOMPARE(printModelText(f.document.model()), afterFirst);
    QCOMPARE(session.rewriteFocus().phase, Phase::None);  // the focus no longer describes the model
    QCOMPARE(chart->latencySeries()->count(), 2);
    QCOMPARE(session.recipe().steps.size(), size_t{1});
    QCOMPARE(session.recipe().steps.front().options.rewriteLimit, std::optional<int64_t>(1));
    f.stack.undo();
    QCOMPARE(printModelText(f.document.model()), original);
    QCOMPARE(chart->latencySeries()->count(), 1);
    f.stack.redo();
    f.stack.redo();
    QCOMPARE(printModelText(f.document.model()), printModelText(*whole));
    QCOMPARE(chart->latencySeries()->count(), 3);

    // Stepping again splits the pass afresh: nothing left to rewrite.
    QVERIFY2(f.panel.stepIntoSelectedPass().contains("changes nothing"),
             qPrintable(f.panel.statusLabel()->text()));
    QCOMPARE(f.stack.count(), 2);
  }

  // The inspector names the nodes a fused node came from.
  void inspectorShowsWhereAFusedNodeCameFrom() {
    auto parsed = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 2, 4, 4] x) => (float[1, 2, 4, 4] y)
  <float[2, 2, 1, 1] w = {1, 0, 0, 1}, float[2] scale = {2, 3}, float[2] shift = {0.5, -1},
   float[2] mean = {0.1, 0.2}, float[2] var = {1, 4}> {
  c = Conv(x, w)
  y = BatchNormalization(c, scale, shift, mean, var)
})");
    QVERIFY(parsed.ok());
    std::shared_ptr<Model> model(std::move(*parsed));
    NodeId conv = kNoNode, bn = kNoNode;
    for (const Node* node : model->graph().nodes()) (node->opType() == "Conv" ? conv : bn) = node->id();
    PanelFixture f(model);
    QVERIFY(applyFromPanel(f.panel, "conv-bn-fusion"));
    const Node* fused = f.document.model().graph().findNode(conv);
    QVERIFY(fused);
    InspectorView inspector;
    inspector.setDocument(&f.document);
    f.document.select(Selection{fused->graph(), fused->id(), nullptr});
    QTreeWidgetItem* origin = inspector.row("Node", "origin");
    QVERIFY(origin);
    QCOMPARE(origin->text(InspectorView::kValueColumn),
             QString("fused from Conv #%1, BatchNormalization #%2").arg(conv).arg(bn));
  }

  void applyToTheSelectedScopeOnly() {
    PanelFixture f(twoScopesModel());
    const Node* identityA = nodeNamed(f.document.model(), "/a/Identity");
    QVERIFY(identityA);
    f.document.select(Selection{identityA->graph(), identityA->id(), nullptr});
    QCOMPARE(f.panel.scopeChoice()->count(), 2);
    f.panel.scopeChoice()->setCurrentIndex(1);
    QCOMPARE(f.panel.chosenScope(), QString("/a"));
    QVERIFY(applyFromPanel(f.panel, "identity-elimination"));
    QVERIFY(!nodeNamed(f.document.model(), "/a/Identity"));
    QVERIFY(nodeNamed(f.document.model(), "/b/Identity"));  // outside the scope
    QCOMPARE(f.panel.history()->topLevelItem(1)->text(1), QString("identity-elimination on /a"));
  }

  // A dynamo export's nodes carry their module in metadata, not in their names: the scope choices are the
  // selection's module path and each module around it, and a pass applied to one module leaves the others.
  void applyToAModuleOfADynamoExport() {
    auto loaded = loadModel(std::string(ONYX_SOURCE_DIR) + "/tests/data/dynamo/tiny_llama_dynamo.onnx");
    QVERIFY(loaded);
    PanelFixture f(std::shared_ptr<Model>(std::move(*loaded)));
    auto inModule = [&](const std::string& module) {
      size_t count = 0;
      for (const Node* node : f.document.model().graph().nodes())
        count += scopePathOf(*node).starts_with(module + "/") || scopePathOf(*node) == module;
      return count;
    };
    const Node* selected = nullptr;
    for (const Node* node : f.document.model().graph().nodes())
      if (!selected && scopePathOf(*node).starts_with("/model/layers.1/self_attn/")) selected = node;
    QVERIFY(selected);
    QVERIFY(selected->scopePath().empty());  // its name ("node_...") has no scope
    f.document.select(Selection{selected->graph(), selected->id(), nullptr});
    QStringList choices;
    for (int i = 0; i < f.panel.scopeChoice()->count(); ++i) choices << f.panel.scopeChoice()->itemData(i).toString();
    QVERIFY2(choices.size() >= 4, qPrintable(choices.join(", ")));
    QCOMPARE(choices.front(), QString());  // the whole model
    QCOMPARE(choices[1], QString::fromStdString(scopePathOf(*selected)));
    QVERIFY(choices.contains("/model/layers.1/self_attn"));
    QCOMPARE(choices.back(), QString("/model"));
    f.panel.scopeChoice()->setCurrentIndex(choices.indexOf("/model/layers.1"));
    QCOMPARE(f.panel.chosenScope(), QString("/model/layers.1"));
    const size_t layer0 = inModule("/model/layers.0"), layer1 = inModule("/model/layers.1");
    QVERIFY(layer0 == layer1 && layer1 > 0);
    QVERIFY(applyFromPanel(f.panel, "elementwise-fusion"));
    QVERIFY2(inModule("/model/layers.1") < layer1, qPrintable(QString::number(inModule("/model/layers.1"))));
    QCOMPARE(inModule("/model/layers.0"), layer0);  // outside the scope
    QCOMPARE(f.panel.history()->topLevelItem(1)->text(1), QString("elementwise-fusion on /model/layers.1"));
  }

  void defaultPipelineOnASharedModelWithNumericChecks() {
    auto model = loadSharedModel("squeezenet1_1");
    if (!model) QSKIP("shared model squeezenet1_1 not found (set ONYX_TEST_DATA)");
    const QString path = QString::fromStdString(testing::sharedPath("models/squeezenet1_1/model.onnx").string());
    PanelFixture f(model, path);
    // Its image size is symbolic: the check runs on the test_data_set beside it, offered first.
    QVERIFY(f.panel.verifyInputs()->currentData().toString().endsWith("test_data_set_0"));
    const size_t before = passes::countNodes(f.document.model());
    f.panel.verifyOption()->setChecked(true);
    QSignalSpy progress(f.panel.session(), &PassSession::progress);
    QVERIFY(runPipelineFromPanel(f.panel));
    QVERIFY(progress.count() >= static_cast<int>(passes::defaultPipeline().size()));
    QCOMPARE(f.panel.session()->steps().size(), passes::defaultPipeline().size());
    QVERIFY(passes::countNodes(f.document.model()) < before);
    int checked = 0;
    for (const PassSession::Step& step : f.panel.session()->steps()) {
      if (!step.record.changed) continue;
      QVERIFY(step.record.verification.has_value());
      QVERIFY2(step.record.verification->ran, step.record.verification->notRunReason.c_str());
      QVERIFY(step.record.verification->ok());
      ++checked;
    }
    QVERIFY(checked > 0);
    // Undo everything: the model is the original again.
    while (f.stack.canUndo()) f.stack.undo();
    QCOMPARE(printModelText(f.document.model()), printModelText(*f.panel.session()->baseline()));
  }

  void diffWindowComparesStepsSideBySideAndInOverlay() {
    PanelFixture f(twoScopesModel());
    QVERIFY(applyFromPanel(f.panel, "identity-elimination"));
    QVERIFY(applyFromPanel(f.panel, "dead-code-elimination"));
    // Select the original row and the last step: the panel asks for their diff.
    QSignalSpy compare(&f.panel, &PassPanel::compareRequested);
    f.panel.history()->topLevelItem(0)->setSelected(true);
    f.panel.history()->topLevelItem(2)->setSelected(true);
    QTest::mouseClick(f.panel.compareButton(), Qt::LeftButton);
    QCOMPARE(compare.count(), 1);
    auto before = compare.front().at(0).value<std::shared_ptr<const Model>>();
    auto after = compare.front().at(1).value<std::shared_ptr<const Model>>();
    QVERIFY(before && after);
    QCOMPARE(passes::countNodes(*before), size_t{5});
    QCOMPARE(passes::countNodes(*after), size_t{2});

    DiffWindow window(*before, *after, "original", "after step 2", diff::MatchBy::NodeIds);
    window.show();
    QVERIFY(waitForLevel(*window.beforeCanvas()));
    QVERIFY(waitForLevel(*window.afterCanvas()));
    QCOMPARE(window.diff().summary.nodesRemoved, size_t{3});
    QVERIFY2(window.changes()->summaryText().contains("3 removed"), qPrintable(window.changes()->summaryText()));

    // Removed nodes are red on the before side, changed ones amber.
    const Model& beforeModel = window.beforeDocument().model();
    const Node* removed = nodeNamed(beforeModel, "/c/Exp");
    const Node* kept = nodeNamed(beforeModel, "/a/Relu");
    BoxItem* removedBox = window.beforeCanvas()->scene()->boxForNode(removed->id());
    BoxItem* keptBox = window.beforeCanvas()->scene()->boxForNode(kept->id());
    QVERIFY(removedBox && keptBox);
    QVERIFY(removedBox->overlay().has_value());
    QCOMPARE(removedBox->overlay()->fill, diffToneColor(DiffTone::Removed));
    QVERIFY(keptBox->overlay().has_value());  // its input was an Identity's output: rewired, changed
    QCOMPARE(keptBox->overlay()->fill, diffToneColor(DiffTone::Changed));

    // Selecting on one side selects the match on the other.
    window.beforeDocument().select(Selection{kept->graph(), kept->id(), nullptr});
    const Node* keptAfter = nodeNamed(window.afterDocument().model(), "/a/Relu");
    QCOMPARE(window.afterDocument().selection().node, keptAfter->id());
    window.afterDocument().clearSelection();
    window.afterDocument().select(Selection{keptAfter->graph(), keptAfter->id(), nullptr});
    QCOMPARE(window.beforeDocument().selection().node, kept->id());

    // Stepping goes through every change; in overlay mode a removed node shows the before graph.
    window.setOverlayMode(true);
    QVERIFY(window.isOverlayMode());
    const int changes = window.changes()->changeCount();
    QVERIFY(changes >= 3);
    int removedSeen = 0;
    window.changes()->selectChange(0);
    for (int i = 0; i < changes; ++i) {
      QCOMPARE(window.changes()->currentChange(), i);
      const diff::Change& change = window.diff().changes[i];
      if (change.kind == diff::ChangeKind::NodeRemoved) {
        ++removedSeen;
        QVERIFY(window.isShowingBefore());
        QCOMPARE(window.beforeDocument().selection().node, change.beforeNode);
        QVERIFY(window.beforeCanvas()->isVisibleTo(&window));
        QVERIFY(!window.afterCanvas()->isVisibleTo(&window));
      }
      window.changes()->nextChange();
    }
    QCOMPARE(removedSeen, 3);
  }

  // Step Into in the main window paints the match, then the new node, on the canvas; on bert_small the
  // dock with its chart is the README's screenshot.
  void stepIntoPaintsTheCanvasOfTheMainWindow() {
    auto model = loadSharedModel("bert_small");
    if (!model) QSKIP("shared model bert_small not found (set ONYX_TEST_DATA)");
    const QString path = QString::fromStdString(testing::sharedPath("models/bert_small/model.onnx").string());
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(path);
    QVERIFY(loaded.wait(kRunTimeoutMs));
    GraphCanvas& canvas = *window.canvas();
    QVERIFY(waitForLevel(canvas));
    PassPanel& panel = *window.passPanel();
    panel.measureOption()->setChecked(true);
    panel.catalogue()->setCurrentItem(catalogueItem(panel, "elementwise-fusion"));
    const PassSession& session = *panel.session();
    // The overlay label of node `id`'s box, once a level showing it is on screen (the edit's new layout and
    // the focus that opens its group come from the event loop).
    auto overlayLabel = [&](NodeId id) -> QString {
      QElapsedTimer waited;
      waited.start();
      while (waited.elapsed() < kLayoutTimeoutMs) {
        QTest::qWait(20);
        if (canvas.isLayingOut() || !canvas.shownLayout()) continue;
        if (BoxItem* box = canvas.scene()->boxForNode(id))
          return box->overlay() ? box->overlay()->label : QStringLiteral("no overlay");
      }
      return QStringLiteral("no box");
    };

    constexpr int kApplied = 3;
    for (int rewrite = 1; rewrite <= kApplied + 1; ++rewrite) {
      panel.stepIntoSelectedPass();
      QCOMPARE(session.rewriteFocus().phase, RewriteFocus::Phase::Matched);
      QCOMPARE(session.rewriteFocus().rewrite, rewrite);
      // The root is focused (its group opened) and painted as matched, with the rest of the match.
      QCOMPARE(overlayLabel(session.rewriteFocus().nodes.front()), QString("match"));
      if (rewrite > kApplied) break;
      panel.stepIntoSelectedPass();
      QCOMPARE(session.rewriteFocus().phase, RewriteFocus::Phase::Applied);
      // The call of the fused function, in the main graph (the rest: the body of a function it made).
      std::vector<NodeId> inMainGraph;
      for (NodeId id : session.rewriteFocus().nodes)
        if (window.model()->graph().findNode(id)) inMainGraph.push_back(id);
      QCOMPARE(inMainGraph.size(), size_t{1});
      QCOMPARE(window.model()->graph().findNode(inMainGraph.front())->domain(), std::string("onyx.fused"));
      QCOMPARE(overlayLabel(inMainGraph.front()), QString("new"));
    }
    QCOMPARE(session.steps().size(), size_t(kApplied));
    QVERIFY(panel.stepChart()->isVisible());
    QCOMPARE(panel.stepChart()->latencySeries()->count(), kApplied + 1);

    // The screenshot: the passes dock alone in the right column, its history and chart given most of it.
    QDockWidget* passDock = window.findChild<QDockWidget*>("passDock");
    QDockWidget* inspectorDock = window.findChild<QDockWidget*>("inspectorDock");
    QVERIFY(passDock && inspectorDock);
    inspectorDock->hide();
    window.resizeDocks({passDock}, {660}, Qt::Horizontal);
    if (auto* splitter = panel.findChild<QSplitter*>()) splitter->setSizes({300, 600});
    QTest::qWait(300);
    QDir().mkpath(QStringLiteral(ONYX_BINARY_DIR "/screenshots"));
    QVERIFY(window.grab().save(QStringLiteral(ONYX_BINARY_DIR "/screenshots/pass-dock-step-into.png")));

    // Stopping forgets the focus, and the canvas its paint.
    const NodeId matchedRoot = session.rewriteFocus().nodes.front();
    window.passPanel()->session()->stopStepping();
    QCOMPARE(session.rewriteFocus().phase, RewriteFocus::Phase::None);
    QCOMPARE(overlayLabel(matchedRoot), QString("no overlay"));
  }

  void mainWindowUndoShortcutsSaveAsAndCompare() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = dir.filePath("two_scopes.onnx");
    QVERIFY(static_cast<bool>(saveModel(*twoScopesModel(), QFile::encodeName(source).toStdString())));
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(source);
    QVERIFY(loaded.wait(kRunTimeoutMs));

    QAction* undo = nullptr;
    QAction* redo = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_Z)) undo = action;
      if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)) redo = action;
    }
    QVERIFY(undo && redo);
    QVERIFY(!undo->isEnabled());

    QVERIFY(applyFromPanel(*window.passPanel(), "identity-elimination"));
    QVERIFY(undo->isEnabled());
    QVERIFY(window.windowTitle().contains("*"));
    const std::string edited = printModelText(*window.model());
    undo->trigger();
    QCOMPARE(passes::countNodes(*window.model()), size_t{5});
    redo->trigger();
    QCOMPARE(printModelText(*window.model()), edited);

    // Save As writes the edited model; the opened file stays as it was.
    const QString target = dir.filePath("optimized.onnx");
    QVERIFY(window.saveModelAs(target));
    QVERIFY(!window.windowTitle().contains("*"));
    auto reloaded = loadModel(QFile::encodeName(target).toStdString());
    QVERIFY(static_cast<bool>(reloaded));
    QCOMPARE(printModelText(**reloaded), edited);
    auto untouched = loadModel(QFile::encodeName(source).toStdString());
    QVERIFY(static_cast<bool>(untouched));
    QCOMPARE(passes::countNodes(**untouched), size_t{5});

    // Compare with a file: the original on disk against the edited model, matched by structure.
    window.compareWithFile(source);
    QTRY_COMPARE_WITH_TIMEOUT(window.diffWindows().size(), 1, kRunTimeoutMs);
    DiffWindow* diffWindow = window.diffWindows().front();
    QCOMPARE(diffWindow->diff().summary.nodesAdded, size_t{2});  // the open model is "before"
    diffWindow->close();
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestPassPanel)
#include "tst_pass_panel.moc"
