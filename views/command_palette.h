#pragma once
// The command palette (Ctrl+Shift+P): every action of a window's menus and of the window itself in one list,
// filtered as the user types by a fuzzy match ("exim" finds "File > Export Image..."), run with Enter or a
// click. Disabled actions are listed greyed and cannot be run.
#include <QDialog>
#include <QPointer>
#include <QString>
#include <optional>
#include <vector>

class QAction;
class QLineEdit;
class QListWidget;
class QMainWindow;

namespace onyx::views {

// How well `pattern` matches `text` as a subsequence (case-insensitive): higher is better, nullopt when some
// character of the pattern is missing. Runs of consecutive characters and matches at word starts score more,
// so "sa" ranks "Save As" above "Sample".
std::optional<int> fuzzyScore(const QString& pattern, const QString& text);

class CommandPalette : public QDialog {
  Q_OBJECT

 public:
  struct Command {
    QPointer<QAction> action;
    QString label;  // "File > Save As...", without mnemonics
  };

  explicit CommandPalette(QMainWindow* window);

  // Every command of the window's menu bar (sub-menus included) and of its own actions, by label.
  static std::vector<Command> collectCommands(QMainWindow* window);

  QLineEdit* filterEdit() const { return filter_; }
  QListWidget* list() const { return list_; }
  // The labels shown now, best match first.
  QStringList shownLabels() const;

 public Q_SLOTS:
  // Re-reads the window's actions, clears the filter and shows the palette over the window.
  void popup();
  void setFilter(const QString& text);
  // Triggers the selected (else the first) enabled command and closes the palette; false when none.
  bool runCurrent();

 private:
  bool eventFilter(QObject* watched, QEvent* event) override;

  QMainWindow* window_;
  QLineEdit* filter_;
  QListWidget* list_;
  std::vector<Command> commands_;
};

}  // namespace onyx::views
