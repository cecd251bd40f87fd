#pragma once
// The main window: opens a model (command line, File > Open, Open Recent, drag and drop), loads it on a
// worker thread with a busy indicator and a cancel button, and shows its graph (the canvas, central) and its
// summary (a dock).
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <memory>
#include <vector>

#include "analysis/model_info.h"

class QLabel;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QThread;

namespace onyx {
class Model;
struct ShapeInference;
}

namespace onyx::views {

class GraphCanvas;
class ExplorerPanels;
class ModelDocument;
class ModelSummaryView;

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

 public Q_SLOTS:
  // Starts loading `path` off the UI thread; a load already running is cancelled.
  void openModel(const QString& path);
  void cancelLoading();
  void showOpenDialog();

 Q_SIGNALS:
  void modelLoaded(const QString& path);
  void loadFailed(const QString& message);  // the `error: FILE: WHAT (WHERE)` line the CLI prints

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  struct LoadResult;
  void finishLoading(quint64 generation, const std::shared_ptr<LoadResult>& result);
  void setBusy(bool busy, const QString& message = {});
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void createMenus();
  // The one place a loaded model becomes the document every view reads.
  void installDocument(std::unique_ptr<Model> model, std::unique_ptr<ShapeInference> inference);

  ModelSummaryView* summary_ = nullptr;
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
  QString modelPath_;
  QString loadingPath_;
  bool loading_ = false;
  quint64 generation_ = 0;  // bumped by every open and cancel; a result of an older one is dropped
  std::vector<QPointer<QThread>> workers_;
};

}  // namespace onyx::views
