#include "graph/minimap.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "graph/graph_scene.h"
#include "graph/graph_view.h"

namespace onyx::views {
namespace {
constexpr int kMaxSide = 180;
}

Minimap::Minimap(GraphView* view, QWidget* parent) : QWidget(parent), view_(view) {
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
  connect(view_, &GraphView::viewportMoved, this, qOverload<>(&QWidget::update));
}

QSize Minimap::sizeHint() const {
  return picture_.isNull() ? QSize(kMaxSide, kMaxSide / 2) : picture_.size() + QSize(4, 4);
}

void Minimap::refresh() {
  QGraphicsScene* scene = view_->scene();
  QRectF rect = scene ? scene->sceneRect() : QRectF();
  if (rect.isEmpty()) {
    picture_ = QPixmap();
    hide();
    return;
  }
  double factor = std::min(kMaxSide / rect.width(), kMaxSide / rect.height());
  QSize size(std::max(8, int(rect.width() * factor)), std::max(8, int(rect.height() * factor)));
  picture_ = QPixmap(size);
  picture_.fill(Qt::white);
  QPainter painter(&picture_);
  auto* graph = dynamic_cast<GraphScene*>(scene);
  const bool wasOverview = graph && graph->isOverview();
  if (graph) graph->setOverview(true);  // a thumbnail: plain boxes and lines, drawn in one batch
  scene->render(&painter, QRectF(QPointF(), size), rect, Qt::KeepAspectRatio);
  if (graph) graph->setOverview(wasOverview);
  painter.end();
  resize(sizeHint());
  show();
  update();
}

QRectF Minimap::pictureRect() const {
  return QRectF(QPointF(2, 2), picture_.size());
}

void Minimap::paintEvent(QPaintEvent*) {
  if (picture_.isNull() || !view_->scene()) return;
  QPainter painter(this);
  QColor backdrop = palette().color(QPalette::Base);
  backdrop.setAlpha(235);
  painter.fillRect(rect(), backdrop);
  painter.drawPixmap(pictureRect().topLeft(), picture_);
  painter.setPen(palette().color(QPalette::Mid));
  painter.drawRect(rect().adjusted(0, 0, -1, -1));
  // The visible area, mapped from scene to picture coordinates.
  QRectF scene = view_->scene()->sceneRect();
  QRectF picture = pictureRect();
  QRectF visible = view_->visibleSceneRect().intersected(scene);
  double sx = picture.width() / scene.width();
  double sy = picture.height() / scene.height();
  QRectF frame(picture.x() + (visible.x() - scene.x()) * sx, picture.y() + (visible.y() - scene.y()) * sy,
               visible.width() * sx, visible.height() * sy);
  painter.setPen(QPen(QColor(255, 140, 0), 1.5));
  painter.setBrush(QColor(255, 140, 0, 40));
  painter.drawRect(frame.adjusted(0, 0, std::max(0.0, 3 - frame.width()), std::max(0.0, 3 - frame.height())));
}

void Minimap::centerViewAt(QPointF position) {
  if (picture_.isNull() || !view_->scene()) return;
  QRectF scene = view_->scene()->sceneRect();
  QRectF picture = pictureRect();
  QPointF target(scene.x() + (position.x() - picture.x()) / picture.width() * scene.width(),
                 scene.y() + (position.y() - picture.y()) / picture.height() * scene.height());
  view_->stopRefitOnResize();
  view_->centerOn(target);
}

void Minimap::mousePressEvent(QMouseEvent* event) {
  centerViewAt(event->position());
}

void Minimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) centerViewAt(event->position());
}

}  // namespace onyx::views
