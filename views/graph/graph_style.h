#pragma once
// How the graph explorer looks: fonts, the colour of each op category, pens and the level-of-detail
// thresholds. The canvas and `onyx render` use the same style, so the CLI gives the GUI's picture; the box
// sizes the layout reserves come from these fonts (textWidth()).
#include <QColor>
#include <QFont>
#include <QPalette>

#include "layout/item_text.h"
#include "layout/level_view.h"
#include "catalog/op_registry.h"

namespace onyx::views {

struct GraphStyle {
  // Built on first use (fonts need the application object). standard() is the light look (and what
  // `onyx render` draws); dark() the same fonts and op colours on a dark canvas, for dark palettes.
  static const GraphStyle& standard();
  static const GraphStyle& dark();
  // dark() when the palette's window is dark (the Dark theme, or System on a dark desktop), else standard().
  static const GraphStyle& forPalette(const QPalette& palette);
  bool isDark() const { return background.lightness() < 128; }

  QFont titleFont;
  QFont detailFont;
  QFont edgeFont;
  layout::BoxMetrics metrics;

  QColor background{250, 250, 250};
  QColor edgeColor{120, 120, 128};
  QColor edgeLabelColor{70, 70, 78};
  QColor unresolvedColor{205, 30, 30};
  QColor selectionColor{0, 96, 255};  // blue: apart from the heat ramp (yellow to red) and op colours
  QColor groupFill{226, 232, 244};
  QColor groupBorder{112, 128, 160};
  QColor terminalFill{236, 236, 236};
  QColor portFill{250, 250, 250};
  QColor clusterFill{240, 244, 250};
  QColor clusterBorder{168, 180, 204};
  QColor nameColor{90, 90, 90};

  // Level of detail (the view's scale): below these, parts of an item are not drawn.
  double titleLod = 0.35;   // op type / group name
  double detailLod = 0.45;  // attributes, initializer tags, edge labels
  double nameLod = 1.4;     // node names above the boxes
  double outlineLod = 0.2;  // box outlines and edge arrowheads; below: plain fills and straight lines

  QColor categoryColor(OpCategory category) const;
  // The fill of a box: a node's by its op's category, the others by kind.
  QColor fillFor(const layout::Item& item) const;
  // Dark or light text, whichever reads on `fill`.
  static QColor textOn(const QColor& fill);
  // Text measure for LevelView box sizes: the title font, which is the wider of the two.
  layout::TextWidth textWidth() const;
};

// The op category of a node item (Other for unknown ops and function calls).
OpCategory categoryOf(const layout::Item& item);

}  // namespace onyx::views
