#include "unknown_dims_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "analysis/bindings_text.h"
#include "analysis/model_graphs.h"
#include "explorer_text.h"
#include "shapes/shape_report.h"

namespace onyx::views {

UnknownDimsView::UnknownDimsView(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bindings_ = new QLineEdit(this);
  bindings_->setPlaceholderText(tr("Bind symbols: batch=1, seq=128"));
  bindings_->setClearButtonEnabled(true);
  apply_ = new QPushButton(tr("Apply"), this);
  loadInputs_ = new QPushButton(tr("Load input tensors..."), this);
  loadInputs_->setToolTip(tr("Infer with the values of a test_data_set folder's input_0.pb, input_1.pb, ..."));
  clearInputs_ = new QPushButton(tr("Clear"), this);
  clearInputs_->hide();
  inputs_ = new QLabel(this);
  inputs_->setWordWrap(true);
  inputs_->hide();
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: %1").arg(unknownDimColor().name()));
  error_->hide();
  groups_ = new QTreeWidget(this);
  groups_->setColumnCount(3);
  groups_->setHeaderLabels({tr("Origin"), tr("Values"), QString()});
  groups_->header()->setStretchLastSection(false);
  groups_->header()->setSectionResizeMode(kOriginColumn, QHeaderView::Stretch);
  groups_->header()->setSectionResizeMode(kCountColumn, QHeaderView::ResizeToContents);
  groups_->header()->setSectionResizeMode(kKindColumn, QHeaderView::ResizeToContents);
  groups_->setUniformRowHeights(true);

  auto* bindingRow = new QHBoxLayout;
  bindingRow->addWidget(bindings_, 1);
  bindingRow->addWidget(apply_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary_);
  layout->addLayout(bindingRow);
  auto* inputsRow = new QHBoxLayout;
  inputsRow->addWidget(inputs_, 1);
  inputsRow->addWidget(clearInputs_);
  inputsRow->addWidget(loadInputs_);
  layout->addLayout(inputsRow);
  layout->addWidget(error_);
  layout->addWidget(groups_, 1);

  auto apply = [this] { applyBindings(bindings_->text()); };
  connect(bindings_, &QLineEdit::returnPressed, this, apply);
  connect(apply_, &QPushButton::clicked, this, apply);
  connect(loadInputs_, &QPushButton::clicked, this, [this] {
    QString folder = QFileDialog::getExistingDirectory(this, tr("Input tensors (a test_data_set folder)"));
    if (!folder.isEmpty()) loadInputTensors(folder);
  });
  connect(clearInputs_, &QPushButton::clicked, this, &UnknownDimsView::clearInputTensors);
  connect(groups_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { followLink(item); });
  setEnabled(false);
}

void UnknownDimsView::setDocument(ModelDocument* document) {
  if (document_) disconnect(document_, nullptr, this, nullptr);
  document_ = document;
  setEnabled(document_ != nullptr);
  error_->hide();
  if (document_) {
    connect(document_, &ModelDocument::shapesChanged, this, &UnknownDimsView::rebuild);
    connect(document_, &ModelDocument::inferenceStarted, this, &UnknownDimsView::showInferring);
    // Edits may remove the values listed: drop them now, the re-inference lists the new ones.
    connect(document_, &ModelDocument::modelChanged, this, [this] { groups_->clear(); });
    bindings_->setText(qs(bindingsText(document_->bindings())));
  } else {
    bindings_->clear();
  }
  inputsFolder_.clear();
  showInputs();
  rebuild();
}

QString UnknownDimsView::summaryText() const {
  return summary_->text();
}

QString UnknownDimsView::bindingError() const {
  return error_->isHidden() ? QString() : error_->text();
}

bool UnknownDimsView::applyBindings(const QString& text) {
  if (!document_) return false;
  auto bindings = parseBindingsText(text.toStdString());
  if (!bindings) {
    error_->setText(qs(bindings.error().message));
    error_->setVisible(true);
    return false;
  }
  error_->hide();
  document_->setBindings(*bindings);
  return true;
}

QString UnknownDimsView::inputsText() const {
  return inputs_->isHidden() ? QString() : inputs_->text();
}

bool UnknownDimsView::loadInputTensors(const QString& folder) {
  if (!document_) return false;
  auto given = GivenInputs::load(document_->model(), folder.toStdString());
  if (!given) {
    error_->setText(qs(given.error().toString()));
    error_->setVisible(true);
    return false;
  }
  error_->hide();
  inputsFolder_ = folder;
  document_->setGivenInputs(std::make_shared<const GivenInputs>(std::move(*given)));
  showInputs();
  return true;
}

void UnknownDimsView::clearInputTensors() {
  inputsFolder_.clear();
  if (document_) document_->setGivenInputs(nullptr);
  showInputs();
}

void UnknownDimsView::showInputs() {
  const GivenInputs* given = document_ ? document_->givenInputs().get() : nullptr;
  bool shown = given != nullptr;
  if (shown) {
    inputs_->setText(tr("input tensors: %1 (%2)").arg(inputsFolder_.isEmpty() ? tr("loaded") : inputsFolder_).arg(given->size()));
  }
  inputs_->setVisible(shown);
  clearInputs_->setVisible(shown);
}

void UnknownDimsView::showInferring() {
  summary_->setText(tr("Inferring shapes..."));
}

void UnknownDimsView::followLink(QTreeWidgetItem* item) {
  if (!item || !document_) return;
  QVariant target = item->data(kOriginColumn, kTargetRole);
  if (target.canConvert<Selection>()) document_->focus(target.value<Selection>());
}

void UnknownDimsView::rebuild() {
  groups_->clear();
  if (!document_) {
    summary_->setText(tr("No model"));
    return;
  }
  if (document_->isInferring()) showInferring();
  const ShapeReport& report = document_->shapeReport();
  if (!document_->isInferring()) summary_->setText(qs(summaryLine(report.summary)));
  const Model& model = document_->model();
  for (const UnresolvedGroup& group : report.groups) {
    auto* item = new QTreeWidgetItem(groups_);
    item->setText(kOriginColumn, qs(describeOrigin(group.origin.get())));
    item->setToolTip(kOriginColumn, item->text(kOriginColumn));
    item->setText(kCountColumn, QString::number(group.values.size()));
    item->setTextAlignment(kCountColumn, Qt::AlignRight | Qt::AlignVCenter);
    if (group.dataDependent) item->setText(kKindColumn, tr("data-dependent"));
    const Node* origin = group.origin ? findNodeInModel(model, group.origin->node) : nullptr;
    if (origin) {
      item->setData(kOriginColumn, kTargetRole, QVariant::fromValue(nodeSelection(*origin)));
    } else if (!group.values.empty()) {
      // No node lost it (a graph input without a size): the first value is where to look.
      item->setData(kOriginColumn, kTargetRole, QVariant::fromValue(valueSelection(*group.values.front())));
    }
    for (const Value* value : group.values) {
      auto* child = new QTreeWidgetItem(item, {qs(value->name())});
      child->setData(kOriginColumn, kTargetRole, QVariant::fromValue(valueSelection(*value)));
      child->setForeground(kOriginColumn, unknownDimColor());
    }
  }
}

}  // namespace onyx::views
