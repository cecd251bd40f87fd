#include "passes/pass_session.h"

#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

#include "exec/compare.h"
#include "ir/rewriter.h"
#include "model_document.h"

namespace onyx::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

// One step's edits on the undo stack. The step has already run when it is pushed, so the first redo()
// (QUndoStack::push calls it) does nothing.
class PassStepCommand : public QUndoCommand {
 public:
  PassStepCommand(ModelDocument& document, std::shared_ptr<ChangeLog> changes, const QString& text)
      : QUndoCommand(text), document_(document), changes_(std::move(changes)) {}

  void undo() override {
    changes_->undo();
    document_.reinfer();
  }
  void redo() override {
    if (firstRedo_) {
      firstRedo_ = false;
      return;
    }
    changes_->redo();
    document_.reinfer();
  }

 private:
  ModelDocument& document_;
  std::shared_ptr<ChangeLog> changes_;
  bool firstRedo_ = true;
};

}  // namespace

PassSession::PassSession(ModelDocument& document, QUndoStack& undoStack, QObject* parent)
    : QObject(parent),
      document_(document),
      undoStack_(undoStack),
      baseline_(Rewriter::copyModel(document.model())) {
  connect(&undoStack_, &QUndoStack::indexChanged, this, [this] {
    dropStaleStepping();
    Q_EMIT historyChanged();
  });
}

PassSession::~PassSession() = default;

bool PassSession::isApplied(int index) const {
  if (index < 0 || index >= static_cast<int>(steps_.size())) return false;
  // A step that changed nothing is in effect when the last changing step before it is.
  for (int i = index; i >= 0; --i)
    if (steps_[i].command >= 0) return steps_[i].command < undoStack_.index();
  return true;
}

std::shared_ptr<const Model> PassSession::snapshot(int index) const {
  if (index < 0 || index >= static_cast<int>(steps_.size())) return baseline_;
  return steps_[index].after;
}

void PassSession::run(const PassRequest& request) {
  if (pending_ || request.passes.isEmpty()) return;
  stopStepping();
  cancelRequested_ = false;
  pending_.emplace();
  pending_->request = request;
  pending_->nodesBefore = passes::countNodes(document_.model());
  pending_->manager = std::make_unique<passes::PassManager>(document_.model());
  if ((request.verify || request.measure) && !request.inputsFolder.isEmpty()) {
    auto inputs = inputsFrom(request.inputsFolder);
    if (!inputs) {
      Q_EMIT runningChanged(true);
      finish(tr("cannot read the check's inputs %1: %2")
                 .arg(request.inputsFolder, qs(inputs.error().toString())));
      return;
    }
    pending_->inputs = std::move(*inputs);
  }
  if (request.measure) {
    // Errors are measured against the session's original model, as `onyx optimize --measure` does.
    passes::MeasureOptions options{
        .enabled = true, .inputs = pending_->inputs, .bindings = document_.bindings()};
    auto measurer = passes::StepMeasurer::create(*baseline_, options);
    if (!measurer) {
      Q_EMIT runningChanged(true);
      finish(tr("cannot measure: %1").arg(qs(measurer.error().toString())));
      return;
    }
    pending_->measurer = std::move(*measurer);
    if (!baselineCost_) baselineCost_ = pending_->measurer->measure(*baseline_);
  }
  Q_EMIT runningChanged(true);
  Q_EMIT progress(0, static_cast<int>(request.passes.size()), request.passes.front());
  // Later, so the caller's UI shows the running state before the first pass blocks the event loop.
  QTimer::singleShot(0, this, &PassSession::runNext);
}

void PassSession::cancel() {
  if (pending_) cancelRequested_ = true;
}

// Steps after the undo stack's index were undone; a new step replaces them, as QUndoStack drops their
// commands on push.
void PassSession::discardUndoneSteps() {
  const int kept = undoStack_.index();
  while (!steps_.empty()) {
    const Step& last = steps_.back();
    if (last.command >= kept || (last.command < 0 && !isApplied(static_cast<int>(steps_.size()) - 1)))
      steps_.pop_back();
    else
      break;
  }
}

void PassSession::runNext() {
  if (!pending_) return;
  Pending& pending = *pending_;
  const int total = static_cast<int>(pending.request.passes.size());
  if (cancelRequested_ || pending.next >= total) {
    finish(cancelRequested_ ? tr("cancelled after %1 of %2 passes").arg(pending.next).arg(total) : QString());
    return;
  }
  const QString name = pending.request.passes[pending.next];
  auto pass = passes::createPass(name.toStdString());
  if (!pass) {
    finish(tr("unknown pass '%1'").arg(name));
    return;
  }
  passes::VerifyOptions verify;
  verify.enabled = pending.request.verify;
  verify.bindings = document_.bindings();
  verify.inputs = pending.inputs;
  const bool perStep = pending.request.scopes.size() == pending.request.passes.size() &&
                       pending.request.options.size() == size_t(pending.request.passes.size());
  const QString scope = perStep ? pending.request.scopes[pending.next] : pending.request.scope;
  const passes::PassOptions options =
      perStep ? pending.request.options[size_t(pending.next)] : passes::PassOptions{};
  auto step = pending.manager->runPass(*pass, scope.toStdString(), options, verify);
  if (!step) {
    finish(tr("%1 failed: %2 (its edits were reverted)").arg(name, qs(step.error().toString())));
    return;
  }
  discardUndoneSteps();
  Step record;
  record.record = std::move(*step);
  record.scope = scope;
  record.options = options;
  if (pending.measurer) {
    // An unchanged model costs what it did after the previous step.
    const Step* previous = steps_.empty() ? nullptr : &steps_.back();
    if (record.record.changed || !previous || !previous->record.cost)
      record.record.cost = pending.measurer->measure(document_.model());
    else
      record.record.cost = previous->record.cost;
  }
  if (record.record.changed && record.record.changes && !record.record.changes->empty()) ++pending.applied;
  QString text = name;
  if (!scope.isEmpty()) text += tr(" on %1").arg(scope);
  addStep(std::move(record), text);
  Q_EMIT stepApplied(static_cast<int>(steps_.size()) - 1);
  ++pending.next;
  if (pending.next < total) Q_EMIT progress(pending.next, total, pending.request.passes[pending.next]);
  QTimer::singleShot(0, this, &PassSession::runNext);
}

void PassSession::addStep(Step step, const QString& text) {
  if (step.record.changed && step.record.changes && !step.record.changes->empty()) {
    step.command = undoStack_.index();
    step.after = Rewriter::copyModel(document_.model());
    steps_.push_back(std::move(step));
    undoStack_.push(new PassStepCommand(document_, steps_.back().record.changes, text));
  } else {
    step.after = steps_.empty() ? baseline_ : steps_.back().after;
    steps_.push_back(std::move(step));
  }
}

passes::StepMeasurer* PassSession::measurer(const QString& inputsFolder, QString* error) {
  if (measurer_ && measurerFolder_ == inputsFolder) return measurer_.get();
  measurer_.reset();
  auto inputs = inputsFrom(inputsFolder);
  if (!inputs) {
    *error = tr("cannot read the inputs %1: %2").arg(inputsFolder, qs(inputs.error().toString()));
    return nullptr;
  }
  passes::MeasureOptions options{
      .enabled = true, .inputs = std::move(*inputs), .bindings = document_.bindings()};
  auto made = passes::StepMeasurer::create(*baseline_, options);
  if (!made) {
    *error = tr("cannot measure: %1").arg(qs(made.error().toString()));
    return nullptr;
  }
  measurer_ = std::move(*made);
  measurerFolder_ = inputsFolder;
  if (!baselineCost_) baselineCost_ = measurer_->measure(*baseline_);
  return measurer_.get();
}

Expected<exec::NamedValues> PassSession::inputsFrom(const QString& folder) const {
  if (folder.isEmpty()) return exec::NamedValues{};
  auto set = exec::loadTestDataSet(document_.model(), folder.toStdString());
  if (!set) return set.error();
  return std::move(set->inputs);
}

// The rewrites Step Into applied from one split are one recipe step: the pass, limited to as many rewrites
// as were applied when not all were (the debug counter replays exactly those).
passes::Recipe PassSession::recipe() const {
  passes::Recipe recipe;
  int lastSplit = 0;
  for (int i = 0; i < static_cast<int>(steps_.size()); ++i) {
    if (!isApplied(i)) continue;
    const Step& step = steps_[i];
    if (step.rewrite > 0 && step.split == lastSplit && !recipe.steps.empty()) {
      passes::RecipeStep& same = recipe.steps.back();
      const int64_t applied = same.options.rewriteLimit.value_or(0) + 1;
      if (applied < step.rewrites)
        same.options.rewriteLimit = applied;
      else
        same.options.rewriteLimit.reset();
      continue;
    }
    passes::RecipeStep entry{step.record.pass, step.scope.toStdString(), step.options};
    if (step.rewrite > 0 && step.rewrites > 1) entry.options.rewriteLimit = 1;
    recipe.steps.push_back(std::move(entry));
    lastSplit = step.rewrite > 0 ? step.split : 0;
  }
  return recipe;
}

void PassSession::runRecipe(const passes::Recipe& recipe, bool verify, bool measure) {
  PassRequest request;
  for (const passes::RecipeStep& step : recipe.steps) {
    request.passes << qs(step.pass);
    request.scopes << qs(step.scope);
    request.options.push_back(step.options);
  }
  request.verify = verify;
  request.measure = measure;
  run(request);
}

Expected<passes::BisectResult> PassSession::bisect(const QString& inputsFolder) const {
  auto inputs = inputsFrom(inputsFolder);
  if (!inputs) return inputs.error();
  std::vector<passes::BisectStep> steps;
  for (const passes::RecipeStep& step : recipe().steps)
    steps.push_back({[name = step.pass] { return passes::createPass(name); }, step.scope, step.options});
  passes::BisectOptions options;
  options.inputs = std::move(*inputs);
  options.bindings = document_.bindings();
  return passes::bisectPipeline(*baseline_, steps, options);
}

void PassSession::finish(const QString& error) {
  const Pending& pending = *pending_;
  const size_t nodesAfter = passes::countNodes(document_.model());
  const QString summary = tr("%1 of %2 passes changed the model: %3 → %4 nodes")
                              .arg(pending.applied)
                              .arg(pending.request.passes.size())
                              .arg(pending.nodesBefore)
                              .arg(nodesAfter);
  const bool changed = pending.applied > 0;
  pending_.reset();
  if (changed) document_.reinfer();
  Q_EMIT runningChanged(false);
  Q_EMIT finished(summary, error);
}

}  // namespace onyx::views
