#pragma once
// The passes applied to one open document, as the pass panel shows them: every step with what the pass
// counted and skipped, the node counts, time and numeric check, a snapshot of the model after it (so any two
// steps can be compared), and a QUndoCommand per step that changed the model. Passes edit the document's
// model on the UI thread (ModelDocument relays change events directly); a pipeline runs one pass per event
// loop turn, so the window stays responsive, shows progress and can be cancelled between passes. With
// measuring on, each step also records what it costs to run (passes::StepCost); the applied steps save as a
// recipe, a recipe replays as a run, and bisect() finds the step and rewrite that break the outputs.
// Step Into applies a pass one rewrite at a time (passes/rewrite_steps.h): each call either shows the next
// rewrite's match or applies it, and every rewrite applied is a step with its own QUndoCommand.
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "passes/bisect.h"
#include "passes/measure.h"
#include "passes/pass_manager.h"
#include "passes/recipe.h"
#include "passes/rewrite_steps.h"

class QUndoStack;

namespace onyx::views {

class ModelDocument;

struct PassRequest {
  QStringList passes;     // run in order, once each
  QString scope;          // "" the whole model, else a name scope ("/encoder/layer.0")
  bool verify = false;    // numeric check of every step
  QString inputsFolder;   // a test_data_set_N folder for the check; "" random inputs
  bool measure = false;   // run the model after each step: latency, peak bytes, worst error vs the original
  // A recipe's steps: each pass's own scope and options, parallel to `passes` (empty: `scope` and defaults).
  QStringList scopes;
  std::vector<passes::PassOptions> options;
};

// Where Step Into stands: the rewrite whose match is shown (before it applies) or whose result is (after).
struct RewriteFocus {
  enum class Phase { None, Matched, Applied };
  Phase phase = Phase::None;
  QString pass;
  int rewrite = 0;   // 1-based
  int rewrites = 0;  // in the pass as it was split
  // Matched: the nodes the rewrite matches (root first); Applied: those it made or modified.
  std::vector<NodeId> nodes;
  QString text;  // what the status line says
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
    passes::PassOptions options;
    // A step Step Into applied: rewrite `rewrite` of the `rewrites` its pass made when split (1-based), all
    // from one split with the same `split` number; 0 for a pass applied whole.
    int rewrite = 0;
    int rewrites = 0;
    int split = 0;
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
  // The cost of the model before any step, once a run measured (PassRequest::measure).
  const std::optional<passes::StepCost>& baselineCost() const { return baselineCost_; }

  // The steps in effect (undone ones left out), as a recipe.
  passes::Recipe recipe() const;
  // Runs a recipe's steps (as run() does, with the check and measuring as asked).
  void runRecipe(const passes::Recipe& recipe, bool verify = false, bool measure = false);
  // Bisects the steps in effect on the session's original model: which step, and which rewrite in it,
  // first makes the outputs differ beyond tolerance (inputs: the folder, else random with the bindings).
  Expected<passes::BisectResult> bisect(const QString& inputsFolder = {}) const;

  // Step Into `pass` on `scope`: the first call (or the first after the history moved some other way)
  // splits the pass into its rewrites and shows the first one's match; the next applies it (a step, pushed
  // on the undo stack, measured when `measure`) and shows what it made; the next shows the following
  // match, and so on. A pass that does not count its rewrites applies whole. Returns the status text;
  // rewriteFocusChanged and, when a rewrite applied, stepApplied follow. Ignored while a run is going.
  QString stepInto(const QString& pass, const QString& scope = {}, bool measure = false,
                   const QString& inputsFolder = {});
  const RewriteFocus& rewriteFocus() const { return focus_; }
  // Forgets the split and the focus (a run, a new document); the applied steps stay.
  void stopStepping();

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
  void rewriteFocusChanged();

 private:
  struct Pending {
    // Declared: clang 14 (the TSan build) takes a nested struct's implicit constructor, with default member
    // initializers, as missing inside std::optional of the enclosing class.
    Pending() {}
    PassRequest request;
    int next = 0;
    size_t nodesBefore = 0;
    int applied = 0;
    std::unique_ptr<passes::PassManager> manager;
    exec::NamedValues inputs;  // the check's inputs; empty: random
    std::unique_ptr<passes::StepMeasurer> measurer;
  };
  Expected<exec::NamedValues> inputsFrom(const QString& folder) const;
  void runNext();
  void finish(const QString& error);
  void discardUndoneSteps();
  // Appends a step that already changed the model and, when it has edits, pushes its command (`text`).
  void addStep(Step step, const QString& text);
  // The measurer against the session's original model (created on first use; null with `error` set when
  // the model does not run).
  passes::StepMeasurer* measurer(const QString& inputsFolder, QString* error);
  // Step Into's split pass and how far it got (pass_session_step_into.cpp).
  struct Stepping {
    QString pass;
    QString scope;
    bool measure = false;
    QString inputsFolder;
    passes::RewriteSteps steps;
    size_t next = 0;  // the rewrite the next apply applies
    int split = 0;
    int undoIndex = 0;  // the undo stack's index when it was last in step with the model
  };
  QString startStepping(const QString& pass, const QString& scope, bool measure, const QString& inputsFolder);
  QString applyFocusedRewrite();
  QString showMatch(size_t index);
  void setFocus(RewriteFocus focus);
  void dropStaleStepping();

  ModelDocument& document_;
  QUndoStack& undoStack_;
  std::shared_ptr<const Model> baseline_;
  std::vector<Step> steps_;
  std::optional<passes::StepCost> baselineCost_;
  std::optional<Pending> pending_;
  bool cancelRequested_ = false;
  std::unique_ptr<Stepping> stepping_;
  RewriteFocus focus_;
  int splits_ = 0;
  std::unique_ptr<passes::StepMeasurer> measurer_;  // for Step Into, against baseline_
  QString measurerFolder_;                          // the inputs it runs on
};

}  // namespace onyx::views
