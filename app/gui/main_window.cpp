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
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThread>
#include <QUrl>
#include <exception>
#include <filesystem>
#include <optional>

#include "graph/graph_canvas.h"
#include "explorer_panels.h"
#include "ir/model.h"
#include "model_document.h"
#include "model_summary_view.h"
#include "onnx/onnx_io.h"

namespace onyx::views {
namespace {

constexpr int kMaxRecentFiles = 10;
const char* const kRecentFilesKey = "recentFiles";
const char* const kGeometryKey = "mainWindow/geometry";

QString qs(const std::string& text) {
  return QString::fromStdString(text);
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
};

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("Onyx"));
  setAcceptDrops(true);
  resize(1100, 720);

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
  auto* summaryDock = new QDockWidget(tr("Summary"), this);
  summaryDock->setObjectName(QStringLiteral("summaryDock"));
  summaryDock->setWidget(summary_);
  addDockWidget(Qt::LeftDockWidgetArea, summaryDock);

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

  panels_ = new ExplorerPanels(this);
  createMenus();
  restoreGeometry(QSettings().value(kGeometryKey).toByteArray());
}

MainWindow::~MainWindow() {
  ++generation_;
  // A load cannot be interrupted; wait so no thread outlives the window and the process exits cleanly.
  for (const QPointer<QThread>& worker : workers_) {
    if (!worker) continue;
    worker->wait();
    delete worker.data();
  }
}

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
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* copy = edit->addAction(tr("&Copy Summary as Text"), summary_, &ModelSummaryView::copyAsText);
  copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  panels_->addActions(edit, menuBar()->addMenu(tr("&View")));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Onyx"), this, [this] {
    QMessageBox::about(
        this, tr("About Onyx"),
        tr("Onyx %1\nSee, optimize and profile ONNX models.").arg(QApplication::applicationVersion()));
  });
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
  if (path.isEmpty()) return;
  const quint64 generation = ++generation_;
  loadingPath_ = path;
  setBusy(true, tr("Loading %1...").arg(QFileInfo(path).fileName()));

  auto result = std::make_shared<LoadResult>();
  const std::filesystem::path file(QFile::encodeName(path).toStdString());
  QThread* worker = QThread::create([result, file] {
    QElapsedTimer timer;
    timer.start();
    try {
      auto loaded = loadModel(file);
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
  summary_->setInfo(result->info);
  pages_->setCurrentWidget(canvas_);
  setWindowTitle(name + QStringLiteral(" - Onyx"));
  const ModelInfo& info = result->info;
  setBusy(false, tr("%1: %2 nodes, %3 parameters (%4), loaded in %5 ms")
                     .arg(name, qs(groupThousands(info.nodeCount)), qs(groupThousands(info.parameterCount)),
                          qs(humanBytes(info.parameterBytes)))
                     .arg(result->elapsedMs));
  addRecentFile(QFileInfo(modelPath_).absoluteFilePath());
  Q_EMIT modelLoaded(modelPath_);
}

void MainWindow::installDocument(std::unique_ptr<Model> model, std::unique_ptr<ShapeInference> inference) {
  model_ = std::move(model);
  ModelDocument* previous = document_;
  document_ = new ModelDocument(model_, modelPath_, std::move(*inference), this);
  canvas_->setDocument(document_);
  panels_->setDocument(document_);
  delete previous;  // after the views let go of it
}

void MainWindow::setBusy(bool busy, const QString& message) {
  loading_ = busy;
  busyBar_->setVisible(busy);
  cancelButton_->setVisible(busy);
  if (!message.isEmpty()) statusText_->setText(message);
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

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings().setValue(kGeometryKey, saveGeometry());
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
