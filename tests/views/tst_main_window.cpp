// The main window drives real loads of the bundled sample (and of broken files) on its worker thread.
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "gui/main_window.h"
#include "ir/model.h"
#include "model_document.h"
#include "model_summary_view.h"

namespace onyx::views {

class TestMainWindow : public QObject {
  Q_OBJECT

 private:
  static constexpr int kLoadTimeoutMs = 20000;

  static bool waitForLoad(MainWindow& window, QSignalSpy& loaded) {
    return loaded.wait(kLoadTimeoutMs) && !window.isLoading();
  }

  static QString statusText(MainWindow& window) {
    QString text;
    for (QLabel* label : window.statusBar()->findChildren<QLabel*>()) text += label->text();
    return text;
  }

  // Count column of the row `name` under section `title`, or a null string when absent.
  static QString sectionCount(MainWindow& window, const QString& title, const QString& name) {
    QTreeWidgetItem* section = window.summaryView()->section(title);
    if (!section) return {};
    for (int i = 0; i < section->childCount(); ++i)
      if (section->child(i)->text(0) == name) return section->child(i)->text(ModelSummaryView::kCountColumn);
    return {};
  }

 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("OnyxTests");
    QCoreApplication::setApplicationName("tst_main_window");
    QSettings().clear();
    QVERIFY2(!MainWindow::bundledSamplePath().isEmpty(),
             "the sample model was not generated (build onyx_sample)");
  }

  void opensTheSampleAndShowsItsOpCounts() {
    MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    const QString sample = MainWindow::bundledSamplePath();
    window.openModel(sample);
    QVERIFY(window.isLoading());
    QVERIFY(waitForLoad(window, loaded));
    QCOMPARE(loaded.takeFirst().at(0).toString(), sample);
    QVERIFY(window.model() != nullptr);

    QCOMPARE(sectionCount(window, "Operators", "Conv"), QString("3"));
    QCOMPARE(sectionCount(window, "Operators", "Relu"), QString("3"));
    QCOMPARE(sectionCount(window, "Operators", "Softmax"), QString("1"));
    QCOMPARE(window.summaryView()->section("Operators")->text(ModelSummaryView::kCountColumn), QString("12"));
    QCOMPARE(window.summaryView()->section("Inputs")->child(0)->text(ModelSummaryView::kValueColumn),
             QString("float32[N, 3, H, W]"));
    QCOMPARE(sectionCount(window, "Parameters", "Elements"), QString("5,258"));
    QVERIFY2(statusText(window).contains("sample.onnx: 12 nodes, 5,258 parameters"),
             qPrintable(statusText(window)));
    QCOMPARE(window.windowTitle(), QString("sample.onnx - Onyx"));
    QCOMPARE(window.recentFiles().value(0), QFileInfo(sample).absoluteFilePath());
  }

  void theCanvasIsCentralAndShowsTheSampleGraph() {
    MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QSignalSpy shown(window.canvas(), &GraphCanvas::levelShown);
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(waitForLoad(window, loaded));
    QVERIFY(shown.count() > 0 || shown.wait(kLoadTimeoutMs));
    QVERIFY(window.canvas()->isVisible());
    QCOMPARE(window.canvas()->document(), window.document());
    const layout::LevelView& level = *window.canvas()->shownLayout()->level;
    QCOMPARE(window.canvas()->scene()->nodeItemCount(), level.nodeItemCount());
    QCOMPARE(level.nodeItemCount() + level.foldedConstants, window.model()->graph().nodeCount());
    QVERIFY(window.summaryView()->isVisible());  // in its dock
  }

  void aMissingFileShowsTheCliErrorLine() {
    MainWindow window;
    window.show();
    QTemporaryDir dir;
    const QString missing = dir.filePath("missing.onnx");
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel(missing);
    QVERIFY(failed.wait(kLoadTimeoutMs));
    const QString message = failed.takeFirst().at(0).toString();
    QCOMPARE(message, "error: " + missing + ": cannot open the file: No such file or directory");
    auto* box = window.findChild<QMessageBox*>();
    QVERIFY(box != nullptr);
    QVERIFY(box->isVisible());
    QCOMPARE(box->text(), message);
    QVERIFY(!window.isLoading());
    QVERIFY(window.model() == nullptr);
    QVERIFY(statusText(window).contains("Could not open missing.onnx"));
  }

  void aBrokenFileKeepsTheModelShown() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(waitForLoad(window, loaded));
    const Model* shown = window.model();

    QTemporaryDir dir;
    const QString broken = dir.filePath("broken.onnx");
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("This text is not an ONNX model.\n");
    file.close();
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel(broken);
    QVERIFY(failed.wait(kLoadTimeoutMs));
    QVERIFY2(failed.at(0).at(0).toString().startsWith("error: " + broken + ": cannot parse the model"),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(window.model(), shown);
    QCOMPARE(sectionCount(window, "Operators", "Conv"), QString("3"));
  }

  void cancelDiscardsTheResultAndTheWindowStaysUsable() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel(MainWindow::bundledSamplePath());
    QPushButton* cancel = nullptr;
    for (QPushButton* button : window.statusBar()->findChildren<QPushButton*>())
      if (button->text() == "Cancel") cancel = button;
    QVERIFY(cancel != nullptr);
    QVERIFY(!cancel->isHidden());
    QVERIFY(!window.statusBar()->findChild<QProgressBar*>()->isHidden());
    // The result is delivered through the event loop, so it cannot arrive before this click.
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(!window.isLoading());
    QVERIFY(cancel->isHidden());
    QVERIFY(window.statusBar()->findChild<QProgressBar*>()->isHidden());
    QVERIFY(statusText(window).contains("Cancelled loading sample.onnx"));
    QTest::qWait(1500);
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(failed.count(), 0);
    QVERIFY(window.model() == nullptr);

    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(waitForLoad(window, loaded));
    QVERIFY(window.model() != nullptr);
  }

  void aSecondOpenSupersedesTheFirst() {
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel("does-not-exist.onnx");
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(waitForLoad(window, loaded));
    QTest::qWait(200);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(loaded.count(), 1);
  }

  void droppingAnOnnxFileOpensIt() {
    MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile("/tmp/notes.txt")});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());

    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(MainWindow::bundledSamplePath())});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QVERIFY(waitForLoad(window, loaded));
    QCOMPARE(sectionCount(window, "Operators", "Gemm"), QString("1"));
  }

  void showsTheSubgraphsOfARealModel() {
    QString data = qEnvironmentVariable("ONYX_TEST_DATA", QStringLiteral(ONYX_DEFAULT_TEST_DATA));
    QString path = data + "/models/ssdlite320_mobilenet_v3_large/model.onnx";
    if (!QFileInfo::exists(path)) QSKIP(qPrintable("test data not found: " + path + " (set ONYX_TEST_DATA)"));
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(path);
    QVERIFY(waitForLoad(window, loaded));
    QTreeWidgetItem* subgraphs = window.summaryView()->section("Subgraphs");
    QVERIFY(subgraphs != nullptr);
    QCOMPARE(subgraphs->text(ModelSummaryView::kCountColumn), QString("22"));
    QCOMPARE(subgraphs->childCount(), 2);
    QCOMPARE(subgraphs->child(0)->text(ModelSummaryView::kItemColumn), QString("If 'If_3499' (#3522)"));
    QCOMPARE(subgraphs->child(1)->text(ModelSummaryView::kValueColumn), QString("else_branch"));
    QCOMPARE(window.summaryView()->section("Operators")->text(ModelSummaryView::kCountColumn),
             QString("3,535"));
  }

  void openRecentReopensTheLastModel() {
    QSettings().setValue("recentFiles", QStringList{MainWindow::bundledSamplePath()});
    MainWindow window;
    QMenu* recent = nullptr;
    for (QMenu* menu : window.menuBar()->findChildren<QMenu*>())
      if (menu->title() == "Open &Recent") recent = menu;
    QVERIFY(recent != nullptr);
    QAction* entry = nullptr;
    for (QAction* action : recent->actions())
      if (action->text().contains("sample.onnx")) entry = action;
    QVERIFY(entry != nullptr);
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    entry->trigger();
    QVERIFY(waitForLoad(window, loaded));
    QCOMPARE(window.modelPath(), MainWindow::bundledSamplePath());
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestMainWindow)
#include "tst_main_window.moc"
