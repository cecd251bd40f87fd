#include "passes/pass_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

#include "ir/module_path.h"
#include "model_document.h"
#include "passes/pass.h"
#include "passes/pass_session.h"
#include "passes/step_chart.h"

namespace onyx::views {
namespace {

constexpr int kStepRole = Qt::UserRole + 1;
constexpr int kOriginalRow = -1;
constexpr int kMaxSkipRows = 50;
// The Measure columns, after Counters and hidden until a step was measured.
constexpr int kLatencyColumn = 6;
constexpr int kPeakColumn = 7;
constexpr int kErrorColumn = 8;

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

QString countersText(const passes::PassStep& step) {
  QStringList parts;
  for (const passes::PassCounter& counter : step.counters)
    parts << QStringLiteral("%1: %2").arg(qs(counter.name)).arg(counter.count);
  if (parts.isEmpty()) return step.changed ? QString() : QObject::tr("no change");
  return parts.join(QStringLiteral(", "));
}

QString checkText(const passes::PassStep& step) {
  if (!step.verification) return QStringLiteral("–");
  const passes::StepVerification& check = *step.verification;
  if (!check.ran) return QObject::tr("not run: %1").arg(qs(check.notRunReason));
  double worstAbs = 0, worstRel = 0;
  for (const passes::OutputError& output : check.outputs) {
    worstAbs = std::max(worstAbs, output.maxAbsError);
    worstRel = std::max(worstRel, output.maxRelError);
  }
  return QObject::tr("%1 abs %2, rel %3")
      .arg(check.ok() ? QObject::tr("ok") : QObject::tr("FAILED"))
      .arg(worstAbs, 0, 'g', 3)
      .arg(worstRel, 0, 'g', 3);
}

void setCostColumns(QTreeWidgetItem* item, const passes::StepCost& cost) {
  if (!cost.ran) {
    item->setText(kLatencyColumn, QObject::tr("not run"));
    item->setToolTip(kLatencyColumn, qs(cost.notRunReason));
    return;
  }
  item->setText(kLatencyColumn, QStringLiteral("%1 ms").arg(cost.medianMs, 0, 'f', 2));
  item->setText(kPeakColumn, QStringLiteral("%1 KiB").arg(double(cost.peakBytes) / 1024.0, 0, 'f', 0));
  item->setText(kErrorColumn, QStringLiteral("%1%2").arg(cost.maxAbsError, 0, 'g', 3).arg(
                                  cost.withinTolerance ? QString() : QObject::tr(" (beyond tolerance)")));
}

QString nodesText(const std::vector<NodeOrigin>& nodes) {
  QStringList parts;
  for (const NodeOrigin& node : nodes)
    parts << QStringLiteral("%1%2 #%3")
                 .arg(qs(node.opType),
                      node.name.empty() ? QString() : QStringLiteral(" '%1'").arg(qs(node.name)))
                 .arg(node.id);
  return parts.isEmpty() ? QObject::tr("none") : parts.join(QStringLiteral(", "));
}

QString rewriteText(const PassSession::Step& step) {
  if (step.rewrite <= 0 || step.record.rewrites.empty()) return countersText(step.record);
  const passes::RewriteRecord& rewrite = step.record.rewrites.front();
  return QObject::tr("rewrite %1 of %2 at %3; removed %4; made %5")
      .arg(step.rewrite)
      .arg(step.rewrites)
      .arg(nodesText({rewrite.root}), nodesText(rewrite.removed), nodesText(rewrite.added));
}

// A single rewrite was not timed on its own: its pass ran whole once, to split it.
QString timeText(const PassSession::Step& step) {
  if (step.rewrite > 0) return QStringLiteral("–");
  return QStringLiteral("%1 ms").arg(step.record.milliseconds, 0, 'f', 1);
}

QString bisectText(const passes::BisectResult& result) {
  if (!result.broken)
    return QObject::tr("Bisect: no step breaks the outputs (%1 steps).").arg(result.stepsRun);
  QString text =
      QObject::tr("Bisect: step %1 (%2) breaks the outputs.").arg(result.step).arg(qs(result.pass));
  if (!result.rewriteFound) return text + "\n" + qs(result.whyNoRewrite);
  const passes::RewriteRecord& rewrite = result.rewrite;
  return text + "\n" +
         QObject::tr("First breaking rewrite: %1 of %2, at %3; removed %4; added %5")
             .arg(rewrite.index)
             .arg(result.rewritesInStep)
             .arg(nodesText({rewrite.root}), nodesText(rewrite.removed), nodesText(rewrite.added));
}

}  // namespace

PassPanel::PassPanel(QUndoStack& undoStack, QWidget* parent) : QWidget(parent), undoStack_(undoStack) {
  catalogue_ = new QTreeWidget(this);
  catalogue_->setColumnCount(2);
  catalogue_->setHeaderLabels({tr("Pass"), tr("What it does")});
  catalogue_->setRootIsDecorated(false);
  catalogue_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  for (const passes::PassInfo& info : passes::passRegistry()) {
    auto* item = new QTreeWidgetItem(catalogue_, {qs(info.name), qs(info.summary)});
    item->setToolTip(1, qs(info.summary));
  }
  if (catalogue_->topLevelItemCount() > 0) catalogue_->setCurrentItem(catalogue_->topLevelItem(0));
  connect(catalogue_, &QTreeWidget::itemDoubleClicked, this, [this] { applySelectedPass(); });

  scope_ = new QComboBox(this);
  verify_ = new QCheckBox(tr("Check each step numerically on"), this);
  verify_->setToolTip(tr("Run the model before and after each step; a step whose outputs differ beyond "
                         "rtol 1e-4, atol 1e-5 is reverted"));
  verifyInputs_ = new QComboBox(this);
  measure_ = new QCheckBox(tr("Measure"), this);
  measure_->setToolTip(tr("Run the model after each step: median latency, peak memory and the worst error "
                          "against the original model, as columns of the history"));
  bisect_ = new QPushButton(tr("Bisect"), this);
  bisect_->setToolTip(tr("Find the step, and the rewrite inside it, that first make the outputs differ from "
                         "the original model's"));
  saveRecipe_ = new QPushButton(tr("Save..."), this);
  saveRecipe_->setToolTip(tr("Save the steps in effect (passes, scopes, options) as a JSON recipe that "
                             "`onyx optimize --pipeline` replays"));
  loadRecipe_ = new QPushButton(tr("Load..."), this);
  loadRecipe_->setToolTip(tr("Run the steps of a JSON recipe"));
  apply_ = new QPushButton(tr("Apply"), this);
  apply_->setToolTip(tr("Apply the selected pass once"));
  stepInto_ = new QPushButton(tr("Step Into"), this);
  stepInto_->setToolTip(tr("Apply the selected pass one rewrite at a time: one click shows the next "
                           "rewrite's match on the canvas, the next applies it as its own undoable step"));
  pipeline_ = new QPushButton(tr("Run Default Pipeline"), this);
  pipeline_->setToolTip(tr("Apply %1 in turn").arg(
      qs(std::accumulate(std::next(passes::defaultPipeline().begin()), passes::defaultPipeline().end(),
                         passes::defaultPipeline().front(),
                         [](std::string a, const std::string& b) { return a + ", " + b; }))));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setVisible(false);
  progress_ = new QProgressBar(this);
  progress_->setVisible(false);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  history_ = new QTreeWidget(this);
  history_->setColumnCount(9);
  history_->setHeaderLabels({tr("#"), tr("Pass"), tr("Nodes (all graphs)"), tr("Time"), tr("Check"),
                             tr("Counters"), tr("Latency"), tr("Peak memory"), tr("Max error")});
  for (int column : {kLatencyColumn, kPeakColumn, kErrorColumn}) history_->setColumnHidden(column, true);
  // The count passes::countNodes gives: the Summary's main-graph count plus bodies and functions.
  history_->headerItem()->setToolTip(2, tr("Nodes in the main graph, in If/Loop/Scan bodies and in model-local "
                                           "functions, before -> after the step"));
  history_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  history_->header()->setStretchLastSection(true);
  compare_ = new QPushButton(tr("Compare..."), this);
  compare_->setToolTip(tr("One step selected: the model before and after it. Two: their states."));
  connect(history_, &QTreeWidget::itemSelectionChanged, this, &PassPanel::updateButtons);
  connect(history_, &QTreeWidget::itemDoubleClicked, this, [this] { compareSelectedSteps(); });

  connect(apply_, &QPushButton::clicked, this, &PassPanel::applySelectedPass);
  connect(stepInto_, &QPushButton::clicked, this, [this] { stepIntoSelectedPass(); });
  chart_ = new StepChart(this);
  chart_->setVisible(false);
  connect(chart_, &StepChart::stepClicked, this, &PassPanel::selectStep);
  connect(pipeline_, &QPushButton::clicked, this, &PassPanel::runDefaultPipeline);
  connect(compare_, &QPushButton::clicked, this, &PassPanel::compareSelectedSteps);
  connect(bisect_, &QPushButton::clicked, this, [this] { bisectSteps(); });
  connect(saveRecipe_, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save Recipe"), QString(), tr("Recipes (*.json)"));
    if (!path.isEmpty()) status_->setText(saveRecipe(path));
  });
  connect(loadRecipe_, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load Recipe"), QString(), tr("Recipes (*.json)"));
    if (path.isEmpty()) return;
    if (QString error = loadRecipe(path); !error.isEmpty()) status_->setText(error);
  });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    if (session_) session_->cancel();
  });

  auto* top = new QWidget(this);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(catalogue_);
  auto* scopeRow = new QHBoxLayout;
  scopeRow->addWidget(new QLabel(tr("Apply to:"), top));
  scopeRow->addWidget(scope_, 1);
  topLayout->addLayout(scopeRow);
  auto* verifyRow = new QHBoxLayout;
  verifyRow->addWidget(verify_);
  verifyRow->addWidget(verifyInputs_, 1);
  topLayout->addLayout(verifyRow);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(apply_);
  buttons->addWidget(stepInto_);
  buttons->addWidget(pipeline_);
  buttons->addWidget(cancel_);
  buttons->addStretch(1);
  topLayout->addLayout(buttons);
  // The debugger's row, apart so the dock stays as narrow as before.
  auto* debugRow = new QHBoxLayout;
  debugRow->addWidget(measure_);
  debugRow->addWidget(bisect_);
  debugRow->addWidget(saveRecipe_);
  debugRow->addWidget(loadRecipe_);
  debugRow->addStretch(1);
  topLayout->addLayout(debugRow);
  topLayout->addWidget(progress_);
  topLayout->addWidget(status_);

  auto* bottom = new QWidget(this);
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 0, 0, 0);
  auto* historyRow = new QHBoxLayout;
  historyRow->addWidget(new QLabel(tr("History"), bottom), 1);
  historyRow->addWidget(compare_);
  bottomLayout->addLayout(historyRow);
  bottomLayout->addWidget(history_, 1);
  bottomLayout->addWidget(chart_, 1);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(top);
  splitter->addWidget(bottom);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(splitter);
  updateScopeChoice();
  updateButtons();
}

PassPanel::~PassPanel() = default;

void PassPanel::setDocument(ModelDocument* document) {
  if (session_) {
    session_->cancel();
    session_->disconnect(this);
    delete session_;
    session_ = nullptr;
  }
  if (document_) document_->disconnect(this);
  document_ = document;
  if (document_) {
    session_ = new PassSession(*document_, undoStack_, this);
    connect(session_, &PassSession::stepApplied, this, &PassPanel::rebuildHistory);
    connect(session_, &PassSession::historyChanged, this, &PassPanel::refreshHistoryState);
    connect(session_, &PassSession::rewriteFocusChanged, this, &PassPanel::rewriteFocusChanged);
    connect(session_, &PassSession::runningChanged, this, [this](bool running) {
      progress_->setVisible(running);
      cancel_->setVisible(running);
      updateButtons();
    });
    connect(session_, &PassSession::progress, this, [this](int done, int total, const QString& next) {
      progress_->setRange(0, total);
      progress_->setValue(done);
      status_->setText(tr("Running %1 (%2 of %3)...").arg(next).arg(done + 1).arg(total));
    });
    connect(session_, &PassSession::finished, this, [this](const QString& summary, const QString& error) {
      status_->setText(error.isEmpty() ? summary : summary + "\n" + error);
    });
    connect(document_, &ModelDocument::selectionChanged, this, &PassPanel::updateScopeChoice);
  }
  status_->clear();
  rebuildHistory();
  updateScopeChoice();
  updateVerifyInputs();
  updateButtons();
}

QString PassPanel::chosenScope() const {
  return scope_->currentData().toString();
}

void PassPanel::updateScopeChoice() {
  const QString previous = chosenScope();
  scope_->clear();
  scope_->addItem(tr("Whole model"), QString());
  if (document_) {
    const Selection& selection = document_->selection();
    const Node* node = selection.graph ? selection.graph->findNode(selection.node) : nullptr;
    // The selection's scope (its module path in a dynamo export), then each scope enclosing it.
    const std::string path = node ? scopePathOf(*node) : std::string();
    for (size_t end = path.size(); end > 0 && end != std::string::npos; end = path.rfind('/', end - 1)) {
      const QString scope = qs(path.substr(0, end));
      scope_->addItem(end == path.size() ? tr("Scope of the selection: %1").arg(scope)
                                         : tr("Enclosing scope: %1").arg(scope),
                      scope);
    }
  }
  const int index = scope_->findData(previous);
  scope_->setCurrentIndex(index >= 0 ? index : 0);
}

// Random inputs bind unbound symbolic dims to 1, which a model with symbolic image sizes cannot run: its
// test_data_set_N folders, when they sit beside it, are offered first.
void PassPanel::updateVerifyInputs() {
  verifyInputs_->clear();
  if (document_ && !document_->path().isEmpty()) {
    const QDir folder = QFileInfo(document_->path()).absoluteDir();
    for (const QString& name : folder.entryList({QStringLiteral("test_data_set_*")}, QDir::Dirs, QDir::Name))
      verifyInputs_->addItem(tr("inputs of %1").arg(name), folder.filePath(name));
  }
  verifyInputs_->addItem(tr("random inputs (unbound dims = 1)"), QString());
  verifyInputs_->setCurrentIndex(0);
}

void PassPanel::applySelectedPass() {
  QTreeWidgetItem* item = catalogue_->currentItem();
  if (!item) return;
  start({item->text(0)});
}

QString PassPanel::stepIntoSelectedPass() {
  QTreeWidgetItem* item = catalogue_->currentItem();
  if (!item || !session_) return {};
  const QString text = session_->stepInto(item->text(0), chosenScope(), measure_->isChecked(),
                                          verifyInputs_->currentData().toString());
  status_->setText(text);
  return text;
}

void PassPanel::runDefaultPipeline() {
  QStringList passes;
  for (const std::string& name : passes::defaultPipeline()) passes << qs(name);
  start(passes);
}

void PassPanel::start(const QStringList& passes) {
  if (!session_ || session_->isRunning()) return;
  PassRequest request;
  request.passes = passes;
  request.scope = chosenScope();
  request.verify = verify_->isChecked();
  request.inputsFolder = verifyInputs_->currentData().toString();
  request.measure = measure_->isChecked();
  session_->run(request);
}

QString PassPanel::bisectSteps() {
  if (!session_ || session_->isRunning()) return {};
  auto result = session_->bisect(verifyInputs_->currentData().toString());
  const QString text =
      result ? bisectText(*result) : tr("Bisect failed: %1").arg(qs(result.error().toString()));
  status_->setText(text);
  return text;
}

QString PassPanel::saveRecipe(const QString& path) {
  if (!session_) return tr("no model");
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      file.write(QByteArray::fromStdString(passes::recipeToJson(session_->recipe()))) < 0)
    return tr("cannot write %1: %2").arg(path, file.errorString());
  return tr("saved the recipe %1").arg(path);
}

QString PassPanel::loadRecipe(const QString& path) {
  if (!session_ || session_->isRunning()) return tr("a run is in progress");
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return tr("cannot read %1: %2").arg(path, file.errorString());
  auto recipe = passes::recipeFromJson(file.readAll().toStdString());
  if (!recipe) return tr("%1: %2").arg(path, qs(recipe.error().toString()));
  session_->runRecipe(*recipe, verify_->isChecked(), measure_->isChecked());
  return {};
}

QString PassPanel::stateTitle(int step) const {
  if (step < 0 || !session_) return tr("original");
  return tr("after step %1 (%2)").arg(step + 1).arg(qs(session_->steps()[step].record.pass));
}

int PassPanel::stepOfItem(const QTreeWidgetItem* item) const {
  while (item && item->parent()) item = item->parent();
  if (!item) return -2;
  return item->data(0, kStepRole).toInt();
}

void PassPanel::compareSelectedSteps() {
  if (!session_) return;
  std::vector<int> steps;
  for (QTreeWidgetItem* item : history_->selectedItems()) {
    const int step = stepOfItem(item);
    if (step >= kOriginalRow && std::find(steps.begin(), steps.end(), step) == steps.end()) steps.push_back(step);
  }
  std::sort(steps.begin(), steps.end());
  if (steps.empty()) return;
  int before = steps.front() - 1, after = steps.front();
  if (steps.size() >= 2) {
    before = steps.front();
    after = steps.back();
  }
  if (after < 0) return;  // the original row alone: nothing before it
  Q_EMIT compareRequested(session_->snapshot(before), session_->snapshot(after), stateTitle(before),
                          stateTitle(after));
}

void PassPanel::rebuildHistory() {
  history_->clear();
  if (!session_) {
    chart_->setVisible(false);
    return;
  }
  auto* original = new QTreeWidgetItem(history_, {QStringLiteral("0"), tr("original model")});
  original->setData(0, kStepRole, kOriginalRow);
  original->setText(2, QString::number(passes::countNodes(*session_->baseline())));
  bool measured = false;
  if (const auto& cost = session_->baselineCost()) {
    setCostColumns(original, *cost);
    measured = true;
  }
  const auto& steps = session_->steps();
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    const passes::PassStep& step = steps[i].record;
    QString pass = qs(step.pass);
    if (steps[i].rewrite > 0) pass += tr(" › rewrite %1/%2").arg(steps[i].rewrite).arg(steps[i].rewrites);
    if (!steps[i].scope.isEmpty()) pass += tr(" on %1").arg(steps[i].scope);
    auto* item = new QTreeWidgetItem(
        history_, {QString::number(i + 1), pass, QStringLiteral("%1 → %2").arg(step.nodesBefore).arg(step.nodesAfter),
                    timeText(steps[i]), checkText(step), rewriteText(steps[i])});
    item->setData(0, kStepRole, i);
    item->setToolTip(5, rewriteText(steps[i]));
    if (step.cost) {
      setCostColumns(item, *step.cost);
      measured = true;
    }
    if (step.verification && step.verification->ran) {
      for (const passes::OutputError& output : step.verification->outputs) {
        auto* child = new QTreeWidgetItem(item, {QString(), tr("output %1").arg(qs(output.output))});
        child->setText(4, QStringLiteral("abs %1, rel %2").arg(output.maxAbsError, 0, 'g', 3).arg(output.maxRelError, 0, 'g', 3));
        if (!output.ok) child->setText(5, qs(output.reason));
      }
    }
    const int skips = static_cast<int>(step.skips.size());
    for (int k = 0; k < std::min(skips, kMaxSkipRows); ++k) {
      auto* child = new QTreeWidgetItem(item, {QString(), tr("skipped %1").arg(qs(step.skips[k].where))});
      child->setText(5, qs(step.skips[k].reason));
      child->setToolTip(5, qs(step.skips[k].reason));
    }
    if (skips > kMaxSkipRows)
      new QTreeWidgetItem(item, {QString(), tr("... and %1 more skipped").arg(skips - kMaxSkipRows)});
  }
  for (int column : {kLatencyColumn, kPeakColumn, kErrorColumn}) history_->setColumnHidden(column, !measured);
  chart_->setVisible(measured);
  refreshHistoryState();
  if (QTreeWidgetItem* last = history_->topLevelItem(history_->topLevelItemCount() - 1))
    history_->scrollToItem(last);
}

void PassPanel::selectStep(int step) {
  for (int row = 0; row < history_->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = history_->topLevelItem(row);
    if (item->data(0, kStepRole).toInt() != step) continue;
    history_->setCurrentItem(item);
    history_->scrollToItem(item);
    return;
  }
}

// Undone steps are greyed: their edits are not in the model until redone. The chart plots the steps in
// effect.
void PassPanel::refreshHistoryState() {
  if (!session_) return;
  chart_->showSteps(*session_);
  const QColor undone = palette().color(QPalette::Disabled, QPalette::Text);
  for (int row = 1; row < history_->topLevelItemCount(); ++row) {
    QTreeWidgetItem* item = history_->topLevelItem(row);
    const bool applied = session_->isApplied(item->data(0, kStepRole).toInt());
    for (int column = 0; column < history_->columnCount(); ++column)
      item->setForeground(column, applied ? palette().color(QPalette::Text) : undone);
    item->setToolTip(1, applied ? QString() : tr("undone: Redo (Ctrl+Shift+Z) applies it again"));
  }
}

void PassPanel::updateButtons() {
  const bool idle = session_ && !session_->isRunning();
  apply_->setEnabled(idle);
  stepInto_->setEnabled(idle);
  pipeline_->setEnabled(idle);
  catalogue_->setEnabled(idle);
  bisect_->setEnabled(idle && !session_->steps().empty());
  saveRecipe_->setEnabled(idle && !session_->steps().empty());
  loadRecipe_->setEnabled(idle);
  compare_->setEnabled(session_ && !history_->selectedItems().isEmpty());
}

}  // namespace onyx::views
