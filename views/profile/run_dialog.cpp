#include "run_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include "exec/thread_pool.h"
#include "inference_snapshot.h"
#include "model_document.h"
#include "profile/run_defaults.h"
#include "profile_session.h"

namespace onyx::views {
namespace {

constexpr int kSourceRole = Qt::UserRole;   // the entry's profile::InputSource
constexpr int kPathRole = Qt::UserRole + 1;  // the data set found beside the model ("" for the others)

}  // namespace

RunDialog::RunDialog(ProfileSession* session, QWidget* parent) : QDialog(parent), session_(session) {
  setWindowTitle(tr("Run and profile"));
  auto* form = new QFormLayout;
  backend_ = new QComboBox(this);
  for (const std::string& b : profile::availableBackends()) backend_->addItem(QString::fromStdString(b));
  backend_->setCurrentText(QStringLiteral("cpu"));
  form->addRow(tr("Backend"), backend_);
  threads_ = new QSpinBox(this);
  threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
  // The engine's default, one thread per physical core, is preselected and named, so the choice is visible.
  const int cores = exec::ThreadPool::physicalCoreCount();
  threads_->setRange(1, std::max(cores, threads_->maximum()));
  threads_->setValue(cores);
  threads_->setToolTip(tr("Default: %n physical core(s)", "", cores));
  form->addRow(tr("Threads"), threads_);
  form->addRow(QString(), new QLabel(tr("default %n (physical cores)", "", cores), this));
  adaptThreads_ = new QCheckBox(tr("Fewer while other programs keep cores busy"), this);
  adaptThreads_->setChecked(true);
  adaptThreads_->setToolTip(
      tr("A thread that shares its core with another program finishes its share late, and every node waits "
         "for it: runs then use only the cores others leave free"));
  form->addRow(QString(), adaptThreads_);
  const Model& model = session_->document()->model();
  const std::filesystem::path modelPath(QFile::encodeName(session_->document()->path()).toStdString());
  const std::vector<std::filesystem::path> dataSets = findTestDataSets(modelPath);
  // Bindings the user gave the document (the unknown-dims panel) win; else the first data set's dims, else
  // typical sizes.
  const SymBindings proposed = proposeBindings(model, dataSets.empty() ? std::filesystem::path() : dataSets.front());
  const SymBindings& known = session_->document()->bindings();
  for (const std::string& symbol : profile::inputSymbols(model)) {
    auto* value = new QSpinBox(this);
    value->setRange(1, 1 << 20);
    auto found = known.find(symbol);
    auto typical = proposed.find(symbol);
    value->setValue(found != known.end() ? int(found->second) : typical != proposed.end() ? int(typical->second) : 1);
    bindings_.push_back({symbol, value});
    form->addRow(tr("Bind %1").arg(QString::fromStdString(symbol)), value);
    connect(value, &QSpinBox::valueChanged, this, &RunDialog::updateFeed);
  }
  inputs_ = new QComboBox(this);
  auto addChoice = [this](const QString& text, profile::InputSource source, const QString& path = {}) {
    inputs_->addItem(text);
    inputs_->setItemData(inputs_->count() - 1, int(source), kSourceRole);
    inputs_->setItemData(inputs_->count() - 1, path, kPathRole);
  };
  for (const std::filesystem::path& set : dataSets)
    addChoice(tr("%1 (beside the model)").arg(QString::fromStdString(set.filename().string())),
              profile::InputSource::TestDataSet, QFile::decodeName(set.string().c_str()));
  addChoice(tr("Random values"), profile::InputSource::Random);
  addChoice(tr("Zeros"), profile::InputSource::Zeros);
  addChoice(tr("Another test_data_set folder..."), profile::InputSource::TestDataSet);
  addChoice(tr(".pb files, one per input..."), profile::InputSource::TensorFiles);
  form->addRow(tr("Inputs"), inputs_);
  inputPath_ = new QLineEdit(this);
  inputPath_->setPlaceholderText(tr("folder, or .pb files separated by ';'"));
  browse_ = new QPushButton(tr("Browse…"), this);
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(inputPath_, 1);
  pathRow->addWidget(browse_);
  form->addRow(tr("Input files"), pathRow);
  feed_ = new QLabel(this);
  feed_->setWordWrap(true);
  feed_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  form->addRow(tr("Will feed"), feed_);
  warmup_ = new QSpinBox(this);
  warmup_->setRange(0, 1000);
  warmup_->setValue(1);
  form->addRow(tr("Warm-up runs"), warmup_);
  iterations_ = new QSpinBox(this);
  iterations_->setRange(1, 100000);
  iterations_->setValue(10);
  form->addRow(tr("Timed iterations"), iterations_);

  progress_ = new QProgressBar(this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  runButton_ = new QPushButton(tr("Run"), this);
  runButton_->setDefault(true);
  cancelButton_ = new QPushButton(tr("Cancel run"), this);
  auto* close = new QPushButton(tr("Close"), this);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(runButton_);
  buttons->addWidget(cancelButton_);
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addLayout(buttons);

  connect(inputs_, &QComboBox::currentIndexChanged, this, &RunDialog::applyInputsChoice);
  connect(inputPath_, &QLineEdit::textChanged, this, &RunDialog::updateFeed);
  connect(browse_, &QPushButton::clicked, this, [this] {
    const QString start = QFileInfo(session_->document()->path()).absolutePath();
    if (profile::InputSource(inputs_->currentData(kSourceRole).toInt()) == profile::InputSource::TestDataSet) {
      QString dir = QFileDialog::getExistingDirectory(this, tr("test_data_set folder"), start);
      if (!dir.isEmpty()) inputPath_->setText(dir);
    } else {
      QStringList files = QFileDialog::getOpenFileNames(this, tr("Input tensors"), start, tr("Tensors (*.pb)"));
      if (!files.isEmpty()) inputPath_->setText(files.join(';'));
    }
  });
  connect(runButton_, &QPushButton::clicked, this, &RunDialog::start);
  connect(cancelButton_, &QPushButton::clicked, this, &RunDialog::cancel);
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  inputs_->setCurrentIndex(0);  // a data set beside the model when there is one, else random values
  applyInputsChoice();
  setRunning(false);
}

RunDialog::~RunDialog() {
  if (cancel_) *cancel_ = true;
  if (worker_) worker_->wait();
}

Expected<profile::RunRequest> RunDialog::request() const {
  profile::RunRequest r;
  r.backend = backend_->currentText().toStdString();
  r.threads = threads_->value();
  r.adaptThreads = adaptThreads_->isChecked();
  for (const auto& [symbol, box] : bindings_) r.bindings[symbol] = box->value();
  r.inputs = profile::InputSource(inputs_->currentData(kSourceRole).toInt());
  QString path = inputPath_->text().trimmed();
  if (r.inputs == profile::InputSource::TestDataSet) {
    if (path.isEmpty()) return makeError("choose a test_data_set folder for the inputs");
    r.dataSet = path.toStdString();
  } else if (r.inputs == profile::InputSource::TensorFiles) {
    for (const QString& file : path.split(';', Qt::SkipEmptyParts))
      r.tensorFiles.push_back(file.trimmed().toStdString());
    if (r.tensorFiles.empty()) return makeError("choose the .pb files of the inputs, one per input");
  }
  r.warmup = warmup_->value();
  r.iterations = iterations_->value();
  r.profile = true;
  return r;
}

void RunDialog::setRequest(const profile::RunRequest& r) {
  backend_->setCurrentText(QString::fromStdString(r.backend));
  threads_->setValue(r.threads);
  adaptThreads_->setChecked(r.adaptThreads);
  for (auto& [symbol, box] : bindings_)
    if (auto found = r.bindings.find(symbol); found != r.bindings.end()) box->setValue(int(found->second));
  QString path;
  if (r.inputs == profile::InputSource::TestDataSet) path = QString::fromStdString(r.dataSet.string());
  if (r.inputs == profile::InputSource::TensorFiles) {
    QStringList files;
    for (const auto& f : r.tensorFiles) files << QString::fromStdString(f.string());
    path = files.join(';');
  }
  selectInputs(r.inputs, path);
  // The request's bindings, not those of the data set the choice proposed.
  for (auto& [symbol, box] : bindings_)
    if (auto found = r.bindings.find(symbol); found != r.bindings.end()) box->setValue(int(found->second));
  warmup_->setValue(r.warmup);
  iterations_->setValue(r.iterations);
}

void RunDialog::selectInputs(profile::InputSource source, const QString& path) {
  int choice = -1;
  for (int i = 0; i < inputs_->count() && choice < 0; ++i) {
    if (profile::InputSource(inputs_->itemData(i, kSourceRole).toInt()) != source) continue;
    const QString itemPath = inputs_->itemData(i, kPathRole).toString();
    const bool found = !itemPath.isEmpty();
    if (!found || QFileInfo(itemPath) == QFileInfo(path)) choice = i;  // "other" entries have no path
  }
  inputs_->setCurrentIndex(choice);
  applyInputsChoice();
  if (inputs_->currentData(kPathRole).toString().isEmpty()) inputPath_->setText(path);
}

void RunDialog::applyInputsChoice() {
  const auto source = profile::InputSource(inputs_->currentData(kSourceRole).toInt());
  const QString foundPath = inputs_->currentData(kPathRole).toString();
  const bool files = source == profile::InputSource::TestDataSet || source == profile::InputSource::TensorFiles;
  // A data set found beside the model needs no path typed; "another folder" and files do.
  inputPath_->setEnabled(files && foundPath.isEmpty());
  browse_->setEnabled(files && foundPath.isEmpty());
  if (!foundPath.isEmpty()) {
    inputPath_->setText(foundPath);
    // Its tensors say what the symbols are (unless the user bound them on the document).
    const SymBindings& known = session_->document()->bindings();
    const SymBindings measured = proposeBindings(session_->document()->model(),
                                                 std::filesystem::path(QFile::encodeName(foundPath).toStdString()));
    for (auto& [symbol, box] : bindings_)
      if (auto found = measured.find(symbol); found != measured.end() && !known.contains(symbol))
        box->setValue(int(found->second));
  } else if (!files) {
    inputPath_->clear();
  }
  updateFeed();
}

void RunDialog::updateFeed() {
  auto r = request();
  if (!r) {
    feed_->setText(QString::fromStdString(r.error().message));
    return;
  }
  QStringList lines;
  for (const std::string& line : describeFeed(session_->document()->model(), *r)) lines << QString::fromStdString(line);
  feed_->setText(lines.isEmpty() ? tr("nothing: the model has no inputs") : lines.join('\n'));
}

QString RunDialog::feedText() const {
  return feed_->text();
}

QString RunDialog::statusText() const {
  return status_->text();
}

void RunDialog::setRunning(bool running) {
  runButton_->setEnabled(!running);
  cancelButton_->setEnabled(running);
  progress_->setVisible(running || progress_->value() > 0);
}

void RunDialog::start() {
  if (worker_) return;
  auto req = request();
  if (!req) {
    status_->setText(QString::fromStdString(req.error().toString()));
    Q_EMIT finished(false, status_->text());
    return;
  }
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  progress_->setRange(0, req->warmup + req->iterations);
  progress_->setValue(0);
  status_->setText(tr("Starting…"));
  // The worker holds a snapshot of the model (the UI thread may edit the model meanwhile) and the cancel
  // flag; results come back as queued calls, which Qt drops if this dialog is gone (its destructor waits for
  // the worker first). The snapshot's nodes keep their ids, which the profile names.
  std::shared_ptr<const Model> model = snapshotOf(session_->document()->model());
  runRevision_ = session_->document()->editRevision();
  auto cancel = cancel_;
  profile::RunRequest request = *req;
  worker_ = QThread::create([this, model, cancel, request] {
    auto result = std::make_shared<Expected<profile::RunResult>>(profile::runProfiled(
        *model, request,
        [this](const profile::RunProgress& p) {
          QMetaObject::invokeMethod(
              this, [this, p] { onProgress(p); }, Qt::QueuedConnection);
        },
        cancel.get()));
    QMetaObject::invokeMethod(
        this, [this, result] { onFinished(result); }, Qt::QueuedConnection);
  });
  setRunning(true);
  worker_->start();
}

void RunDialog::cancel() {
  if (!cancel_ || !worker_) return;
  *cancel_ = true;
  status_->setText(tr("Cancelling after the current iteration…"));
}

void RunDialog::onProgress(const profile::RunProgress& p) {
  int warmup = warmup_->value();
  progress_->setValue(p.phase == "warm-up" ? p.done : warmup + p.done);
  QString text = p.phase == "warm-up" ? tr("Warm-up %1 of %2").arg(p.done).arg(p.total)
                                      : tr("Iteration %1 of %2").arg(p.done).arg(p.total);
  status_->setText(text);
  Q_EMIT progressed(p.done, p.total, QString::fromStdString(p.phase));
}

void RunDialog::onFinished(std::shared_ptr<Expected<profile::RunResult>> result) {
  worker_->wait();
  worker_->deleteLater();
  worker_ = nullptr;
  setRunning(false);
  if (!*result) {
    status_->setText(QString::fromStdString(result->error().toString()));
    Q_EMIT finished(false, status_->text());
    return;
  }
  if (session_->document()->editRevision() != runRevision_) {
    // Node ids and the memory plan describe the model as it was: an edit may have removed or reused them.
    status_->setText(tr("The model was edited during the run, so its results no longer describe it: run again"));
    Q_EMIT finished(false, status_->text());
    return;
  }
  const profile::RunResult& r = **result;
  if (r.cancelled && r.latency.ms.empty()) {
    status_->setText(tr("Cancelled before any timed iteration"));
    Q_EMIT finished(false, QStringLiteral("cancelled"));
    return;
  }
  session_->setRunResult(r);
  status_->setText(tr("%1%2 iterations on %3: median %4 ms")
                       .arg(r.cancelled ? tr("Cancelled after ") : QString())
                       .arg(r.latency.ms.size())
                       .arg(QString::fromStdString(r.backendUsed))
                       .arg(r.latency.median(), 0, 'f', 3));
  Q_EMIT finished(true, r.cancelled ? QStringLiteral("cancelled") : status_->text());
}

}  // namespace onyx::views
