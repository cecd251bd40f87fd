#pragma once
// The canvas's QGraphicsView: smooth zoom with the wheel anchored under the mouse, pan by dragging (or the
// arrow keys), fit to view, and clicks/double-clicks reported as the item under the mouse.
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
  // Shows the whole scene (never magnified beyond 1.5x).
  void fitToView();
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

  QVariantAnimation* zoomAnimation_ = nullptr;
  double targetScale_ = 1;
  QPoint zoomAnchor_;
  QPointF zoomAnchorScene_;
  QPoint pressPosition_;
};

}  // namespace onyx::views
