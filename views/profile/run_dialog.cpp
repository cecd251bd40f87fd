#include "run_dialog.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include "profile_session.h"

namespace onyx::views {

RunDialog::RunDialog(ProfileSession* session, QWidget* parent) : QDialog(parent), session_(session) {
  setWindowTitle(tr("Run and profile"));
  auto* form = new QFormLayout;
  backend_ = new QComboBox(this);
  for (const std::string& b : profile::availableBackends()) backend_->addItem(QString::fromStdString(b));
  backend_->setCurrentText(QStringLiteral("cpu"));
  form->addRow(tr("Backend"), backend_);
  threads_ = new QSpinBox(this);
  threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
  threads_->setValue(std::min(2, threads_->maximum()));
  form->addRow(tr("Threads"), threads_);
  const SymBindings& known = session_->document()->bindings();
  for (const std::string& symbol : profile::inputSymbols(session_->document()->model())) {
    auto* value = new QSpinBox(this);
    value->setRange(1, 1 << 20);
    auto found = known.find(symbol);
    value->setValue(found != known.end() ? int(found->second) : 1);
    bindings_.push_back({symbol, value});
    form->addRow(tr("Bind %1").arg(QString::fromStdString(symbol)), value);
  }
  inputs_ = new QComboBox(this);
  inputs_->addItems({tr("Random"), tr("Zeros"), tr("test_data_set folder"), tr(".pb files, one per input")});
  form->addRow(tr("Inputs"), inputs_);
  inputPath_ = new QLineEdit(this);
  inputPath_->setPlaceholderText(tr("folder, or .pb files separated by ';'"));
  browse_ = new QPushButton(tr("Browse…"), this);
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(inputPath_, 1);
  pathRow->addWidget(browse_);
  form->addRow(tr("Input files"), pathRow);
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

  auto updatePath = [this] {
    bool files = inputs_->currentIndex() >= 2;
    inputPath_->setEnabled(files);
    browse_->setEnabled(files);
  };
  connect(inputs_, &QComboBox::currentIndexChanged, this, updatePath);
  connect(browse_, &QPushButton::clicked, this, [this] {
    if (inputs_->currentIndex() == int(profile::InputSource::TestDataSet)) {
      QString dir = QFileDialog::getExistingDirectory(this, tr("test_data_set folder"));
      if (!dir.isEmpty()) inputPath_->setText(dir);
    } else {
      QStringList files = QFileDialog::getOpenFileNames(this, tr("Input tensors"), {}, tr("Tensors (*.pb)"));
      if (!files.isEmpty()) inputPath_->setText(files.join(';'));
    }
  });
  connect(runButton_, &QPushButton::clicked, this, &RunDialog::start);
  connect(cancelButton_, &QPushButton::clicked, this, &RunDialog::cancel);
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  updatePath();
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
  for (const auto& [symbol, box] : bindings_) r.bindings[symbol] = box->value();
  r.inputs = profile::InputSource(inputs_->currentIndex());
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
  for (auto& [symbol, box] : bindings_)
    if (auto found = r.bindings.find(symbol); found != r.bindings.end()) box->setValue(int(found->second));
  inputs_->setCurrentIndex(int(r.inputs));
  if (r.inputs == profile::InputSource::TestDataSet)
    inputPath_->setText(QString::fromStdString(r.dataSet.string()));
  if (r.inputs == profile::InputSource::TensorFiles) {
    QStringList files;
    for (const auto& f : r.tensorFiles) files << QString::fromStdString(f.string());
    inputPath_->setText(files.join(';'));
  }
  warmup_->setValue(r.warmup);
  iterations_->setValue(r.iterations);
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
  // The worker holds the model (shared) and the cancel flag; results come back as queued calls, which Qt
  // drops if this dialog is gone (its destructor waits for the worker first).
  std::shared_ptr<const Model> model = session_->document()->sharedModel();
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
