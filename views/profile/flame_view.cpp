#include "flame_view.h"

#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <functional>

#include "profile_colors.h"
#include "profile_session.h"

namespace onyx::views {

FlameCanvas::FlameCanvas(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
  connect(session_, &ProfileSession::profileChanged, this, [this] {
    zoomRoot_ = nullptr;
    countMatches();
    updateGeometry();
    update();
    Q_EMIT zoomChanged();
  });
  connect(session_->document(), &ModelDocument::selectionChanged, this, [this] {
    // A node selected elsewhere that the zoom hides: show the whole model again.
    NodeId selected = session_->selectedNode();
    if (selected != kNoNode && zoomRoot_) {
      bool visible = false;
      for (const Frame& f : frames()) visible |= f.node->node == selected;
      if (!visible) zoomTo(nullptr);
    }
    update();
  });
}

QSize FlameCanvas::sizeHint() const {
  int depth = 0;
  std::function<void(const profile::FlameNode&, int)> walk = [&](const profile::FlameNode& n, int d) {
    depth = std::max(depth, d);
    for (const auto& c : n.children) walk(*c, d + 1);
  };
  if (session_->flameTree().root) walk(*session_->flameTree().root, 1);
  return {600, depth * kRowHeight};
}

std::vector<FlameCanvas::Frame> FlameCanvas::frames() const {
  std::vector<Frame> out;
  const profile::FlameNode* top = zoomRoot_ ? zoomRoot_ : session_->flameTree().root.get();
  if (!top) return out;
  std::function<void(const profile::FlameNode&, double, double, int)> place =
      [&](const profile::FlameNode& n, double x, double w, int row) {
        out.push_back({&n, QRectF(x, row * kRowHeight, w, kRowHeight)});
        if (n.totalNs <= 0) return;
        double cx = x;
        for (const auto& c : n.children) {
          double cw = w * double(c->totalNs) / double(n.totalNs);
          place(*c, cx, cw, row + 1);
          cx += cw;
        }
      };
  place(*top, 0, width(), 0);
  return out;
}

const profile::FlameNode* FlameCanvas::frameAt(QPointF point) const {
  for (const Frame& f : frames())
    if (f.rect.contains(point)) return f.node;
  return nullptr;
}

void FlameCanvas::zoomTo(const profile::FlameNode* node) {
  if (node == session_->flameTree().root.get()) node = nullptr;
  if (node && node->isLeaf()) node = node->parent;
  if (node == zoomRoot_) return;
  zoomRoot_ = node;
  update();
  Q_EMIT zoomChanged();
}

bool FlameCanvas::matches(const profile::FlameNode& node) const {
  if (search_.isEmpty()) return false;
  return QString::fromStdString(node.name).contains(search_, Qt::CaseInsensitive) ||
         QString::fromStdString(node.opType).contains(search_, Qt::CaseInsensitive);
}

void FlameCanvas::setSearch(const QString& text) {
  search_ = text.trimmed();
  countMatches();
  update();
}

void FlameCanvas::countMatches() {
  matches_ = 0;
  std::function<void(const profile::FlameNode&)> walk = [&](const profile::FlameNode& n) {
    matches_ += matches(n);
    for (const auto& c : n.children) walk(*c);
  };
  if (session_->flameTree().root) walk(*session_->flameTree().root);
}

void FlameCanvas::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  NodeId selected = session_->selectedNode();
  painter.setFont(font());
  for (const Frame& f : frames()) {
    if (f.rect.width() < 0.5) continue;
    const profile::FlameNode& n = *f.node;
    QColor fill = n.isLeaf() ? opTypeColor(n.opType) : scopeColor(int(f.rect.y() / kRowHeight));
    if (!search_.isEmpty()) fill = matches(n) ? kSearchHighlight : fill.lighter(160);
    QRectF box = f.rect.adjusted(0, 0, -1, -1);
    painter.fillRect(box, fill);
    if (n.isLeaf() && n.node == selected && selected != kNoNode) {
      painter.setPen(QPen(palette().highlight().color(), 2));
      painter.drawRect(box.adjusted(1, 1, -1, -1));
    }
    if (box.width() > 24) {
      painter.setPen(Qt::black);
      QString label = QString::fromStdString(n.isLeaf() ? n.opType + " " + n.name : n.name);
      painter.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       painter.fontMetrics().elidedText(label, Qt::ElideRight, int(box.width()) - 5));
    }
  }
}

void FlameCanvas::mousePressEvent(QMouseEvent* event) {
  const profile::FlameNode* hit = frameAt(event->position());
  if (!hit) return;
  if (hit->isLeaf()) {
    session_->selectNode(hit->node);
  } else if (hit == zoomRoot_) {
    zoomTo(hit->parent);  // clicking the zoomed frame steps back out
  } else {
    zoomTo(hit);
  }
}

QString FlameCanvas::tooltipFor(const profile::FlameNode& n) const {
  const profile::FlameTree& tree = session_->flameTree();
  double perIteration = double(n.totalNs) / 1e6 / std::max(1, tree.iterations);
  double share = tree.root && tree.root->totalNs ? 100.0 * double(n.totalNs) / double(tree.root->totalNs) : 0;
  QString title =
      QString::fromStdString(n.isLeaf() ? n.opType + " " + n.name : (n.path.empty() ? n.name : n.path));
  return QStringLiteral("<b>%1</b><br>%2 ms per iteration<br>%3 % of total<br>%4 FLOPs per iteration")
      .arg(title.toHtmlEscaped())
      .arg(perIteration, 0, 'f', 3)
      .arg(share, 0, 'f', 1)
      .arg(QLocale().toString(double(n.flops) / std::max(1, tree.iterations), 'g', 4));
}

bool FlameCanvas::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const profile::FlameNode* hit = frameAt(help->pos()))
      QToolTip::showText(help->globalPos(), tooltipFor(*hit), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

FlameView::FlameView(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  canvas_ = new FlameCanvas(session, this);
  zoomOut_ = new QToolButton(this);
  zoomOut_->setText(tr("Zoom out"));
  breadcrumb_ = new QLabel(this);
  breadcrumb_->setTextFormat(Qt::RichText);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search nodes and scopes"));
  search_->setClearButtonEnabled(true);
  matches_ = new QLabel(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(zoomOut_);
  bar->addWidget(breadcrumb_, 1);
  bar->addWidget(search_);
  bar->addWidget(matches_);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(canvas_);
  scroll->setWidgetResizable(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(scroll, 1);

  connect(zoomOut_, &QToolButton::clicked, this,
          [this] { canvas_->zoomTo(canvas_->zoomRoot() ? canvas_->zoomRoot()->parent : nullptr); });
  connect(breadcrumb_, &QLabel::linkActivated, this, [this](const QString& link) {
    // Links are ancestor depths: 0 is the model.
    const profile::FlameNode* target = canvas_->zoomRoot();
    int depth = 0;
    for (const profile::FlameNode* n = target; n && n->parent; n = n->parent) ++depth;
    for (int d = depth; d > link.toInt() && target; --d) target = target->parent;
    canvas_->zoomTo(target);
  });
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    canvas_->setSearch(text);
    matches_->setText(text.trimmed().isEmpty() ? QString()
                                               : tr("%n match(es)", nullptr, canvas_->matchCount()));
  });
  connect(canvas_, &FlameCanvas::zoomChanged, this, &FlameView::updateBreadcrumb);
  updateBreadcrumb();
}

QString FlameView::breadcrumbText() const {
  QStringList parts;
  for (const profile::FlameNode* n = canvas_->zoomRoot(); n; n = n->parent)
    parts.prepend(QString::fromStdString(n->name));
  if (parts.isEmpty()) parts << QStringLiteral("model");
  return parts.join(QStringLiteral(" › "));
}

void FlameView::updateBreadcrumb() {
  std::vector<const profile::FlameNode*> chain;
  for (const profile::FlameNode* n = canvas_->zoomRoot(); n; n = n->parent) chain.insert(chain.begin(), n);
  QStringList parts;
  if (chain.empty()) parts << QStringLiteral("<b>model</b>");
  for (size_t d = 0; d < chain.size(); ++d) {
    QString name = QString::fromStdString(chain[d]->name).toHtmlEscaped();
    parts << (d + 1 == chain.size() ? QStringLiteral("<b>%1</b>").arg(name)
                                    : QStringLiteral("<a href=\"%1\">%2</a>").arg(d).arg(name));
  }
  breadcrumb_->setText(parts.join(QStringLiteral(" › ")));
  zoomOut_->setEnabled(canvas_->zoomRoot() != nullptr);
}

}  // namespace onyx::views
