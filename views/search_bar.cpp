#include "search_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include "explorer_text.h"

namespace onyx::views {

SearchBar::SearchBar(QWidget* parent) : QWidget(parent) {
  query_ = new QLineEdit(this);
  query_->setPlaceholderText(tr("Find: name, op type (op:Conv), shape (256, N*S, [1, 3)"));
  query_->setClearButtonEnabled(true);
  count_ = new QLabel(this);
  count_->setMinimumWidth(count_->fontMetrics().horizontalAdvance(QStringLiteral("00000 of 00000")));
  previous_ = new QToolButton(this);
  previous_->setArrowType(Qt::UpArrow);
  previous_->setToolTip(tr("Previous match (Shift+F3)"));
  next_ = new QToolButton(this);
  next_->setArrowType(Qt::DownArrow);
  next_->setToolTip(tr("Next match (F3)"));
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("x"));
  close->setToolTip(tr("Close (Esc)"));

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(query_, 1);
  layout->addWidget(count_);
  layout->addWidget(previous_);
  layout->addWidget(next_);
  layout->addWidget(close);

  connect(query_, &QLineEdit::textChanged, this, &SearchBar::search);
  connect(query_, &QLineEdit::returnPressed, this, &SearchBar::next);
  connect(previous_, &QToolButton::clicked, this, &SearchBar::previous);
  connect(next_, &QToolButton::clicked, this, &SearchBar::next);
  connect(close, &QToolButton::clicked, this, &SearchBar::dismiss);
  updateCount();
}

void SearchBar::setDocument(ModelDocument* document) {
  if (document_) {
    disconnect(document_, nullptr, this, nullptr);
    document_->clearHighlight();
  }
  document_ = document;
  if (document_) {
    // Matches hold pointers into the model and shapes: refresh them whenever either changes.
    connect(document_, &ModelDocument::modelChanged, this, &SearchBar::modelEdited);
    connect(document_, &ModelDocument::shapesChanged, this, &SearchBar::rerun);
  }
  matches_.clear();
  current_ = -1;
  if (active_) search(query_->text());
  updateCount();
}

Selection SearchBar::selectionOf(const SearchMatch& match) {
  if (match.node) return nodeSelection(*match.node);
  return valueSelection(*match.value);
}

QString SearchBar::countText() const {
  if (query_->text().trimmed().isEmpty()) return {};
  if (matches_.empty()) return tr("no matches");
  return tr("%1 of %2").arg(current_ + 1).arg(matches_.size());
}

void SearchBar::search(const QString& query) {
  if (query_->text() != query) {
    query_->setText(query);  // textChanged calls back here
    return;
  }
  active_ = true;
  runQuery();
  current_ = matches_.empty() ? -1 : 0;
  focusCurrent();
  updateCount();
}

void SearchBar::modelEdited() {
  matches_.clear();
  current_ = -1;
  updateCount();
  if (rerunPending_) return;
  rerunPending_ = true;
  QMetaObject::invokeMethod(this, &SearchBar::rerun, Qt::QueuedConnection);
}

void SearchBar::rerun() {
  rerunPending_ = false;
  if (!active_) return;
  // Keep the position when the same matches come back (re-inference with new bindings).
  const int keep = current_;
  runQuery();
  current_ = matches_.empty() ? -1 : std::min<int>(std::max(keep, 0), static_cast<int>(matches_.size()) - 1);
  updateCount();
}

void SearchBar::runQuery() {
  matches_.clear();
  if (!document_) return;
  matches_ = searchModel(document_->model(), document_->shapes(), query_->text().toStdString());
  Highlight highlight;
  for (const SearchMatch& match : matches_) {
    if (match.node)
      highlight.nodes.insert(match.node->id());
    else
      highlight.values.insert(match.value);
  }
  document_->setHighlight(highlight);
}

void SearchBar::next() {
  step(1);
}
void SearchBar::previous() {
  step(-1);
}

void SearchBar::step(int delta) {
  if (matches_.empty()) return;
  const int count = static_cast<int>(matches_.size());
  current_ = ((current_ + delta) % count + count) % count;  // wraps both ways
  focusCurrent();
  updateCount();
}

void SearchBar::focusCurrent() {
  if (document_ && current_ >= 0) document_->focus(selectionOf(matches_[current_]));
}

void SearchBar::updateCount() {
  count_->setText(countText());
  previous_->setEnabled(matches_.size() > 1);
  next_->setEnabled(matches_.size() > 1);
}

void SearchBar::activate() {
  query_->setFocus(Qt::ShortcutFocusReason);
  query_->selectAll();
  if (!query_->text().isEmpty() && matches_.empty()) search(query_->text());
}

void SearchBar::dismiss() {
  active_ = false;
  if (document_) document_->clearHighlight();
  matches_.clear();
  current_ = -1;
  updateCount();
  Q_EMIT dismissed();
}

void SearchBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    dismiss();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace onyx::views
