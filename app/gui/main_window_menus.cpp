// The main window's menus and the commands only they reach: Open Recent, File > Export Image (the picture
// `onyx render` draws, of the level on the canvas), View > Theme, Reset Layout and the command palette.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QUndoStack>

#include "command_palette.h"
#include "explorer_panels.h"
#include "graph/graph_canvas.h"
#include "graph/graph_render.h"
#include "gui/main_window.h"
#include "model_document.h"
#include "model_summary_view.h"
#include "profile/profile_panel.h"

namespace onyx::views {
namespace {

constexpr int kMaxRecentFiles = 10;
const char* const kRecentFilesKey = "recentFiles";

}  // namespace

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::showOpenDialog);
  open->setShortcut(QKeySequence::Open);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  QAction* sample =
      file->addAction(tr("Open &Sample Model"), this, [this] { openModel(bundledSamplePath()); });
  sample->setEnabled(!bundledSamplePath().isEmpty());
  file->addSeparator();
  QAction* saveAction = file->addAction(tr("&Save"), this, &MainWindow::save);
  saveAction->setShortcut(QKeySequence::Save);
  QAction* saveAs = file->addAction(tr("Save &As..."), this, &MainWindow::showSaveAsDialog);
  saveAs->setShortcut(QKeySequence::SaveAs);
  QAction* exportImage = file->addAction(tr("&Export Image..."), this, &MainWindow::showExportImageDialog);
  exportImage->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addAction(tr("Compare with &File..."), this, [this] {
    if (!document_) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with ONNX Model"),
                                                      QFileInfo(modelPath_).absolutePath(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) compareWithFile(path);
  });
  file->addSeparator();
  QAction* close = file->addAction(tr("&Close Model"), this, &MainWindow::closeDocument);
  close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  for (QAction* needsModel : {saveAction, saveAs, exportImage, close}) {
    needsModel->setEnabled(false);
    connect(this, &MainWindow::modelLoaded, needsModel, [needsModel] { needsModel->setEnabled(true); });
    connect(close, &QAction::triggered, needsModel, [this, needsModel] { needsModel->setEnabled(document_); });
  }

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = undoStack_->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  QAction* redo = undoStack_->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  QAction* copy = edit->addAction(tr("&Copy Summary as Text"), summary_, &ModelSummaryView::copyAsText);
  copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  QMenu* view = menuBar()->addMenu(tr("&View"));
  panels_->addActions(edit, view);
  createViewMenu(view);

  profileMenu_ = menuBar()->addMenu(tr("&Profile"));
  QAction* run = profileMenu_->addAction(tr("&Run..."), this, [this] {
    if (profilePanel_) profilePanel_->showRunDialog();
  });
  run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  profileMenu_->addAction(tr("&Import Profile..."), this, [this] {
    if (!profilePanel_) return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import Profile"), QFileInfo(modelPath_).absolutePath(),
        tr("Chrome traces and ONNX Runtime profiles (*.json);;All files (*)"));
    if (!path.isEmpty()) profilePanel_->importProfile(path);
  });
  QMenu* exportMenu = profileMenu_->addMenu(tr("&Export"));
  connect(exportMenu, &QMenu::aboutToShow, this, [this, exportMenu] {
    exportMenu->clear();
    if (!profilePanel_) return;
    for (QAction* action : profilePanel_->exportActions()) exportMenu->addAction(action);
  });
  profileMenu_->addAction(tr("&Clear Overlay"), this, [this] { canvas_->clearNodeOverlay(); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Onyx"), this, [this] {
    QMessageBox::about(
        this, tr("About Onyx"),
        tr("Onyx %1\nSee, optimize and profile ONNX models.").arg(QApplication::applicationVersion()));
  });
}

void MainWindow::createViewMenu(QMenu* view) {
  palette_ = new CommandPalette(this);
  QAction* paletteAction = new QAction(tr("Command &Palette..."), this);
  paletteAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
  connect(paletteAction, &QAction::triggered, palette_, &CommandPalette::popup);
  view->insertAction(view->actions().value(0), paletteAction);
  view->insertSeparator(view->actions().value(1));
  addAction(paletteAction);  // its shortcut works wherever the focus is

  view->addSeparator();
  QMenu* panels = view->addMenu(tr("&Panels"));
  for (QDockWidget* dock : {summaryDock_, panels_->inspectorDock(), panels_->unknownDimsDock(), passDock_, profileDock_})
    panels->addAction(dock->toggleViewAction());
  resetLayout_ = view->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout);

  QMenu* theme = view->addMenu(tr("&Theme"));
  themeGroup_ = new QActionGroup(this);
  for (auto [choice, label] : {std::pair{Theme::System, tr("Follow the &Desktop")},
                               std::pair{Theme::Light, tr("&Light")}, std::pair{Theme::Dark, tr("&Dark")}}) {
    QAction* action = theme->addAction(label, this, [this, choice] { setTheme(choice); });
    action->setCheckable(true);
    action->setData(int(choice));
    action->setChecked(choice == currentTheme());
    themeGroup_->addAction(action);
  }
}

void MainWindow::setTheme(Theme theme) {
  applyTheme(theme);
  saveTheme(theme);
  for (QAction* action : themeGroup_->actions()) action->setChecked(Theme(action->data().toInt()) == theme);
}

void MainWindow::showExportImageDialog() {
  if (!document_) return;
  QString selected;
  const QString start = QFileInfo(modelPath_).absoluteDir().filePath(QFileInfo(modelPath_).completeBaseName() + ".png");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Image"), start,
                                                    tr("PNG image (*.png);;SVG image (*.svg)"), &selected);
  if (path.isEmpty()) return;
  QString withSuffix = path;
  if (QFileInfo(path).suffix().isEmpty()) withSuffix += selected.contains("svg") ? ".svg" : ".png";
  exportImage(withSuffix);
}

bool MainWindow::exportImage(const QString& path) {
  auto fail = [this, &path](const QString& why) {
    const QString message = "error: " + path + ": " + why;
    statusText_->setText(message);
    if (isVisible()) QMessageBox::critical(this, tr("Onyx"), message);
    return false;
  };
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png" && suffix != "svg") return fail(tr("the image's name must end in .png or .svg"));
  if (!document_ || !canvas_->shownLayout()) return fail(tr("no graph is shown yet"));
  auto picture = renderScene(*canvas_->scene(), suffix == "svg" ? RenderFormat::Svg : RenderFormat::Png, 0);
  if (!picture) return fail(QString::fromStdString(picture.error().toString()));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(*picture) != picture->size() || !file.commit())
    return fail(file.errorString());
  statusText_->setText(tr("Exported the graph to %1 (%2 bytes)").arg(path).arg(picture->size()));
  return true;
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(kRecentFilesKey).toStringList();
}

void MainWindow::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentFilesKey, files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    QString label =
        QFileInfo(path).fileName() + "  (" + QDir::toNativeSeparators(QFileInfo(path).absolutePath()) + ")";
    label.replace('&', QStringLiteral("&&"));  // a literal '&', not a mnemonic
    if (i < 9) label.prepend(QStringLiteral("&%1 ").arg(i + 1));
    recentMenu_->addAction(label, this, [this, path] { openModel(path); });
  }
  if (files.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  recentMenu_->addSeparator();
  QAction* clearAction = recentMenu_->addAction(tr("&Clear Menu"), this, [this] {
    QSettings().remove(kRecentFilesKey);
    rebuildRecentMenu();
  });
  clearAction->setEnabled(!files.isEmpty());
}

}  // namespace onyx::views
