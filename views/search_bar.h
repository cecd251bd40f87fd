#pragma once
// The search bar (Ctrl+F): a query field, "k of n", previous and next (Shift+F3 / F3). Matches come from
// the engine's searchModel, in graph order; all of them are highlighted through the ModelDocument and the
// current one is focused (selected and centred on the canvas).
#include <QPointer>
#include <QWidget>
#include <vector>

#include "analysis/search.h"
#include "model_document.h"

class QLabel;
class QLineEdit;
class QToolButton;

namespace onyx::views {

class SearchBar : public QWidget {
  Q_OBJECT

 public:
  explicit SearchBar(QWidget* parent = nullptr);

  void setDocument(ModelDocument* document);
  QLineEdit* queryField() const { return query_; }
  const std::vector<SearchMatch>& matches() const { return matches_; }
  // Index of the focused match, -1 when there is none.
  int currentIndex() const { return current_; }
  // "3 of 17", "no matches", or empty for an empty query.
  QString countText() const;

  static Selection selectionOf(const SearchMatch& match);

 public Q_SLOTS:
  // Runs the query (also what typing does) and focuses the first match.
  void search(const QString& query);
  void next();
  void previous();
  // Puts the cursor in the field, its text selected (the owner shows the bar).
  void activate();
  // Clears the matches and the highlight; dismissed() tells the owner to hide the bar (Esc, close button).
  void dismiss();

 Q_SIGNALS:
  void dismissed();

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void runQuery();
  void rerun();
  // The model changed: the matches may point at removed nodes. Drop them now, search again once the
  // burst of change events is over.
  void modelEdited();
  void step(int delta);
  void focusCurrent();
  void updateCount();

  QPointer<ModelDocument> document_;
  QLineEdit* query_ = nullptr;
  QLabel* count_ = nullptr;
  QToolButton* previous_ = nullptr;
  QToolButton* next_ = nullptr;
  std::vector<SearchMatch> matches_;
  int current_ = -1;
  bool rerunPending_ = false;
  bool active_ = false;  // between a search and dismiss(): only then do matches follow the model
};

}  // namespace onyx::views
