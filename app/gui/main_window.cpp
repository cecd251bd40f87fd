#include "gui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThread>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>
#include <exception>
#include <filesystem>
#include <optional>

#include "diffview/diff_window.h"
#include "graph/graph_canvas.h"
#include "explorer_panels.h"
#include "ir/model.h"
#include "model_document.h"
#include "model_summary_view.h"
#include "onnx/onnx_io.h"
#include "passes/pass_panel.h"
#include "passes/pass_session.h"
#include "passes/rewrite_overlay.h"
#include "profile/profile_panel.h"

namespace onyx::views {
namespace {


QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// The autosaved bytes, read as if they were the original file: external weights resolve beside it.
Expected<std::unique_ptr<Model>> loadAutosave(const std::filesystem::path& autosaved,
                                              const std::filesystem::path& original) {
  QFile file(QFile::decodeName(autosaved.string().c_str()));
  if (!file.open(QIODevice::ReadOnly))
    return makeError("cannot read the autosave: " + file.errorString().toStdString(), autosaved.string());
  const QByteArray bytes = file.readAll();
  return parseModel(std::string_view(bytes.constData(), size_t(bytes.size())), original.parent_path(),
                    original.filename().string() + " (autosave)");
}

bool isOnnxFile(const QUrl& url) {
  return url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive);
}

}  // namespace

struct MainWindow::LoadResult {
  std::unique_ptr<Model> model;
  std::unique_ptr<ShapeInference> inference;  // inferred on the worker too: large models take a while
  ModelInfo info;
  std::optional<Error> error;
  qint64 elapsedMs = 0;
  bool restored = false;  // read from an autosave: the edits in it are not saved
};

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("Onyx"));
  setAcceptDrops(true);
  resize(1280, 720);

  summary_ = new ModelSummaryView(this);
  canvas_ = new GraphCanvas(this);
  placeholder_ =
      new QLabel(tr("Open an ONNX model with File > Open (Ctrl+O), or drop an .onnx file here."), this);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  pages_ = new QStackedWidget(this);
  pages_->addWidget(placeholder_);
  pages_->addWidget(canvas_);
  setCentralWidget(pages_);

  statusText_ = new QLabel(tr("No model"), this);
  busyBar_ = new QProgressBar(this);
  busyBar_->setRange(0, 0);  // indeterminate: loading reports no progress
  busyBar_->setMaximumWidth(160);
  cancelButton_ = new QPushButton(tr("Cancel"), this);
  connect(cancelButton_, &QPushButton::clicked, this, &MainWindow::cancelLoading);
  statusBar()->addWidget(statusText_, 1);
  statusBar()->addPermanentWidget(busyBar_);
  statusBar()->addPermanentWidget(cancelButton_);
  setBusy(false);

  undoStack_ = new QUndoStack(this);
  connect(undoStack_, &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
  connect(undoStack_, &QUndoStack::indexChanged, this, &MainWindow::onEdited);
  passPanel_ = new PassPanel(*undoStack_, this);
  connect(passPanel_, &PassPanel::compareRequested, this,
          [this](std::shared_ptr<const Model> before, std::shared_ptr<const Model> after, const QString& beforeTitle,
                 const QString& afterTitle) { showDiff(*before, *after, beforeTitle, afterTitle, true); });
  // Step Into paints the rewrite's match, then what it made, on the canvas.
  connect(passPanel_, &PassPanel::rewriteFocusChanged, this, [this] {
    if (passPanel_->session()) showRewriteFocus(*canvas_, passPanel_->session()->rewriteFocus());
  });
  autosaveTimer_ = new QTimer(this);
  autosaveTimer_->setSingleShot(true);
  autosaveTimer_->setInterval(1500);
  connect(autosaveTimer_, &QTimer::timeout, this, &MainWindow::writeAutosave);

  panels_ = new ExplorerPanels(this);
  createDocks();
  createMenus();
  restoreLayout();
}

MainWindow::~MainWindow() {
  // The undo stack outlives this object's members (a child, deleted by ~QObject): it must not call back.
  disconnect(undoStack_, nullptr, this, nullptr);
  // Edits nobody answered for (the application quit without closing this window: a logout, quit()) stay
  // autosaved for the next start; closeEvent already removed the file of saved or discarded ones.
  if (!isModified()) autosave_.clear();
  ++generation_;
  // A load cannot be interrupted; wait so no thread outlives the window and the process exits cleanly.
  for (const QPointer<QThread>& worker : workers_) {
    if (!worker) continue;
    worker->wait();
    delete worker.data();
  }
}

QString MainWindow::bundledSamplePath() {
  const QString dir = QCoreApplication::applicationDirPath();
  const QStringList candidates = {
      dir + "/../resources/sample.onnx",       // build tree: build/app/onyx, build/resources/
      dir + "/../share/onyx/sample.onnx",      // installed: bin/onyx, share/onyx/
      QStringLiteral(ONYX_BUILD_SAMPLE_PATH),  // for binaries elsewhere in the build tree (tests)
      QStringLiteral(ONYX_INSTALL_SAMPLE_PATH),
  };
  for (const QString& candidate : candidates)
    if (QFileInfo(candidate).isFile()) return QDir::cleanPath(QFileInfo(candidate).absoluteFilePath());
  return {};
}

void MainWindow::showOpenDialog() {
  QString start = modelPath_.isEmpty() ? QDir::currentPath() : QFileInfo(modelPath_).absolutePath();
  QString path = QFileDialog::getOpenFileName(this, tr("Open ONNX Model"), start,
                                              tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void MainWindow::openModel(const QString& path) {
  if (path.isEmpty() || !maybeSaveEdits()) return;
  startLoading(path);
}

void MainWindow::startLoading(const QString& path, const QString& autosaveFile) {
  const quint64 generation = ++generation_;
  loadingPath_ = path;
  setBusy(true, tr("Loading %1...").arg(QFileInfo(path).fileName()));

  auto result = std::make_shared<LoadResult>();
  result->restored = !autosaveFile.isEmpty();
  const std::filesystem::path file(QFile::encodeName(path).toStdString());
  const std::filesystem::path autosaved(QFile::encodeName(autosaveFile).toStdString());
  QThread* worker = QThread::create([result, file, autosaved] {
    QElapsedTimer timer;
    timer.start();
    try {
      auto loaded = autosaved.empty() ? loadModel(file) : loadAutosave(autosaved, file);
      if (loaded) {
        result->info = summarizeModel(**loaded);
        result->inference = std::make_unique<ShapeInference>(inferShapes(**loaded));
        result->model = std::move(loaded).value();
      } else {
        result->error = loaded.error();
      }
    } catch (const std::exception& failure) {  // std::bad_alloc on a model too large for memory
      result->error = makeError(std::string("cannot load the model: ") + failure.what());
    }
    result->elapsedMs = timer.elapsed();
  });
  connect(worker, &QThread::finished, this, [this, worker, generation, result] {
    std::erase_if(workers_, [&](const QPointer<QThread>& w) { return w.isNull() || w == worker; });
    worker->deleteLater();
    finishLoading(generation, result);
  });
  workers_.emplace_back(worker);
  worker->start();
}

void MainWindow::cancelLoading() {
  if (!loading_) return;
  ++generation_;
  setBusy(false, tr("Cancelled loading %1").arg(QFileInfo(loadingPath_).fileName()));
}

void MainWindow::finishLoading(quint64 generation, const std::shared_ptr<LoadResult>& result) {
  if (generation != generation_) return;  // cancelled, or another open superseded it
  const QString name = QFileInfo(loadingPath_).fileName();
  if (result->error) {
    const QString message = "error: " + loadingPath_ + ": " + qs(result->error->toString());
    setBusy(false, tr("Could not open %1").arg(name));
    if (errorBox_) errorBox_->close();
    errorBox_ = new QMessageBox(QMessageBox::Critical, tr("Onyx"), message, QMessageBox::Ok, this);
    errorBox_->setAttribute(Qt::WA_DeleteOnClose);
    errorBox_->open();  // window-modal without a nested event loop: the caller's flow goes on
    Q_EMIT loadFailed(message);
    return;
  }
  modelPath_ = loadingPath_;
  installDocument(std::move(result->model), std::move(result->inference));
  restoredEdits_ = result->restored;
  summary_->setInfo(result->info);
  pages_->setCurrentWidget(canvas_);
  updateTitle();
  const ModelInfo& info = result->info;
  setBusy(false, tr("%1: %2 nodes, %3 parameters (%4), loaded in %5 ms")
                     .arg(name, qs(groupThousands(info.nodeCount)), qs(groupThousands(info.parameterCount)),
                          qs(humanBytes(info.parameterBytes)))
                     .arg(result->elapsedMs));
  addRecentFile(QFileInfo(modelPath_).absoluteFilePath());
  if (restoredEdits_) {
    statusText_->setText(tr("Restored the unsaved edits to %1 from the autosave").arg(name));
    writeAutosave();  // this window's own autosave now holds them
  }
  Q_EMIT modelLoaded(modelPath_);
}

void MainWindow::installDocument(std::unique_ptr<Model> model, std::unique_ptr<ShapeInference> inference) {
  model_ = std::move(model);
  ModelDocument* previous = document_;
  document_ = new ModelDocument(model_, modelPath_, std::move(*inference), this);
  // Once per burst of edits (a pass step, an undo), not per engine event.
  connect(document_, &ModelDocument::changesSettled, this, &MainWindow::refreshSummary);
  canvas_->setDocument(document_);
  panels_->setDocument(document_);
  passPanel_->setDocument(document_);
  // A pipeline blocks undo while it runs: its steps are pushed as they finish.
  connect(passPanel_->session(), &PassSession::runningChanged, undoStack_,
          [this](bool running) { undoStack_->setActive(!running); });
  undoStack_->clear();  // the commands edit the previous document's model
  restoredEdits_ = false;
  autosave_.clear();
  installProfilePanel();
  delete previous;  // after the views let go of it
}

void MainWindow::installProfilePanel() {
  QWidget* old = profileDock_->widget();
  profilePanel_ = new ProfilePanel(document_);
  // In a scroll area: the profile views' own minimum heights (charts) must not set the window's.
  auto* scroll = new QScrollArea(profileDock_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(profilePanel_);
  profileDock_->setWidget(scroll);
  delete old;
  showProfileDockWhenThereIsAProfile();
  canvas_->clearNodeOverlay();
  // The panel's overlay paints the canvas: heat colour and time per node, totals on collapsed scopes.
  connect(profilePanel_, &ProfilePanel::overlayChanged, canvas_, [this](const ProfileOverlay& overlay) {
    std::unordered_map<NodeId, NodeOverlay> nodes;
    for (const auto& [id, entry] : overlay.nodes) nodes[id] = NodeOverlay{entry.fill, entry.label, entry.value};
    std::vector<LegendEntry> legend;
    for (const auto& [color, text] : overlay.legend) legend.push_back({color, text});
    canvas_->setNodeOverlay(std::move(nodes), std::move(legend), &ProfileOverlay::formatTotal);
  });
}

void MainWindow::updateTitle() {
  if (modelPath_.isEmpty()) {
    setWindowTitle(QStringLiteral("Onyx"));
    return;
  }
  const QString modified = isModified() ? QStringLiteral("*") : QString();
  setWindowTitle(QFileInfo(modelPath_).fileName() + modified + QStringLiteral(" - Onyx"));
}

void MainWindow::showSaveAsDialog() {
  if (!document_) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Save ONNX Model As"), modelPath_,
                                                    tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) saveModelAs(path);
}

bool MainWindow::saveModelAs(const QString& path) {
  if (!document_) return false;
  const std::filesystem::path file(QFile::encodeName(path).toStdString());
  auto saved = saveModel(document_->model(), file);
  if (!saved) {
    const QString message = "error: " + path + ": " + qs(saved.error().toString());
    statusText_->setText(tr("Could not save %1").arg(QFileInfo(path).fileName()));
    if (isVisible()) QMessageBox::critical(this, tr("Onyx"), message);
    return false;
  }
  undoStack_->setClean();
  restoredEdits_ = false;
  autosave_.clear();
  updateTitle();
  statusText_->setText(tr("Saved %1 (%2 bytes)").arg(path).arg(saved->modelBytes));
  return true;
}

DiffWindow* MainWindow::showDiff(const Model& before, const Model& after, const QString& beforeTitle,
                                 const QString& afterTitle, bool sameLineage) {
  auto* window = new DiffWindow(before, after, beforeTitle, afterTitle,
                                sameLineage ? diff::MatchBy::NodeIds : diff::MatchBy::Structure, this);
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  return window;
}

QList<DiffWindow*> MainWindow::diffWindows() const {
  return findChildren<DiffWindow*>(QString(), Qt::FindDirectChildrenOnly);
}

void MainWindow::compareWithFile(const QString& path) {
  if (!document_) return;
  auto loaded = std::make_shared<Expected<std::unique_ptr<Model>>>(makeError("not loaded"));
  const std::filesystem::path file(QFile::encodeName(path).toStdString());
  statusText_->setText(tr("Loading %1 to compare...").arg(QFileInfo(path).fileName()));
  QThread* worker = QThread::create([loaded, file] { *loaded = loadModel(file); });
  QPointer<ModelDocument> document = document_;
  connect(worker, &QThread::finished, this, [this, worker, loaded, path, document] {
    std::erase_if(workers_, [&](const QPointer<QThread>& w) { return w.isNull() || w == worker; });
    worker->deleteLater();
    if (!document || document != document_) return;  // another model was opened meanwhile
    if (!*loaded) {
      const QString message = "error: " + path + ": " + qs(loaded->error().toString());
      statusText_->setText(message);
      if (isVisible()) QMessageBox::critical(this, tr("Onyx"), message);
      return;
    }
    showDiff(document_->model(), ***loaded, QFileInfo(modelPath_).fileName(), QFileInfo(path).fileName(), false);
    statusText_->setText(tr("Compared with %1").arg(path));
  });
  workers_.emplace_back(worker);
  worker->start();
}

void MainWindow::setBusy(bool busy, const QString& message) {
  loading_ = busy;
  busyBar_->setVisible(busy);
  cancelButton_->setVisible(busy);
  if (!message.isEmpty()) statusText_->setText(message);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSaveEdits()) {
    event->ignore();
    return;
  }
  autosave_.clear();
  saveLayout();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && !mime->urls().isEmpty() && isOnnxFile(mime->urls().first()))
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !isOnnxFile(urls.first())) return;
  event->acceptProposedAction();
  openModel(urls.first().toLocalFile());
}

}  // namespace onyx::views
