// Step Into (pass_session.h): a pass split into its rewrites (passes/rewrite_steps.h), shown and applied one
// at a time, each applied rewrite a step of the history with its own undo command.
#include <QUndoStack>

#include "model_document.h"
#include "passes/pass_session.h"
#include "passes/pass_util.h"

namespace onyx::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

QString nodeText(const NodeOrigin& node) {
  return QStringLiteral("%1%2 #%3")
      .arg(qs(node.opType), node.name.empty() ? QString() : QStringLiteral(" '%1'").arg(qs(node.name)))
      .arg(node.id);
}

QString nodesText(const std::vector<NodeOrigin>& nodes) {
  QStringList parts;
  for (const NodeOrigin& node : nodes) parts << nodeText(node);
  return parts.isEmpty() ? QObject::tr("none") : parts.join(QStringLiteral(", "));
}

}  // namespace

void PassSession::stopStepping() {
  stepping_.reset();
  setFocus({});
}

void PassSession::setFocus(RewriteFocus focus) {
  const bool wasNone = focus_.phase == RewriteFocus::Phase::None;
  focus_ = std::move(focus);
  if (!(wasNone && focus_.phase == RewriteFocus::Phase::None)) Q_EMIT rewriteFocusChanged();
  // Centre the canvas on the rewrite's first node in the main graph or a body; only where it has none
  // there, in a function body (a fusion that made a function added its body's nodes before its call). From
  // the event loop, after the views took the rewrite's edits in (the canvas finds new nodes only then).
  QMetaObject::invokeMethod(
      this,
      [this, nodes = focus_.nodes] {
        for (passes::FunctionBodies bodies : {passes::FunctionBodies::Skip, passes::FunctionBodies::Include})
          for (NodeId node : nodes)
            for (Graph* graph : passes::allGraphs(document_.model(), bodies))
              if (graph->findNode(node)) {
                document_.focus(Selection{graph, node, nullptr});
                return;
              }
      },
      Qt::QueuedConnection);
}

// The split no longer describes the model once the history moved without it (an undo, another edit).
void PassSession::dropStaleStepping() {
  if (stepping_ && stepping_->undoIndex != undoStack_.index()) stopStepping();
}

QString PassSession::stepInto(const QString& pass, const QString& scope, bool measure,
                              const QString& inputsFolder) {
  if (pending_) return tr("a run is in progress");
  dropStaleStepping();
  const bool same = stepping_ && stepping_->pass == pass && stepping_->scope == scope;
  if (!same) return startStepping(pass, scope, measure, inputsFolder);
  // Measure may be turned on or off between rewrites.
  stepping_->measure = measure;
  stepping_->inputsFolder = inputsFolder;
  if (focus_.phase == RewriteFocus::Phase::Matched) return applyFocusedRewrite();
  if (stepping_->next < stepping_->steps.rewrites.size()) return showMatch(stepping_->next);
  // Every rewrite of the split applied: split again (a pass that sweeps once may find more).
  return startStepping(pass, scope, measure, inputsFolder);
}

QString PassSession::startStepping(const QString& pass, const QString& scope, bool measure,
                                   const QString& inputsFolder) {
  stopStepping();
  auto created = passes::createPass(pass.toStdString());
  if (!created) return tr("unknown pass '%1'").arg(pass);
  auto split = passes::splitIntoRewrites(document_.model(), *created, scope.toStdString());
  if (!split) return tr("%1 failed: %2 (its edits were reverted)").arg(pass, qs(split.error().toString()));
  if (split->rewrites.empty()) return tr("%1 changes nothing: no rewrite to step into").arg(pass);
  stepping_ = std::make_unique<Stepping>();
  stepping_->pass = pass;
  stepping_->scope = scope;
  stepping_->measure = measure;
  stepping_->inputsFolder = inputsFolder;
  stepping_->steps = std::move(*split);
  stepping_->split = ++splits_;
  stepping_->undoIndex = undoStack_.index();
  return showMatch(0);
}

QString PassSession::showMatch(size_t index) {
  const passes::SingleRewrite& rewrite = stepping_->steps.rewrites[index];
  RewriteFocus focus;
  focus.phase = RewriteFocus::Phase::Matched;
  focus.pass = stepping_->pass;
  focus.rewrite = static_cast<int>(index) + 1;
  focus.rewrites = static_cast<int>(stepping_->steps.rewrites.size());
  if (!stepping_->steps.countsRewrites) {
    focus.text = tr("%1 does not count single rewrites: Step Into applies it whole").arg(focus.pass);
  } else {
    focus.nodes = rewrite.matchedNodes();
    std::vector<NodeOrigin> others = rewrite.record.removed;
    for (const NodeOrigin& node : rewrite.record.modified) others.push_back(node);
    focus.text = tr("%1, rewrite %2 of %3 matches at %4 (with %5): Step Into applies it")
                     .arg(focus.pass)
                     .arg(focus.rewrite)
                     .arg(focus.rewrites)
                     .arg(nodeText(rewrite.record.root), nodesText(others));
  }
  const QString text = focus.text;
  setFocus(std::move(focus));
  return text;
}

QString PassSession::applyFocusedRewrite() {
  Stepping& stepping = *stepping_;
  const size_t index = stepping.next;
  const passes::SingleRewrite& rewrite = stepping.steps.rewrites[index];
  QString measureError;
  passes::StepMeasurer* costs = stepping.measure ? measurer(stepping.inputsFolder, &measureError) : nullptr;

  discardUndoneSteps();
  Step step;
  step.scope = stepping.scope;
  step.split = stepping.split;
  passes::PassStep& record = step.record;
  record.pass = stepping.pass.toStdString();
  record.nodesBefore = passes::countNodes(document_.model());
  rewrite.changes->redo();
  record.nodesAfter = passes::countNodes(document_.model());
  record.changed = true;
  record.changes = rewrite.changes;
  const int count = static_cast<int>(stepping.steps.rewrites.size());
  QString text = stepping.pass;
  if (stepping.steps.countsRewrites) {
    step.rewrite = static_cast<int>(index) + 1;
    step.rewrites = count;
    record.rewrites = {rewrite.record};
    text += tr(": rewrite %1 of %2").arg(step.rewrite).arg(count);
  } else {
    // The whole pass: its counters and skips belong to this step.
    record.counters = stepping.steps.whole.counters;
    record.skips = stepping.steps.whole.skips;
    record.milliseconds = stepping.steps.whole.milliseconds;
  }
  if (costs) record.cost = costs->measure(document_.model());
  if (!stepping.scope.isEmpty()) text += tr(" on %1").arg(stepping.scope);
  // The push moves the undo stack's index: the split stays in step with it.
  stepping.undoIndex = undoStack_.index() + 1;
  stepping.next = index + 1;
  addStep(std::move(step), text);
  document_.reinfer();

  RewriteFocus focus;
  focus.phase = RewriteFocus::Phase::Applied;
  focus.pass = stepping.pass;
  focus.rewrite = static_cast<int>(index) + 1;
  focus.rewrites = count;
  focus.nodes = rewrite.resultNodes();
  focus.text = tr("Applied %1: made %2").arg(text, nodesText(rewrite.record.added));
  if (!rewrite.record.modified.empty())
    focus.text += tr(", modified %1").arg(nodesText(rewrite.record.modified));
  focus.text += stepping.next < stepping.steps.rewrites.size()
                    ? tr(". Step Into shows the next match.")
                    : tr(". That was the last rewrite of this pass.");
  if (!measureError.isEmpty()) focus.text += "\n" + measureError;
  const QString status = focus.text;
  Q_EMIT stepApplied(static_cast<int>(steps_.size()) - 1);
  setFocus(std::move(focus));
  return status;
}

}  // namespace onyx::views
