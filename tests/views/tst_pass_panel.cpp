// The pass panel and the diff window over real documents: applying passes (to the model or a scope),
// undo/redo through the QUndoStack, the default pipeline with numeric checks on a shared model, comparing
// steps side by side and in overlay mode, and Save As from the main window.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
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
