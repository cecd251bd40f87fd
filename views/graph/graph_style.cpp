#include "graph/graph_style.h"

#include <QFontMetricsF>
#include <QString>
#include <array>
#include <memory>

namespace onyx::views {
namespace {

QFont sansFont(int pixelSize, bool bold) {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setStyleHint(QFont::SansSerif);
  font.setPixelSize(pixelSize);
  font.setBold(bold);
  return font;
}

}  // namespace

const GraphStyle& GraphStyle::standard() {
  static const std::unique_ptr<GraphStyle> style = [] {
    auto made = std::make_unique<GraphStyle>();
    made->titleFont = sansFont(12, true);
    made->detailFont = sansFont(10, false);
    made->edgeFont = sansFont(9, false);
    return made;
  }();
  return *style;
}

const GraphStyle& GraphStyle::dark() {
  static const std::unique_ptr<GraphStyle> style = [] {
    auto made = std::make_unique<GraphStyle>(standard());
    // Op fills stay as they are (their text picks its own colour, textOn); what sits on the canvas itself
    // turns light on dark, with WCAG contrast of at least 4.5:1 against the background for text.
    made->background = QColor(34, 35, 38);
    made->edgeColor = QColor(150, 152, 162);
    made->edgeLabelColor = QColor(206, 208, 216);
    made->unresolvedColor = QColor(255, 120, 120);
    made->selectionColor = QColor(90, 170, 255);
    made->groupFill = QColor(60, 70, 92);
    made->groupBorder = QColor(150, 166, 200);
    made->terminalFill = QColor(78, 78, 84);
    made->portFill = QColor(46, 47, 52);
    made->clusterFill = QColor(44, 48, 58);
    made->clusterBorder = QColor(100, 112, 138);
    made->nameColor = QColor(176, 176, 182);
    return made;
  }();
  return *style;
}

const GraphStyle& GraphStyle::forPalette(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() < 128 ? dark() : standard();
}

QColor GraphStyle::categoryColor(OpCategory category) const {
  // One colour per category, in OpCategory order; hues kept apart for neighbours that often meet
  // (Layer/Activation/Normalization).
  static const std::array<QColor, kOpCategoryCount> colors{{
      QColor(51, 102, 187),   // Layer
      QColor(46, 139, 87),    // Pool
      QColor(64, 128, 96),    // Normalization
      QColor(178, 58, 58),    // Activation
      QColor(96, 96, 112),    // Elementwise
      QColor(150, 110, 60),   // Logic
      QColor(120, 80, 150),   // Reduction
      QColor(200, 200, 206),  // Shape
      QColor(100, 150, 170),  // DataMovement
      QColor(214, 214, 190),  // Creation
      QColor(200, 120, 30),   // ControlFlow
      QColor(170, 130, 180),  // Sequence
      QColor(110, 90, 60),    // Quantization
      QColor(30, 120, 140),   // Recurrent
      QColor(140, 60, 120),   // Attention
      QColor(150, 150, 40),   // Detection
      QColor(180, 160, 200),  // Random
      QColor(160, 160, 160),  // Other
  }};
  return colors[static_cast<size_t>(category)];
}

OpCategory categoryOf(const layout::Item& item) {
  if (item.kind != layout::ItemKind::Node || !item.node) return OpCategory::Other;
  const OpSchema* schema = opRegistry().find(item.node->domain(), item.node->opType());
  return schema ? schema->category : OpCategory::Other;
}

QColor GraphStyle::fillFor(const layout::Item& item) const {
  switch (item.kind) {
    case layout::ItemKind::Node:
      return categoryColor(categoryOf(item));
    case layout::ItemKind::Group:
      return groupFill;
    case layout::ItemKind::Input:
    case layout::ItemKind::Output:
      return terminalFill;
    case layout::ItemKind::PortIn:
    case layout::ItemKind::PortOut:
      return portFill;
  }
  return terminalFill;
}

QColor GraphStyle::textOn(const QColor& fill) {
  double luminance = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
  return luminance > 0.6 ? QColor(20, 20, 24) : QColor(255, 255, 255);
}

layout::TextWidth GraphStyle::textWidth() const {
  auto metrics = std::make_shared<QFontMetricsF>(titleFont);
  return [metrics](std::string_view text) {
    return metrics->horizontalAdvance(QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())));
  };
}

}  // namespace onyx::views
