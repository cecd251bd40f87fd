#pragma once
// The Run dialog: backend, threads, bindings for the input symbols, inputs (random, zeros, a test_data_set
// folder or .pb files), warm-up and iterations. Its defaults run first time: the test_data_set_N folders
// beside the model come first in the inputs, the bindings are read from the chosen set's tensors (else
// typical sizes: profile/run_defaults.h), and a line per input says what will be fed. Running happens on a worker thread with progress
// ("iteration k of n") and a cancel button; the result goes to the profile session (results panel, views).
#include <QDialog>
#include <QPointer>
#include <atomic>
#include <cstdint>
#include <memory>

#include "profile/profile_run.h"

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QCheckBox;
class QSpinBox;
class QThread;

namespace onyx::views {

class ProfileSession;

class RunDialog : public QDialog {
  Q_OBJECT

 public:
  explicit RunDialog(ProfileSession* session, QWidget* parent = nullptr);
  ~RunDialog() override;  // cancels a run still going and waits for it

  // The request the form describes (bindings and paths parsed), or why it is not valid.
  Expected<profile::RunRequest> request() const;
  void setRequest(const profile::RunRequest& request);
  bool isRunning() const { return worker_ != nullptr; }
  QString statusText() const;
  QProgressBar* progressBar() const { return progress_; }
  // The inputs choices: the data sets found beside the model first, then random, zeros, other folder, files.
  QComboBox* inputsBox() const { return inputs_; }
  // What the form will feed, one line per graph input ("input: float32[1, 3, 224, 224] from ...").
  QString feedText() const;

 public Q_SLOTS:
  void start();
  void cancel();

 Q_SIGNALS:
  void progressed(int done, int total, const QString& phase);
  void finished(bool ok, const QString& message);  // message: the error, "cancelled" or the latency line

 private:
  void setRunning(bool running);
  // Selects the inputs entry for `source` (and `path`: a data set found beside the model, else "other").
  void selectInputs(profile::InputSource source, const QString& path);
  void applyInputsChoice();
  void updateFeed();
  void onProgress(const profile::RunProgress& progress);
  void onFinished(std::shared_ptr<Expected<profile::RunResult>> result);

  ProfileSession* session_;
  QComboBox* backend_;
  QSpinBox* threads_;
  QCheckBox* adaptThreads_;
  std::vector<std::pair<std::string, QSpinBox*>> bindings_;
  QComboBox* inputs_;
  QLineEdit* inputPath_;
  QPushButton* browse_;
  QSpinBox* warmup_;
  QSpinBox* iterations_;
  QProgressBar* progress_;
  QLabel* feed_;
  QLabel* status_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QThread* worker_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;
  uint64_t runRevision_ = 0;  // the document's edit revision the running worker's snapshot was taken at
};

}  // namespace onyx::views
