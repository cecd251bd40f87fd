#pragma once
// The canvas's QGraphicsView: smooth zoom with the wheel anchored under the mouse, pan by dragging (or the
// arrow keys), a readable fit that follows the window until the user moves the view, and clicks/double-clicks
// reported as the item under the mouse.
#include <QGraphicsView>
#include <QPointF>

class QVariantAnimation;

namespace onyx::views {

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(QWidget* parent = nullptr);

  double scale() const;
  // Zooms to `scale` keeping the scene point under `anchor` (viewport coordinates) where it is; animated
  // unless `animated` is false. Clamped to [minScale, maxScale].
  void zoomTo(double scale, QPoint anchor, bool animated = true);
  void zoomBy(double factor);
  // Shows the whole scene (never magnified beyond 1.5x) when that leaves the op titles readable; a level
  // too big for that opens at the smallest scale that draws titles, at its inputs (the top of the graph).
  // Until the user zooms or pans, a resize fits again.
  void fitToView();
  // True while the view still follows fitToView(): no zoom or pan by hand since.
  bool refitsOnResize() const { return refitOnResize_; }
  // The user moved the view (the minimap, a focus): a resize keeps it where it is.
  void stopRefitOnResize() { refitOnResize_ = false; }
  // Centres on `rect`, zooming in to at least `minScale` so its text can be read.
  void centerOnRect(const QRectF& rect, double minScale = 0.8);
  // The scene area currently visible.
  QRectF visibleSceneRect() const;

  static constexpr double kMinScale = 0.002;
  static constexpr double kMaxScale = 8.0;

 Q_SIGNALS:
  void itemClicked(QGraphicsItem* item, Qt::KeyboardModifiers modifiers);  // item null: empty space
  void itemDoubleClicked(QGraphicsItem* item, Qt::KeyboardModifiers modifiers);
  void viewportMoved();  // scrolled, zoomed or resized (the minimap follows)
  void backRequested();  // Backspace or Alt+Up: leave the level for the one above

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void applyScale(double scale, QPoint anchor);
  QGraphicsItem* interestingItemAt(QPoint position) const;
  // Where a level too big to fit readably opens: the middle of its inputs, or of its top edge.
  QPointF inputsCentre() const;

  QVariantAnimation* zoomAnimation_ = nullptr;
  double targetScale_ = 1;
  QPoint zoomAnchor_;
  QPointF zoomAnchorScene_;
  QPoint pressPosition_;
  bool refitOnResize_ = false;
  double fittedScale_ = 0;  // the scale fitToView() chose
};

}  // namespace onyx::views
