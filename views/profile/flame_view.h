#pragma once
// The flame (icicle) graph of time over the name-scope hierarchy: the model on top, scopes below, nodes at
// the bottom; a child's width is its share of its parent's, so widths add up. Clicking a scope zooms into
// it, the breadcrumb zooms back out, clicking a node selects it (in every view and the graph), and search
// highlights matching frames.
#include <QWidget>
#include <vector>

#include "profile/profile_summary.h"

class QLabel;
class QLineEdit;
class QToolButton;

namespace onyx::views {

class ProfileSession;

// The drawing itself; FlameView adds the breadcrumb and the search box.
class FlameCanvas : public QWidget {
  Q_OBJECT

 public:
  explicit FlameCanvas(ProfileSession* session, QWidget* parent = nullptr);

  struct Frame {
    const profile::FlameNode* node;
    QRectF rect;
  };
  // Frames under the zoom root as drawn at the current size (the root spans the full width).
  std::vector<Frame> frames() const;
  const profile::FlameNode* frameAt(QPointF point) const;
  const profile::FlameNode* zoomRoot() const { return zoomRoot_; }
  void zoomTo(const profile::FlameNode* node);  // null: the whole model
  void setSearch(const QString& text);
  int matchCount() const { return matches_; }
  bool matches(const profile::FlameNode& node) const;
  static constexpr int kRowHeight = 20;

  QSize sizeHint() const override;

 Q_SIGNALS:
  void zoomChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void countMatches();
  QString tooltipFor(const profile::FlameNode& node) const;

  ProfileSession* session_;
  const profile::FlameNode* zoomRoot_ = nullptr;
  QString search_;
  int matches_ = 0;
};

class FlameView : public QWidget {
  Q_OBJECT

 public:
  explicit FlameView(ProfileSession* session, QWidget* parent = nullptr);
  FlameCanvas* canvas() const { return canvas_; }
  QString breadcrumbText() const;

 private:
  void updateBreadcrumb();

  ProfileSession* session_;
  FlameCanvas* canvas_;
  QToolButton* zoomOut_;
  QLabel* breadcrumb_;
  QLineEdit* search_;
  QLabel* matches_;
};

}  // namespace onyx::views
