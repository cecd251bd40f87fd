#include "command_palette.h"

#include <QAction>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QVBoxLayout>
#include <algorithm>

namespace onyx::views {
namespace {

constexpr int kCommandRole = Qt::UserRole;  // index into commands_

// "&Save As..." -> "Save As...", "&&" -> "&".
QString withoutMnemonics(QString text) {
  text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
  text.remove('&');
  text.replace(QChar(1), '&');
  return text;
}

void collectMenu(QMenu* menu, const QString& path, std::vector<CommandPalette::Command>& out, QSet<QAction*>& seen) {
  // A menu filled on demand (Profile > Export) fills itself before it shows.
  Q_EMIT menu->aboutToShow();
  for (QAction* action : menu->actions()) {
    if (action->isSeparator() || action->text().isEmpty()) continue;
    const QString label = path + QStringLiteral(" > ") + withoutMnemonics(action->text());
    if (QMenu* sub = action->menu()) {
      collectMenu(sub, label, out, seen);
      continue;
    }
    if (seen.contains(action)) continue;
    seen.insert(action);
    out.push_back({action, label});
  }
}

bool isWordStart(const QString& text, qsizetype i) {
  if (i == 0) return true;
  const QChar before = text[i - 1];
  return !before.isLetterOrNumber() || (before.isLower() && text[i].isUpper());
}

}  // namespace

std::optional<int> fuzzyScore(const QString& pattern, const QString& text) {
  const QString needle = pattern.simplified().remove(' ').toLower();
  if (needle.isEmpty()) return 0;
  const QString hay = text.toLower();
  int score = 0;
  qsizetype at = 0;
  qsizetype previous = -2;
  for (const QChar c : needle) {
    const qsizetype found = hay.indexOf(c, at);
    if (found < 0) return std::nullopt;
    score += 1;
    if (found == previous + 1) score += 5;  // a run of consecutive characters
    if (isWordStart(text, found)) score += 8;
    previous = found;
    at = found + 1;
  }
  // Of equal matches, the shorter label (the more specific command) first.
  return score * 1000 - int(std::min<qsizetype>(text.size(), 999));
}

CommandPalette::CommandPalette(QMainWindow* window) : QDialog(window, Qt::Popup), window_(window) {
  setObjectName(QStringLiteral("commandPalette"));
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Type a command (fuzzy: \"exim\" finds Export Image)"));
  filter_->setClearButtonEnabled(true);
  list_ = new QListWidget(this);
  list_->setUniformItemSizes(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(filter_);
  layout->addWidget(list_);
  connect(filter_, &QLineEdit::textChanged, this, &CommandPalette::setFilter);
  connect(filter_, &QLineEdit::returnPressed, this, &CommandPalette::runCurrent);
  connect(list_, &QListWidget::itemActivated, this, [this] { runCurrent(); });
  filter_->installEventFilter(this);  // Up and Down move in the list while typing
}

std::vector<CommandPalette::Command> CommandPalette::collectCommands(QMainWindow* window) {
  std::vector<Command> commands;
  QSet<QAction*> seen;
  for (QAction* top : window->menuBar()->actions())
    if (QMenu* menu = top->menu()) collectMenu(menu, withoutMnemonics(menu->title()), commands, seen);
  // Actions on the window but in no menu (shortcuts such as Find Next).
  for (QAction* action : window->actions())
    if (!seen.contains(action) && !action->isSeparator() && !action->text().isEmpty() && !action->menu())
      commands.push_back({action, withoutMnemonics(action->text())});
  return commands;
}

void CommandPalette::popup() {
  commands_ = collectCommands(window_);
  filter_->clear();
  setFilter({});
  const QRect area = window_->geometry();
  const int width = std::min(640, area.width() - 40);
  resize(width, std::min(420, area.height() - 80));
  move(area.center().x() - width / 2, area.top() + 60);
  show();
  filter_->setFocus();
}

void CommandPalette::setFilter(const QString& text) {
  std::vector<std::pair<int, int>> ranked;  // (score, command index)
  for (int i = 0; i < int(commands_.size()); ++i) {
    if (!commands_[size_t(i)].action) continue;
    if (auto score = fuzzyScore(text, commands_[size_t(i)].label)) ranked.push_back({*score, i});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
  list_->clear();
  for (const auto& [score, index] : ranked) {
    const Command& command = commands_[size_t(index)];
    QString label = command.label;
    if (!command.action->shortcut().isEmpty())
      label += QStringLiteral("    (%1)").arg(command.action->shortcut().toString(QKeySequence::NativeText));
    auto* item = new QListWidgetItem(label, list_);
    item->setData(kCommandRole, index);
    if (!command.action->isEnabled()) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
  }
  for (int row = 0; row < list_->count(); ++row)
    if (list_->item(row)->flags() & Qt::ItemIsEnabled) {
      list_->setCurrentRow(row);
      break;
    }
}

QStringList CommandPalette::shownLabels() const {
  QStringList labels;
  for (int row = 0; row < list_->count(); ++row)
    labels << commands_[size_t(list_->item(row)->data(kCommandRole).toInt())].label;
  return labels;
}

bool CommandPalette::runCurrent() {
  QListWidgetItem* item = list_->currentItem();
  if (!item || !(item->flags() & Qt::ItemIsEnabled)) return false;
  QPointer<QAction> action = commands_[size_t(item->data(kCommandRole).toInt())].action;
  hide();
  if (!action || !action->isEnabled()) return false;
  action->trigger();
  return true;
}

bool CommandPalette::eventFilter(QObject* watched, QEvent* event) {
  if (watched == filter_ && event->type() == QEvent::KeyPress) {
    const int key = static_cast<QKeyEvent*>(event)->key();
    if (key == Qt::Key_Up || key == Qt::Key_Down || key == Qt::Key_PageUp || key == Qt::Key_PageDown) {
      QCoreApplication::sendEvent(list_, event);
      return true;
    }
    if (key == Qt::Key_Escape) {
      hide();
      return true;
    }
  }
  return QDialog::eventFilter(watched, event);
}

}  // namespace onyx::views
