// The main window as a desktop product: it fits a 1280x720 laptop screen, never loses an edit (prompts on
// quit, open and close; autosave and restore), follows edits in the summary, runs a model first time from the
// Run dialog's defaults, and has a theme toggle, image export and a command palette.
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <memory>

#include "command_palette.h"
#include "explorer_panels.h"
#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_style.h"
#include "graph/graph_view.h"
#include "gui/main_window.h"
#include "gui/theme.h"
#include "inspector_view.h"
#include "ir/model.h"
#include "model_document.h"
#include "model_summary_view.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "passes/pass_panel.h"
#include "passes/pass_session.h"
#include "profile/profile_panel.h"
#include "profile/run_defaults.h"
#include "profile/run_dialog.h"

namespace onyx::views {
namespace {

constexpr int kTimeoutMs = 60000;

// Two Identity nodes that identity-elimination removes (5 nodes -> 3).
const char* const kEditable = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) {
  a = Identity(x)
  b = Relu(a)
  c = Identity(b)
  d = Neg(c)
  y = Exp(d)
})";

// Writes kEditable into `dir` and returns its path.
QString writeEditableModel(const QTemporaryDir& dir) {
  const QString path = dir.filePath(QStringLiteral("editable.onnx"));
  auto parsed = parseModelText(kEditable);
  if (!parsed || !saveModel(**parsed, QFile::encodeName(path).toStdString())) return {};
  return path;
}

size_t nodesOnDisk(const QString& path) {
  auto model = loadModel(QFile::encodeName(path).toStdString());
  return model ? passes::countNodes(**model) : 0;
}

bool open(MainWindow& window, const QString& path) {
  QSignalSpy loaded(&window, &MainWindow::modelLoaded);
  window.openModel(path);
  return loaded.wait(kTimeoutMs) && window.model() != nullptr;
}

bool waitForLevel(GraphCanvas& canvas) {
  if (canvas.shownLayout() && !canvas.isLayingOut()) return true;
  QSignalSpy shown(&canvas, &GraphCanvas::levelShown);
  return shown.wait(kTimeoutMs);
}

// Applies identity-elimination from the pass panel, as a user would.
bool eliminateIdentities(MainWindow& window) {
  PassPanel& panel = *window.passPanel();
  const auto items = panel.catalogue()->findItems(QStringLiteral("identity-elimination"), Qt::MatchExactly, 0);
  if (items.isEmpty()) return false;
  panel.catalogue()->setCurrentItem(items.front());
  QSignalSpy finished(panel.session(), &PassSession::finished);
  QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
  return finished.wait(kTimeoutMs) && window.isModified();
}

// Clicks `button` (by its text, mnemonics ignored) in the next message box that opens; a modal box runs its
// own event loop, so this polls from a timer. The box's text lands in `*text`.
void answerNextPrompt(const QString& button, std::shared_ptr<QString> text = nullptr) {
  auto* poll = new QTimer;
  poll->setInterval(20);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, button, text] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box || !box->isVisible()) return;
    for (QAbstractButton* candidate : box->buttons()) {
      if (candidate->text().remove('&') != button) continue;
      if (text) *text = box->text() + "\n" + box->informativeText();
      poll->stop();
      poll->deleteLater();
      candidate->click();
      return;
    }
  });
  poll->start();
}

QTreeWidgetItem* childNamed(QTreeWidgetItem* section, const QString& name) {
  for (int i = 0; section && i < section->childCount(); ++i)
    if (section->child(i)->text(0) == name) return section->child(i);
  return nullptr;
}

// Rows of the tree whose rectangle lies inside its viewport.
int visibleRows(QTreeWidget* tree) {
  int rows = 0;
  const QRect viewport = tree->viewport()->rect();
  for (QTreeWidgetItemIterator it(tree); *it; ++it)
    if (viewport.contains(tree->visualItemRect(*it))) ++rows;
  return rows;
}

QAction* menuAction(QMenuBar* bar, const QStringList& path) {
  QList<QAction*> actions = bar->actions();
  QAction* found = nullptr;
  for (const QString& step : path) {
    found = nullptr;
    for (QAction* action : actions)
      if (action->text().remove('&') == step) found = action;
    if (!found) return nullptr;
    if (found->menu()) actions = found->menu()->actions();
  }
  return found;
}

}  // namespace

class TestDesktop : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("OnyxTests");
    QCoreApplication::setApplicationName("tst_desktop");
    QSettings().clear();
    QDir(Autosave::folder()).removeRecursively();
    QVERIFY2(!MainWindow::bundledSamplePath().isEmpty(), "the sample model was not generated (build onyx_sample)");
  }

  void init() { QSettings().clear(); }

  // --- Layout ------------------------------------------------------------------------------------------

  void fitsALaptopScreen() {
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(open(window, MainWindow::bundledSamplePath()));
    QVERIFY(waitForLevel(*window.canvas()));
    // A node with inputs, outputs and attributes fills the inspector.
    const Graph& graph = window.model()->graph();
    const Node* conv = nullptr;
    for (const Node* node : graph.nodes())
      if (node->opType() == "Conv" && !conv) conv = node;
    QVERIFY(conv);
    window.document()->select(Selection{&graph, conv->id()});
    QApplication::processEvents();

    QVERIFY2(window.minimumSizeHint().height() <= MainWindow::kMaxMinimumHeight,
             qPrintable(QString::number(window.minimumSizeHint().height())));
    QCOMPARE(window.size(), QSize(1280, 720));
    QVERIFY(window.profileDock()->isHidden());  // no profile yet
    QVERIFY2(window.canvas()->width() >= 500 && window.canvas()->height() >= 400,
             qPrintable(QString("%1x%2").arg(window.canvas()->width()).arg(window.canvas()->height())));

    InspectorView* inspector = window.panels()->inspector();
    QVERIFY(inspector->isVisible());
    const int rowHeight = inspector->visualItemRect(inspector->topLevelItem(0)).height();
    QVERIFY(rowHeight > 0);
    const int capacity = inspector->viewport()->height() / rowHeight;
    QVERIFY2(capacity >= 10, qPrintable(QString("inspector shows %1 rows").arg(capacity)));
    QVERIFY2(visibleRows(inspector) >= 10, qPrintable(QString::number(visibleRows(inspector))));
    QVERIFY2(inspector->header()->sectionSize(InspectorView::kValueColumn) >= 100,
             qPrintable(QString::number(inspector->header()->sectionSize(InspectorView::kValueColumn))));

    ModelSummaryView* summary = window.summaryView();
    QVERIFY(summary->isVisible());
    const int valueAt = summary->header()->sectionViewportPosition(ModelSummaryView::kValueColumn);
    const int valueWidth = summary->header()->sectionSize(ModelSummaryView::kValueColumn);
    QVERIFY2(valueWidth >= 80 && valueAt + 40 <= summary->viewport()->width(),
             qPrintable(QString("value column at %1, %2 wide").arg(valueAt).arg(valueWidth)));
  }

  void everyDockHasAViewToggleAndTheLayoutIsRestored() {
    {
      MainWindow window;
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        QAction* toggle = menuAction(window.menuBar(), {"View", "Panels", dock->windowTitle()});
        QVERIFY2(toggle == dock->toggleViewAction(), qPrintable(dock->windowTitle()));
      }
      QCOMPARE(window.findChildren<QDockWidget*>().size(), 5);
      window.passDock()->toggleViewAction()->trigger();  // the user closes Passes
      QVERIFY(window.passDock()->isHidden());
      QVERIFY(window.close());
    }
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.passDock()->isHidden());  // as it was left
    QVERIFY(!window.summaryDock()->isHidden());
    window.resetLayoutAction()->trigger();
    QVERIFY(!window.passDock()->isHidden());
    QVERIFY(window.profileDock()->isHidden());
  }

  // --- Never lose an edit ------------------------------------------------------------------------------

  void quitWithEditsAsksAndSaveWritesTheFile() {
    QTemporaryDir dir;
    const QString path = writeEditableModel(dir);
    QVERIFY(!path.isEmpty());
    {
      MainWindow window;
      window.show();
      QVERIFY(open(window, path));
      QVERIFY(eliminateIdentities(window));
      QVERIFY(window.windowTitle().contains('*'));

      auto text = std::make_shared<QString>();
      answerNextPrompt("Cancel", text);
      QVERIFY(!window.close());  // Ctrl+Q's QWidget::close
      QVERIFY(window.isVisible());
      QVERIFY2(text->contains("editable.onnx has edits that are not saved"), qPrintable(*text));
      QCOMPARE(nodesOnDisk(path), size_t{5});

      answerNextPrompt("Save");
      QVERIFY(window.close());
      QCOMPARE(nodesOnDisk(path), size_t{3});  // saved over the opened file
    }
    MainWindow window;
    window.show();
    QVERIFY(open(window, path));
    QCOMPARE(passes::countNodes(*window.model()), size_t{3});
    QVERIFY(!window.isModified());
    QVERIFY(window.close());  // nothing to save: no prompt, closes at once
  }

  void openAndCloseOverEditsAsk() {
    QTemporaryDir dir;
    const QString path = writeEditableModel(dir);
    MainWindow window;
    window.show();
    QVERIFY(open(window, path));
    QVERIFY(eliminateIdentities(window));

    auto text = std::make_shared<QString>();
    answerNextPrompt("Cancel", text);
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(!text->isEmpty());  // it asked
    QVERIFY(!window.isLoading());
    QCOMPARE(window.modelPath(), path);
    QCOMPARE(passes::countNodes(*window.model()), size_t{3});  // the edits stay

    answerNextPrompt("Cancel");
    QVERIFY(!window.closeDocument());
    QVERIFY(window.document() != nullptr);

    answerNextPrompt("Discard");
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(loaded.wait(kTimeoutMs));
    QCOMPARE(window.modelPath(), MainWindow::bundledSamplePath());
    QVERIFY(!window.isModified());
    QCOMPARE(nodesOnDisk(path), size_t{5});  // discarded, not saved

    QVERIFY(window.closeDocument());  // unmodified: closes without asking
    QVERIFY(window.document() == nullptr);
    QCOMPARE(window.windowTitle(), QString("Onyx"));
  }

  void autosaveIsWrittenAndRestored() {
    QTemporaryDir dir;
    const QString path = writeEditableModel(dir);
    auto crashed = std::make_unique<MainWindow>();
    QVERIFY(open(*crashed, path));
    QSignalSpy autosaved(crashed.get(), &MainWindow::autosaved);
    QVERIFY(eliminateIdentities(*crashed));
    QVERIFY(autosaved.wait(10000));
    const QString file = autosaved.front().at(0).toString();
    QVERIFY(file.startsWith(Autosave::folder()));
    QCOMPARE(nodesOnDisk(file), size_t{3});  // the edited model, complete
    std::vector<AutosaveEntry> entries = Autosave::pendingEntries();
    QCOMPARE(entries.size(), size_t{1});
    QCOMPARE(entries[0].originalPath, QFileInfo(path).absoluteFilePath());
    // The session ends without closing the window (no prompt answered): the autosave stays.
    crashed.reset();
    QVERIFY(QFileInfo::exists(file));

    // The next start offers it; restoring opens the original path with the edits unsaved.
    MainWindow next;
    next.show();
    auto text = std::make_shared<QString>();
    answerNextPrompt("Restore", text);
    QSignalSpy loaded(&next, &MainWindow::modelLoaded);
    QVERIFY(next.offerAutosaveRestore());
    QVERIFY(text->contains("editable.onnx"));
    QVERIFY(loaded.wait(kTimeoutMs));
    QCOMPARE(next.modelPath(), path);
    QCOMPARE(passes::countNodes(*next.model()), size_t{3});
    QVERIFY(next.isModified());
    QVERIFY(next.windowTitle().contains('*'));
    QCOMPARE(nodesOnDisk(path), size_t{5});  // the original is untouched until saved
    // The restored window owns the edits now: one entry, its own.
    entries = Autosave::pendingEntries();
    QCOMPARE(entries.size(), size_t{1});
    QCOMPARE(entries[0].metadataFile, next.autosave().metadataFile());

    // Saving drops the autosave; so does undoing back to the saved state.
    QVERIFY(next.save());
    QVERIFY(!next.autosave().exists());
    QVERIFY(Autosave::pendingEntries().empty());
    QVERIFY(!next.offerAutosaveRestore());  // nothing left to offer

    QTemporaryDir otherDir;
    MainWindow undoing;
    QVERIFY(open(undoing, writeEditableModel(otherDir)));
    QSignalSpy undoingAutosaved(&undoing, &MainWindow::autosaved);
    QVERIFY(eliminateIdentities(undoing));
    QVERIFY(undoingAutosaved.wait(10000));
    QVERIFY(undoing.autosave().exists());
    undoing.undoStack()->undo();
    QVERIFY(!undoing.isModified());
    QVERIFY(!undoing.autosave().exists());
  }

  // --- Consistent numbers ------------------------------------------------------------------------------

  void theSummaryFollowsAPass() {
    QTemporaryDir dir;
    const QString path = writeEditableModel(dir);
    MainWindow window;
    window.show();
    QVERIFY(open(window, path));
    QTreeWidgetItem* operators = window.summaryView()->section("Operators");
    QCOMPARE(operators->text(ModelSummaryView::kCountColumn), QString("5"));
    QVERIFY(operators->text(ModelSummaryView::kValueColumn).startsWith("nodes in the main graph"));
    QVERIFY(childNamed(operators, "Identity"));
    QVERIFY(eliminateIdentities(window));
    QTRY_COMPARE(window.summaryView()->section("Operators")->text(ModelSummaryView::kCountColumn), QString("3"));
    QVERIFY(!childNamed(window.summaryView()->section("Operators"), "Identity"));
    // The history counts the same nodes (no bodies or functions here), and says what it counts.
    QTreeWidget* history = window.passPanel()->history();
    QCOMPARE(history->topLevelItem(history->topLevelItemCount() - 1)->text(2), QStringLiteral("5 → 3"));
    QVERIFY(history->headerItem()->text(2).contains("all graphs"));
    window.undoStack()->undo();
    QTRY_COMPARE(window.summaryView()->section("Operators")->text(ModelSummaryView::kCountColumn), QString("5"));
    window.undoStack()->clear();
  }

  // --- Runs that work first time ------------------------------------------------------------------------

  void typicalDimValuesByNameAndPlace() {
    QCOMPARE(typicalDimValue("batch", 0, 4), int64_t{1});
    QCOMPARE(typicalDimValue("height", 2, 4), int64_t{224});
    QCOMPARE(typicalDimValue("W", 3, 4), int64_t{224});
    QCOMPARE(typicalDimValue("sequence", 1, 2), int64_t{128});
    QCOMPARE(typicalDimValue("dim_2", 2, 4), int64_t{224});   // [N, C, H, W] by place
    QCOMPARE(typicalDimValue("unk__1", 1, 2), int64_t{128});  // [batch, sequence] by place
    QCOMPARE(typicalDimValue("unk__0", 0, 3), int64_t{1});
  }

  void theRunDialogRunsSqueezenetWithItsDefaults() {
    const QString data = qEnvironmentVariable("ONYX_TEST_DATA", QStringLiteral(ONYX_DEFAULT_TEST_DATA));
    const QString path = data + "/models/squeezenet1_1/model.onnx";
    if (!QFileInfo::exists(path)) QSKIP(qPrintable("test data not found: " + path + " (set ONYX_TEST_DATA)"));
    MainWindow window;
    window.show();
    QVERIFY(open(window, path));
    RunDialog* dialog = window.profilePanel()->showRunDialog();
    QVERIFY(dialog->inputsBox()->itemText(0).startsWith("test_data_set_0"));
    auto request = dialog->request();
    QVERIFY(request.ok());
    QCOMPARE(request->inputs, profile::InputSource::TestDataSet);
    QCOMPARE(QString::fromStdString(request->dataSet.filename().string()), QString("test_data_set_0"));
    QCOMPARE(request->bindings.at("height"), int64_t{224});
    QVERIFY2(dialog->feedText().contains("input: float32[1, 3, 224, 224] from test_data_set_0/input_0.pb"),
             qPrintable(dialog->feedText()));

    QSignalSpy finished(dialog, &RunDialog::finished);
    dialog->start();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY2(finished.front().at(0).toBool(), qPrintable(finished.front().at(1).toString()));
    QTRY_VERIFY(!window.profileDock()->isHidden());  // the profile shows once there is one

    // Random values bind the image size to 224, not 1 (which squeezenet's pooling windows cannot take).
    dialog->inputsBox()->setCurrentIndex(dialog->inputsBox()->findText("Random values"));
    QVERIFY2(dialog->feedText().contains("input: float32[1, 3, 224, 224], random values"),
             qPrintable(dialog->feedText()));
    dialog->start();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(finished.at(1).at(1).toString()));
    dialog->close();
  }

  // --- Theme, export, palette --------------------------------------------------------------------------

  void theThemeToggleSwitchesThePalette() {
    MainWindow window;
    QAction* dark = menuAction(window.menuBar(), {"View", "Theme", "Dark"});
    QAction* light = menuAction(window.menuBar(), {"View", "Theme", "Light"});
    QAction* system = menuAction(window.menuBar(), {"View", "Theme", "Follow the Desktop"});
    QVERIFY(dark && light && system);
    dark->trigger();
    QApplication::processEvents();
    QVERIFY(isDark(QApplication::palette()));
    QVERIFY(isDark(window.palette()));
    QVERIFY(dark->isChecked());
    QCOMPARE(savedTheme(), Theme::Dark);
    light->trigger();
    QVERIFY(!isDark(QApplication::palette()));
    QVERIFY(light->isChecked() && !dark->isChecked());
    system->trigger();
    QCOMPARE(isDark(QApplication::palette()), desktopPrefersDark());
    QCOMPARE(savedTheme(), Theme::System);
  }

  // Under the dark theme the canvas is dark too, and what is written on it reads: WCAG contrast of at
  // least 4.5:1 for the text on the canvas (edge labels, names, frame titles) and 3:1 for box titles on
  // their fills (bold); the light theme brings the light canvas back.
  void theCanvasFollowsTheDarkTheme() {
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(open(window, MainWindow::bundledSamplePath()));
    GraphCanvas& canvas = *window.canvas();
    QVERIFY(waitForLevel(canvas));
    GraphScene& scene = *canvas.scene();
    auto luminance = [](const QColor& c) {
      auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    auto contrast = [&](const QColor& a, const QColor& b) {
      const double la = luminance(a), lb = luminance(b);
      return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
    };
    // The mean luminance of what the canvas shows.
    auto shownLuminance = [&] {
      QApplication::processEvents();
      const QImage shot = canvas.view()->viewport()->grab().toImage();
      double total = 0;
      for (int y = 0; y < shot.height(); y += 4)
        for (int x = 0; x < shot.width(); x += 4) total += luminance(shot.pixelColor(x, y));
      return total / ((shot.height() + 3) / 4 * ((shot.width() + 3) / 4));
    };
    menuAction(window.menuBar(), {"View", "Theme", "Light"})->trigger();
    QVERIFY(!scene.style().isDark());
    QVERIFY(shownLuminance() > 0.6);

    menuAction(window.menuBar(), {"View", "Theme", "Dark"})->trigger();
    QApplication::processEvents();
    const GraphStyle& style = scene.style();
    QVERIFY(style.isDark());
    QCOMPARE(scene.backgroundBrush().color(), style.background);
    QVERIFY(luminance(style.background) < 0.05);
    QVERIFY2(shownLuminance() < 0.2, qPrintable(QString::number(shownLuminance())));
    for (const QColor& text : {style.edgeLabelColor, style.nameColor, style.unresolvedColor})
      QVERIFY2(contrast(text, style.background) >= 4.5, qPrintable(text.name()));
    QVERIFY(contrast(style.groupBorder, style.clusterFill) >= 4.5);  // an expanded scope's title
    QVERIFY(contrast(style.edgeColor, style.background) >= 3);
    QVERIFY(!scene.boxes().empty());
    for (const BoxItem* box : scene.boxes()) {
      const QColor fill = box->shownFill();
      QVERIFY2(contrast(GraphStyle::textOn(fill), fill) >= 3, qPrintable(box->title() + " " + fill.name()));
      if (box->levelItem().kind != layout::ItemKind::Node)  // groups, terminals, ports take the dark fills
        QVERIFY2(luminance(fill) < 0.15, qPrintable(box->title() + " " + fill.name()));
    }
    menuAction(window.menuBar(), {"View", "Theme", "Light"})->trigger();
    QApplication::processEvents();
    QVERIFY(!scene.style().isDark());
    QCOMPARE(scene.backgroundBrush().color(), GraphStyle::standard().background);
  }

  void exportWritesPngAndSvg() {
    MainWindow window;
    window.show();
    QVERIFY(open(window, MainWindow::bundledSamplePath()));
    QVERIFY(waitForLevel(*window.canvas()));
    QTemporaryDir dir;
    const QString png = dir.filePath("graph.png");
    QVERIFY(window.exportImage(png));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY2(image.width() >= 100 && image.height() >= 100, qPrintable(QString("%1x%2").arg(image.width()).arg(image.height())));
    const QString svg = dir.filePath("graph.svg");
    QVERIFY(window.exportImage(svg));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(svgFile.readAll().contains("Conv"));  // labels stay text in SVG
    auto text = std::make_shared<QString>();
    answerNextPrompt("OK", text);  // the error is shown, as the CLI prints it
    QVERIFY(!window.exportImage(dir.filePath("graph.bmp")));
    QVERIFY2(text->contains("graph.bmp: the image's name must end in .png or .svg"), qPrintable(*text));
    QVERIFY(!QFileInfo::exists(dir.filePath("graph.bmp")));
  }

  void thePaletteFindsAndTriggersAnAction() {
    QVERIFY(fuzzyScore("sa", "Save As").value() > fuzzyScore("sa", "Open Sample Model").value());
    QVERIFY(!fuzzyScore("xyz", "Save As"));
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction* open = nullptr;
    for (QAction* action : window.actions())
      if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)) open = action;
    QVERIFY(open);
    open->trigger();
    CommandPalette* palette = window.commandPalette();
    QVERIFY(palette->isVisible());
    // Every menu command is listed, sub-menus included.
    const QStringList all = palette->shownLabels();
    QVERIFY(all.contains("File > Export Image..."));
    QVERIFY(all.contains("View > Theme > Dark"));
    QVERIFY(all.contains("Edit > Find..."));
    QVERIFY(all.contains("View > Panels > Passes"));
    QTest::keyClicks(palette->filterEdit(), "exim");
    QCOMPARE(palette->shownLabels().value(0), QString("File > Export Image..."));

    window.passDock()->hide();
    palette->filterEdit()->clear();
    QTest::keyClicks(palette->filterEdit(), "reset lay");
    QCOMPARE(palette->shownLabels().value(0), QString("View > Reset Layout"));
    QTest::keyClick(palette->filterEdit(), Qt::Key_Return);
    QVERIFY(!palette->isVisible());
    QVERIFY(!window.passDock()->isHidden());  // Reset Layout ran
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestDesktop)
#include "tst_desktop.moc"
