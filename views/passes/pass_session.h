#pragma once
// The passes applied to one open document, as the pass panel shows them: every step with what the pass
// counted and skipped, the node counts, time and numeric check, a snapshot of the model after it (so any two
// steps can be compared), and a QUndoCommand per step that changed the model. Passes edit the document's
// model on the UI thread (ModelDocument relays change events directly); a pipeline runs one pass per event
// loop turn, so the window stays responsive, shows progress and can be cancelled between passes.
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "passes/pass_manager.h"

class QUndoStack;

namespace onyx::views {

class ModelDocument;

struct PassRequest {
  QStringList passes;     // run in order, once each
  QString scope;          // "" the whole model, else a name scope ("/encoder/layer.0")
  bool verify = false;    // numeric check of every step
  QString inputsFolder;   // a test_data_set_N folder for the check; "" random inputs
};

class PassSession : public QObject {
  Q_OBJECT

 public:
  struct Step {
    passes::PassStep record;
    QString scope;
    // The model after the step (a copy keeping node ids, so diffs match by id).
    std::shared_ptr<const Model> after;
    // Index of the step's command in the undo stack; -1 when the step changed nothing.
    int command = -1;
  };

  PassSession(ModelDocument& document, QUndoStack& undoStack, QObject* parent = nullptr);
  ~PassSession() override;

  ModelDocument& document() const { return document_; }
  QUndoStack& undoStack() const { return undoStack_; }
  const std::vector<Step>& steps() const { return steps_; }
  // Whether step `index` is in effect (not undone).
  bool isApplied(int index) const;
  // The model as it was when the session started (before any step).
  const std::shared_ptr<const Model>& baseline() const { return baseline_; }
  // The model after step `index` (-1: the baseline).
  std::shared_ptr<const Model> snapshot(int index) const;

  bool isRunning() const { return pending_.has_value(); }

 public Q_SLOTS:
  // Starts running the passes; stepApplied follows per pass, then finished. Ignored while running.
  void run(const PassRequest& request);
  // Stops after the pass running now; its step stays applied.
  void cancel();

 Q_SIGNALS:
  void runningChanged(bool running);
  void progress(int done, int total, const QString& nextPass);
  void stepApplied(int index);
  // The history changed in another way (undo/redo, steps discarded by a new step after undo).
  void historyChanged();
  // `error` is empty when every pass ran; else it names the pass that failed (its edits are reverted).
  void finished(const QString& summary, const QString& error);

 private:
  struct Pending {
    PassRequest request;
    int next = 0;
    size_t nodesBefore = 0;
    int applied = 0;
    std::unique_ptr<passes::PassManager> manager;
    exec::NamedValues inputs;  // the check's inputs; empty: random
  };
  void runNext();
  void finish(const QString& error);
  void discardUndoneSteps();

  ModelDocument& document_;
  QUndoStack& undoStack_;
  std::shared_ptr<const Model> baseline_;
  std::vector<Step> steps_;
  std::optional<Pending> pending_;
  bool cancelRequested_ = false;
};

}  // namespace onyx::views
