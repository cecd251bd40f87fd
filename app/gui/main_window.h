#pragma once
// The main window: opens a model (command line, File > Open, Open Recent, drag and drop), loads it on a
// worker thread with a busy indicator and a cancel button, and shows its graph (the canvas, central) and its
// summary (a dock). Its parts live in several files: main_window.cpp (loading, documents, saving),
// main_window_layout.cpp (docks, their default layout and its persistence), main_window_edits.cpp (the
// save/discard/cancel prompt and the autosave) and main_window_menus.cpp (menus, themes, export, palette).
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <memory>
#include <vector>

#include "analysis/model_info.h"
#include "gui/autosave.h"
#include "gui/theme.h"

class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QThread;
class QTimer;
class QUndoStack;

namespace onyx {
class Model;
struct ShapeInference;
}

namespace onyx::views {

class CommandPalette;
class GraphCanvas;
class ExplorerPanels;
class ModelDocument;
class ModelSummaryView;
class PassPanel;
class ProfilePanel;
class DiffWindow;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;  // waits for loads still running: their results are discarded

  // The sample model built with the project: next to the executable (build tree: ../resources/,
  // installed: ../share/onyx/), else the paths compiled in; empty when none exists.
  static QString bundledSamplePath();

  const Model* model() const { return model_.get(); }
  const QString& modelPath() const { return modelPath_; }
  bool isLoading() const { return loading_; }
  ModelSummaryView* summaryView() const { return summary_; }
  // The open model as the views share it (null until a model loads).
  ModelDocument* document() const { return document_; }
  // The graph explorer's canvas, the central widget once a model is open.
  GraphCanvas* canvas() const { return canvas_; }
  ExplorerPanels* panels() const { return panels_; }
  QStringList recentFiles() const;
  // The pass panel (a dock) and the undo history of the open document's edits.
  PassPanel* passPanel() const { return passPanel_; }
  QUndoStack* undoStack() const { return undoStack_; }
  // The profiling views of the open document (null until a model loads).
  ProfilePanel* profilePanel() const { return profilePanel_; }
  // The diff windows opened so far (closed ones are gone).
  QList<DiffWindow*> diffWindows() const;
  QDockWidget* summaryDock() const { return summaryDock_; }
  QDockWidget* passDock() const { return passDock_; }
  QDockWidget* profileDock() const { return profileDock_; }
  CommandPalette* commandPalette() const { return palette_; }
  QAction* resetLayoutAction() const { return resetLayout_; }

  // Whether the open model differs from its file: undoable edits, or edits restored from an autosave.
  bool isModified() const;
  Autosave& autosave() { return autosave_; }

  // The longest a default layout needs: at 1280x720 every dock and the canvas keep room.
  static constexpr int kMaxMinimumHeight = 700;

 public Q_SLOTS:
  // Starts loading `path` off the UI thread; a load already running is cancelled. Unsaved edits are
  // offered for saving first (Cancel keeps them and opens nothing).
  void openModel(const QString& path);
  // Closes the open model (after the same prompt); false when the user cancelled.
  bool closeDocument();
  // Writes the edits over the opened file (File > Save); false (after showing why) on failure.
  bool save();
  // With unsaved edits, asks Save / Discard / Cancel; true when the caller may go on (saved or discarded).
  bool maybeSaveEdits();
  // Writes the edited model to the autosave now (a timer calls it after edits).
  bool writeAutosave();
  // Offers the newest autosave left by a session that ended without saving; true when one was restored.
  bool offerAutosaveRestore();
  // Opens the autosaved model as the original file with its edits unsaved (title `*`); the entry's files are
  // dropped once this window has autosaved the restored model itself.
  void restoreAutosave(const AutosaveEntry& entry);
  // Draws the canvas's level (as shown: groups open or closed) to an SVG or PNG, by the suffix; false (after
  // showing why) on failure.
  bool exportImage(const QString& path);
  void showExportImageDialog();
  // Docks back where a first start puts them, sized for the window.
  void resetLayout();
  void setTheme(Theme theme);
  void cancelLoading();
  void showOpenDialog();
  // Writes the open model (with the edits applied) to `path` through a temporary file and a rename; the
  // file the model was loaded from is only replaced when it is `path`. Returns false (after showing why)
  // on failure.
  bool saveModelAs(const QString& path);
  void showSaveAsDialog();
  // Opens a diff window between two models (pass steps, or the open model and another file).
  DiffWindow* showDiff(const Model& before, const Model& after, const QString& beforeTitle,
                       const QString& afterTitle, bool sameLineage);
  // Loads `path` off the UI thread and compares the open model with it.
  void compareWithFile(const QString& path);

 Q_SIGNALS:
  void modelLoaded(const QString& path);
  void loadFailed(const QString& message);  // the `error: FILE: WHAT (WHERE)` line the CLI prints
  void autosaved(const QString& modelFile);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  struct LoadResult;
  // Loads `path`, or an autosave of it when `autosaveFile` is given.
  void startLoading(const QString& path, const QString& autosaveFile = {});
  void finishLoading(quint64 generation, const std::shared_ptr<LoadResult>& result);
  void setBusy(bool busy, const QString& message = {});
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void createMenus();
  void createViewMenu(QMenu* view);
  void createDocks();
  void saveLayout();
  void restoreLayout();
  void showProfileDockWhenThereIsAProfile();
  void onEdited();
  void refreshSummary();
  // The one place a loaded model becomes the document every view reads.
  void installDocument(std::unique_ptr<Model> model, std::unique_ptr<ShapeInference> inference);
  void updateTitle();
  void installProfilePanel();

  ModelSummaryView* summary_ = nullptr;
  QDockWidget* summaryDock_ = nullptr;
  QDockWidget* passDock_ = nullptr;
  QAction* resetLayout_ = nullptr;
  QActionGroup* themeGroup_ = nullptr;
  CommandPalette* palette_ = nullptr;
  QTimer* autosaveTimer_ = nullptr;  // the autosave follows edits, a little after the last one
  Autosave autosave_;
  AutosaveEntry restoredFrom_;       // the entry restored, until this window has autosaved it itself
  bool restoredEdits_ = false;       // the model came from an autosave: modified although nothing is undoable
  bool layoutApplied_ = false;
  QStackedWidget* pages_ = nullptr;
  QLabel* placeholder_ = nullptr;
  QLabel* statusText_ = nullptr;
  QProgressBar* busyBar_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QPointer<QMessageBox> errorBox_;

  std::shared_ptr<Model> model_;
  ModelDocument* document_ = nullptr;
  GraphCanvas* canvas_ = nullptr;
  ExplorerPanels* panels_ = nullptr;
  PassPanel* passPanel_ = nullptr;
  ProfilePanel* profilePanel_ = nullptr;
  QDockWidget* profileDock_ = nullptr;
  QMenu* profileMenu_ = nullptr;
  QUndoStack* undoStack_ = nullptr;
  QString modelPath_;
  QString loadingPath_;
  bool loading_ = false;
  quint64 generation_ = 0;  // bumped by every open and cancel; a result of an older one is dropped
  std::vector<QPointer<QThread>> workers_;
};

}  // namespace onyx::views
