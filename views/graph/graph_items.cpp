#include "graph/graph_items.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace onyx::views {
namespace {

constexpr double kNameSpace = 16;     // above a box, for its name when zoomed in
constexpr double kNameOverhang = 80;  // a name may run this far past the box's right edge
constexpr double kSelectionRing = 5;  // the selection ring's distance outside the box
constexpr double kBadgeSpace = 90;    // right of a box, for an overlay label
constexpr double kLabelGap = 5;       // between an edge and its label
// Where along an edge its label may sit, best first: the middle, then outwards in both directions.
constexpr double kLabelStops[] = {0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8};

QRectF toQt(const layout::Rect& rect) {
  return {rect.x, rect.y, rect.width, rect.height};
}
QPointF toQt(const layout::Point& point) {
  return {point.x, point.y};
}
QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

}  // namespace

double SceneState::lod(const QStyleOptionGraphicsItem*, const QPainter* painter) const {
  if (fullDetail) return 100;
  // The view opens big levels at exactly the title threshold (GraphView::fitToView); the level of detail
  // read back from the painter's transform comes out a rounding error below it, which hid every title.
  constexpr double kRounding = 1e-6;
  return QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform()) + kRounding;
}

// --- BoxItem ---

BoxItem::BoxItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout, size_t index)
    : state_(state), layout_(std::move(layout)), index_(index), box_(toQt(layout_->items[index])) {
  readText();
}

bool BoxItem::setLevelLayout(std::shared_ptr<const layout::LevelLayout> layout) {
  layout_ = std::move(layout);
  const QString title = title_, name = name_, tip = toolTip();
  const QStringList lines = lines_;
  const QColor fill = fill_;
  readText();
  const bool changed =
      title != title_ || name != name_ || lines != lines_ || fill != fill_ || tip != toolTip();
  if (changed) update();
  return changed;
}

void BoxItem::readText() {
  const layout::Item& item = levelItem();
  fill_ = state_.style->fillFor(item);
  nodeId_ = item.node ? item.node->id() : kNoNode;
  title_ = qs(item.title);
  name_ = qs(item.name);
  lines_.clear();
  std::vector<std::string> lines = layout::itemDetailLines(item);
  for (const std::string& line : lines) lines_.push_back(qs(line));
  firstTag_ = item.kind == layout::ItemKind::Node ? static_cast<int>(item.attributeLines.size())
                                                  : static_cast<int>(lines_.size());
  QString tip = qs(item.title);
  if (!item.name.empty() && item.name != item.title) tip += "\n" + qs(item.name);
  if (item.repeats > 1)
    tip += "\n" + QObject::tr("one of %1 groups here with the same structure").arg(item.repeats);
  if (item.kind == layout::ItemKind::Group)
    tip += "\n" + QObject::tr("double-click to open, Shift+double-click to expand in place");
  if (!item.bodies.empty()) tip += "\n" + QObject::tr("double-click to enter its body");
  setToolTip(tip);
}

QRectF BoxItem::boundingRect() const {
  double right = overlay_ && !overlay_->label.isEmpty() ? kBadgeSpace : kNameOverhang;
  return box_.adjusted(-kSelectionRing - 2, -kNameSpace, right, kSelectionRing + 2);
}

void BoxItem::setHighlighted(bool highlighted) {
  if (highlighted == highlighted_) return;
  highlighted_ = highlighted;
  update();
}

void BoxItem::restyle() {
  fill_ = state_.style->fillFor(levelItem());
  update();
}

void BoxItem::setOverlay(std::optional<NodeOverlay> overlay) {
  prepareGeometryChange();
  overlay_ = std::move(overlay);
  update();
}

void BoxItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const GraphStyle& style = *state_.style;
  const layout::Item& item = levelItem();
  const double lod = state_.lod(option, painter);
  const QColor fill = shownFill();

  if (highlighted_) {
    // A ring outside the box in the selection colour on a white halo: it reads over any fill, the
    // profile's yellow-to-red heat colours included, and the fill itself stays visible.
    const QRectF ring = box_.adjusted(-kSelectionRing, -kSelectionRing, kSelectionRing, kSelectionRing);
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(Qt::white, 5.0));
    painter->drawRoundedRect(ring, 6, 6);
    painter->setPen(QPen(style.selectionColor, 3.0));
    painter->drawRoundedRect(ring, 6, 6);
  }
  if (lod < style.outlineLod) {
    painter->fillRect(box_, fill);
    return;
  }
  QPen border(fill.darker(150), 1.0);
  if (item.kind == layout::ItemKind::PortIn || item.kind == layout::ItemKind::PortOut) {
    border.setStyle(Qt::DashLine);
  }
  painter->setBrush(fill);
  painter->setPen(border);
  if (item.kind == layout::ItemKind::Group) {
    // A collapsed group looks like a stack of boxes.
    painter->drawRoundedRect(box_.translated(3, 3), 5, 5);
    painter->drawRoundedRect(box_, 5, 5);
  } else if (item.kind == layout::ItemKind::Input || item.kind == layout::ItemKind::Output) {
    painter->drawRoundedRect(box_, box_.height() / 2, box_.height() / 2);
  } else {
    painter->drawRoundedRect(box_, 4, 4);
  }
  if (lod < style.titleLod) return;

  const layout::BoxMetrics& metrics = style.metrics;
  const QColor text = GraphStyle::textOn(fill);
  painter->setPen(text);
  painter->setFont(style.titleFont);
  QRectF titleRect(box_.x() + metrics.paddingX, box_.y() + metrics.paddingY,
                   box_.width() - 2 * metrics.paddingX, metrics.titleHeight);
  painter->drawText(titleRect, Qt::AlignCenter, title_);

  if (lod >= style.detailLod) {
    painter->setFont(style.detailFont);
    double y = titleRect.bottom();
    for (int i = 0; i < lines_.size(); ++i) {
      QRectF lineRect(titleRect.x(), y, titleRect.width(), metrics.lineHeight);
      if (i >= firstTag_) {  // an initializer tag: a chip on the box
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, text.lightness() > 128 ? 50 : 150));
        painter->drawRoundedRect(lineRect.adjusted(-3, 1, 3, -1), 3, 3);
        painter->setPen(text);
      }
      painter->drawText(lineRect, Qt::AlignCenter, lines_[i]);
      y += metrics.lineHeight;
    }
    if (lod >= style.nameLod && nodeId_ != kNoNode && !name_.isEmpty()) {
      painter->setPen(style.nameColor);
      QFontMetricsF fm(style.detailFont);
      QString name = fm.elidedText(name_, Qt::ElideMiddle, box_.width() + kNameOverhang);
      painter->drawText(QPointF(box_.x(), box_.y() - 4), name);
    }
  }
  if (overlay_ && !overlay_->label.isEmpty()) {
    painter->setFont(style.detailFont);
    QFontMetricsF fm(style.detailFont);
    QRectF badge(box_.right() + 4, box_.y(), fm.horizontalAdvance(overlay_->label) + 8,
                 metrics.lineHeight + 2);
    painter->setPen(fill.darker(150));
    painter->setBrush(QColor(255, 255, 255, 230));
    painter->drawRoundedRect(badge, 3, 3);
    painter->setPen(QColor(20, 20, 24));
    painter->drawText(badge, Qt::AlignCenter, overlay_->label);
  }
}

// --- EdgeItem ---

EdgeItem::EdgeItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout, size_t index)
    : state_(state), layout_(std::move(layout)), index_(index) {
  const layout::EdgeGeometry& geometry = layout_->edges[index_];
  if (!geometry.points.empty()) {
    path_.moveTo(toQt(geometry.points[0]));
    for (size_t i = 1; i + 2 < geometry.points.size(); i += 3) {
      path_.cubicTo(toQt(geometry.points[i]), toQt(geometry.points[i + 1]), toQt(geometry.points[i + 2]));
    }
  }
  if (geometry.hasArrow && !geometry.points.empty()) {
    QPointF tip = toQt(geometry.arrowTip);
    QPointF from = toQt(geometry.points.back());
    QPointF direction = tip - from;
    double length = std::hypot(direction.x(), direction.y());
    if (length > 0.01) {
      direction /= length;
      QPointF normal(-direction.y(), direction.x());
      QPointF base = tip - direction * 8;
      arrow_ << tip << base + normal * 3.5 << base - normal * 3.5;
    }
  }
  labelAnchor_ = path_.isEmpty() ? QPointF() : path_.pointAtPercent(0.5) + QPointF(kLabelGap, 3);
  setAcceptHoverEvents(true);
  setToolTip(toolTipText());
  setZValue(-1);
  updateBounds();
}

QString EdgeItem::toolTipText() const {
  const layout::Edge& edge = levelEdge();
  if (edge.valueCount > 1) return QObject::tr("%1 values, the first %2").arg(edge.valueCount).arg(qs(edge.valueName));
  return qs(edge.valueName);
}

bool EdgeItem::setLevelLayout(std::shared_ptr<const layout::LevelLayout> layout) {
  layout_ = std::move(layout);
  const QString tip = toolTipText();
  if (tip == toolTip()) return false;
  setToolTip(tip);
  return true;
}

EdgeLabel EdgeItem::withCount(EdgeLabel label) const {
  const layout::Edge& edge = levelEdge();
  if (edge.valueCount > 1 && !label.empty()) label.runs.push_back({QStringLiteral(" ×%1").arg(edge.valueCount)});
  return label;
}

bool EdgeItem::relabel(EdgeLabel label) {
  if (withCount(label) == label_) return false;
  setLabel(std::move(label));
  return true;
}

void EdgeItem::setLabel(EdgeLabel label) {
  prepareGeometryChange();
  label_ = withCount(std::move(label));
  labelSize_ = label_.empty()
                   ? QSizeF()
                   : QSizeF(QFontMetricsF(state_.style->edgeFont).horizontalAdvance(label_.plainText()),
                            QFontMetricsF(state_.style->edgeFont).height());
  updateBounds();
  update();
}

std::vector<QRectF> EdgeItem::labelSpots() const {
  std::vector<QRectF> spots;
  if (path_.isEmpty() || labelSize_.isEmpty()) return spots;
  for (double stop : kLabelStops) {
    const QPointF at = path_.pointAtPercent(stop);
    const double left = -kLabelGap - labelSize_.width(), above = -3 - labelSize_.height();
    for (QPointF offset : {QPointF(kLabelGap, 3), QPointF(left, 3), QPointF(kLabelGap, above), QPointF(left, above)})
      spots.emplace_back(at + offset, labelSize_);  // right of the edge, left of it, each below and above
  }
  return spots;
}

void EdgeItem::placeLabel(QPointF topLeft, bool shown) {
  if (topLeft == labelAnchor_ && shown == labelPlaced_) return;
  prepareGeometryChange();
  labelAnchor_ = topLeft;
  labelPlaced_ = shown;
  updateBounds();
  update();
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event) {
  hovered_ = true;
  if (!labelPlaced_) update();
  QGraphicsItem::hoverEnterEvent(event);
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event) {
  hovered_ = false;
  if (!labelPlaced_) update();
  QGraphicsItem::hoverLeaveEvent(event);
}

void EdgeItem::updateBounds() {
  QRectF bounds = path_.boundingRect().united(arrow_.boundingRect());
  if (!labelSize_.isEmpty()) bounds = bounds.united(QRectF(labelAnchor_, labelSize_));
  bounds_ = bounds.adjusted(-3, -3, 3, 3);
}

void EdgeItem::setHighlighted(bool highlighted) {
  if (highlighted == highlighted_) return;
  highlighted_ = highlighted;
  setZValue(highlighted ? -0.5 : -1);
  update();
}

QPainterPath EdgeItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(6);
  QPainterPath shape = stroker.createStroke(path_);
  if (!labelSize_.isEmpty() && labelPlaced_) shape.addRect(QRectF(labelAnchor_, labelSize_));
  return shape;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const GraphStyle& style = *state_.style;
  const double lod = state_.lod(option, painter);
  const layout::EdgeGeometry& geometry = layout_->edges[index_];
  const QColor color = highlighted_ ? style.selectionColor : style.edgeColor;
  if (lod < style.outlineLod) {
    if (geometry.points.empty()) return;
    painter->setPen(QPen(color, 0));  // cosmetic: one pixel at any scale
    painter->drawLine(toQt(geometry.points.front()),
                      geometry.hasArrow ? toQt(geometry.arrowTip) : toQt(geometry.points.back()));
    return;
  }
  painter->setPen(QPen(color, highlighted_ ? 2.5 : 1.1));
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path_);
  if (!arrow_.isEmpty()) {
    painter->setBrush(color);
    painter->setPen(Qt::NoPen);
    painter->drawPolygon(arrow_);
  }
  if (lod < style.detailLod || !isLabelShown()) return;
  painter->setFont(style.edgeFont);
  QFontMetricsF fm(style.edgeFont);
  QColor under = style.background;
  under.setAlpha(labelPlaced_ ? 200 : 240);  // a label shown over others for the pointer reads on top
  painter->fillRect(QRectF(labelAnchor_, labelSize_), under);
  double x = labelAnchor_.x();
  double baseline = labelAnchor_.y() + fm.ascent();
  for (const LabelRun& run : label_.runs) {
    painter->setPen(run.unresolved ? style.unresolvedColor : style.edgeLabelColor);
    painter->drawText(QPointF(x, baseline), run.text);
    x += fm.horizontalAdvance(run.text);
  }
}

// --- ClusterItem ---

ClusterItem::ClusterItem(const SceneState& state, std::shared_ptr<const layout::LevelLayout> layout,
                         size_t index)
    : state_(state), layout_(std::move(layout)), index_(index), frame_(toQt(layout_->clusters[index])) {
  setZValue(-2);
  setToolTip(qs(cluster().scopePath) + "\n" + QObject::tr("double-click the frame to collapse it"));
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const GraphStyle& style = *state_.style;
  const double lod = state_.lod(option, painter);
  painter->setPen(QPen(style.clusterBorder, lod < style.outlineLod ? 0 : 1.0, Qt::DashLine));
  painter->setBrush(style.clusterFill);
  painter->drawRoundedRect(frame_, 6, 6);
  if (lod < style.titleLod) return;
  painter->setPen(style.groupBorder);
  painter->setFont(style.detailFont);
  painter->drawText(frame_.adjusted(8, 3, -8, 0), Qt::AlignLeft | Qt::AlignTop, qs(cluster().title));
}

}  // namespace onyx::views
