#include "diffview/diff_list_view.h"

#include <QBrush>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "diff/diff_format.h"
#include "diffview/diff_colors.h"

namespace onyx::views {

DiffListView::DiffListView(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel(this)),
      list_(new QListWidget(this)),
      previous_(new QToolButton(this)),
      next_(new QToolButton(this)) {
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  previous_->setText(tr("Previous"));
  previous_->setToolTip(tr("Previous change (Shift+F8)"));
  previous_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8));
  next_->setText(tr("Next"));
  next_->setToolTip(tr("Next change (F8)"));
  next_->setShortcut(QKeySequence(Qt::Key_F8));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(previous_);
  buttons->addWidget(next_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(summary_);
  layout->addLayout(buttons);
  layout->addWidget(list_, 1);
  connect(previous_, &QToolButton::clicked, this, &DiffListView::previousChange);
  connect(next_, &QToolButton::clicked, this, &DiffListView::nextChange);
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    updateButtons();
    if (row < 0 || row >= changeCount()) return;
    const diff::Change& change = diff_.changes[size_t(row)];
    Q_EMIT changeActivated(row, change.beforeNode, change.afterNode);
  });
  updateButtons();
}

void DiffListView::compare(std::shared_ptr<const Model> before, std::shared_ptr<const Model> after,
                           diff::MatchBy by) {
  clear();
  before_ = std::move(before);
  after_ = std::move(after);
  diff_ = diff::diffModels(*before_, *after_, by);
  summary_->setText(QString::fromStdString(diff::formatSummary(diff_.summary)));
  for (const diff::Change& change : diff_.changes) {
    auto* row = new QListWidgetItem(QString::fromStdString(diff::formatChange(change)), list_);
    QColor tone = diffToneColor(changeTone(change.kind));
    row->setForeground(QBrush(tone.darker(130)));
    QColor background = tone;
    background.setAlpha(40);
    row->setBackground(QBrush(background));
  }
  updateButtons();
}

void DiffListView::clear() {
  list_->clear();
  diff_ = {};
  before_.reset();
  after_.reset();
  summary_->clear();
  updateButtons();
}

int DiffListView::changeCount() const {
  return int(diff_.changes.size());
}

int DiffListView::currentChange() const {
  return list_->currentRow();
}

QString DiffListView::summaryText() const {
  return summary_->text();
}

void DiffListView::nextChange() {
  if (changeCount() == 0) return;
  selectChange(currentChange() < 0 ? 0 : std::min(currentChange() + 1, changeCount() - 1));
}

void DiffListView::previousChange() {
  if (changeCount() == 0) return;
  selectChange(currentChange() <= 0 ? 0 : currentChange() - 1);
}

void DiffListView::selectChange(int index) {
  if (index < 0 || index >= changeCount()) return;
  list_->setCurrentRow(index);
  list_->scrollToItem(list_->item(index));
}

void DiffListView::updateButtons() {
  previous_->setEnabled(currentChange() > 0);
  next_->setEnabled(changeCount() > 0 && currentChange() < changeCount() - 1);
}

}  // namespace onyx::views
