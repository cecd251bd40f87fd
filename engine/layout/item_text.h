#pragma once
// What a box says and how big it is. The canvas draws the same lines with the same metrics, so the sizes
// the layout reserves are the sizes it paints.
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "layout/level_view.h"

namespace onyx::layout {

// Box geometry in points.
struct BoxMetrics {
  double lineHeight = 14;
  double titleHeight = 18;
  double paddingX = 8;
  double paddingY = 4;
  double minWidth = 56;
  double averageCharWidth = 6.2;  // the default TextWidth: an 11 pt sans font
};

// Short text of a node's key attributes, one per line: "kernel 3×3", "strides 2×2", "perm 0,2,1,3".
std::vector<std::string> keyAttributeLines(const Node& node);

// The lines under an item's title: its attributes, its initializer tags, a group's node count, a
// terminal's type.
std::vector<std::string> itemDetailLines(const Item& item);

// The default text measure: characters (not bytes) times the average width.
double approximateTextWidth(std::string_view text, const BoxMetrics& metrics = {});

// Sets item.width and item.height from its title and detail lines.
void sizeItem(Item& item, const TextWidth& textWidth, const BoxMetrics& metrics = {});

}  // namespace onyx::layout
