#include "graph/graph_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QVariantAnimation>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_style.h"

namespace onyx::views {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::NoAnchor);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
  setFocusPolicy(Qt::StrongFocus);
  zoomAnimation_ = new QVariantAnimation(this);
  zoomAnimation_->setDuration(140);
  zoomAnimation_->setEasingCurve(QEasingCurve::OutCubic);
  connect(zoomAnimation_, &QVariantAnimation::valueChanged, this,
          [this](const QVariant& value) { applyScale(value.toDouble(), zoomAnchor_); });
}

double GraphView::scale() const {
  return transform().m11();
}

QRectF GraphView::visibleSceneRect() const {
  return mapToScene(viewport()->rect()).boundingRect();
}

void GraphView::applyScale(double scale, QPoint anchor) {
  // Keep the scene point that was under the anchor there: scale, then scroll it back.
  setTransform(QTransform::fromScale(scale, scale));
  QPoint drift = mapFromScene(zoomAnchorScene_) - anchor;
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() + drift.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() + drift.y());
  Q_EMIT viewportMoved();
}

void GraphView::zoomTo(double scale, QPoint anchor, bool animated) {
  refitOnResize_ = false;
  scale = std::clamp(scale, kMinScale, kMaxScale);
  zoomAnchor_ = anchor;
  zoomAnchorScene_ = mapToScene(anchor);
  targetScale_ = scale;
  zoomAnimation_->stop();
  if (!animated || !isVisible()) {
    applyScale(scale, anchor);
    return;
  }
  zoomAnimation_->setStartValue(this->scale());
  zoomAnimation_->setEndValue(scale);
  zoomAnimation_->start();
}

void GraphView::zoomBy(double factor) {
  double from = zoomAnimation_->state() == QAbstractAnimation::Running ? targetScale_ : scale();
  zoomTo(from * factor, viewport()->rect().center());
}

void GraphView::fitToView() {
  zoomAnimation_->stop();
  refitOnResize_ = true;
  QRectF rect = sceneRect();
  if (rect.isEmpty()) return;
  double fit = std::min(viewport()->width() / rect.width(), viewport()->height() / rect.height());
  fit = std::clamp(fit, kMinScale, 1.5);
  // A whole model at a glance is a screen of unlabelled fills: below the title scale, read from the top.
  const double readable = GraphStyle::standard().titleLod;
  fittedScale_ = std::max(fit, readable);
  setTransform(QTransform::fromScale(fittedScale_, fittedScale_));
  if (fit >= readable) {
    centerOn(rect.center());
  } else {
    const double halfHeight = viewport()->height() / readable / 2;
    centerOn(inputsCentre().x(), rect.top() + halfHeight);
  }
  Q_EMIT viewportMoved();
}

QPointF GraphView::inputsCentre() const {
  const QRectF rect = sceneRect();
  auto* graph = dynamic_cast<GraphScene*>(scene());
  QRectF inputs;
  if (graph) {
    for (const BoxItem* box : graph->boxes()) {
      const layout::ItemKind kind = box->levelItem().kind;
      if (kind == layout::ItemKind::Input || kind == layout::ItemKind::PortIn) inputs |= box->box();
    }
  }
  return inputs.isNull() ? QPointF(rect.center().x(), rect.top()) : inputs.center();
}

void GraphView::centerOnRect(const QRectF& rect, double minScale) {
  zoomAnimation_->stop();
  refitOnResize_ = false;
  if (scale() < minScale) setTransform(QTransform::fromScale(minScale, minScale));
  centerOn(rect.center());
  Q_EMIT viewportMoved();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  // Ctrl+wheel or a plain wheel both zoom: a graph is panned by dragging. Pixel deltas (touchpads) zoom
  // continuously; a mouse notch (120) is a 1.25x step, eased over a few frames.
  double delta = event->angleDelta().y();
  if (delta == 0) delta = event->pixelDelta().y();
  if (delta == 0) return;
  double from = zoomAnimation_->state() == QAbstractAnimation::Running ? targetScale_ : scale();
  double factor = std::pow(1.25, delta / 120.0);
  zoomTo(from * factor, event->position().toPoint(), event->pixelDelta().isNull());
  event->accept();
}

QGraphicsItem* GraphView::interestingItemAt(QPoint position) const {
  // Boxes first (an edge may pass over or under a box), then edges, then cluster frames.
  QGraphicsItem* edge = nullptr;
  QGraphicsItem* cluster = nullptr;
  for (QGraphicsItem* item : items(position)) {
    if (item->type() == BoxItem::Type) {
      if (static_cast<BoxItem*>(item)->box().contains(mapToScene(position))) return item;
    } else if (item->type() == EdgeItem::Type && !edge) {
      edge = item;
    } else if (item->type() == ClusterItem::Type && !cluster) {
      cluster = item;
    }
  }
  if (!edge && !cluster) {
    // In overview mode the items are hidden: find the box by its rectangle.
    if (auto* graph = dynamic_cast<GraphScene*>(scene()); graph && graph->isOverview()) {
      const QPointF point = mapToScene(position);
      for (BoxItem* box : graph->boxes()) {
        if (box->box().contains(point)) return box;
      }
    }
  }
  return edge ? edge : cluster;
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  pressPosition_ = event->position().toPoint();
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  // A press and release in (nearly) one place is a click; anything longer was a pan.
  const bool dragged = (event->position().toPoint() - pressPosition_).manhattanLength() > 4;
  if (event->button() == Qt::LeftButton && dragged) refitOnResize_ = false;
  if (event->button() == Qt::LeftButton && !dragged) {
    Q_EMIT itemClicked(interestingItemAt(event->position().toPoint()), event->modifiers());
  }
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    Q_EMIT itemDoubleClicked(interestingItemAt(event->position().toPoint()), event->modifiers());
    event->accept();
    return;
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  const bool altUp = event->key() == Qt::Key_Up && event->modifiers() == Qt::AltModifier;
  if (event->key() == Qt::Key_Backspace || altUp) {
    Q_EMIT backRequested();
    return;
  }
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomBy(1.25);
      return;
    case Qt::Key_Minus:
      zoomBy(0.8);
      return;
    case Qt::Key_0:
    case Qt::Key_F:
      if (event->key() == Qt::Key_F && event->modifiers() != Qt::NoModifier) break;
      fitToView();
      return;
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
      refitOnResize_ = false;  // a pan by the keys
      break;
    default:
      break;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  Q_EMIT viewportMoved();
}

void GraphView::paintEvent(QPaintEvent* event) {
  if (auto* graph = dynamic_cast<GraphScene*>(scene())) graph->setOverview(graph->wantsOverview(scale()));
  QGraphicsView::paintEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  // A transform set since (a zoom from code) counts as moving the view, like the user's own.
  if (refitOnResize_ && scale() == fittedScale_) fitToView();
  Q_EMIT viewportMoved();
}

}  // namespace onyx::views
