#pragma once
// Headless drawing of a level with the canvas's own scene classes: `onyx render` and the tests draw the
// picture the GUI shows, as PNG (QImage) or SVG (QSvgGenerator).
#include <QByteArray>
#include <QColor>
#include <QString>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/graph_items.h"

#include "util/expected.h"

namespace onyx {
class Model;
struct ShapeInference;
}  // namespace onyx

namespace onyx::views {

class GraphScene;

enum class RenderFormat { Png, Svg };

struct RenderOptions {
  std::string scopePath;   // the scope whose interior is drawn; "" for the whole main graph
  bool expandAll = false;  // every node, even in levels that would open collapsed
  int width = 0;           // pixels; 0: the layout's natural size (1 px per point), PNGs capped below
  size_t collapseThreshold = layout::kDefaultCollapseThreshold;
  // A per-node overlay (the profile's heat colours and times), as the canvas paints it: collapsed groups
  // show `formatTotal` of their nodes' values; the legend is drawn in the picture's top right corner.
  std::unordered_map<NodeId, NodeOverlay> overlay;
  std::vector<std::pair<QColor, QString>> legend;
  QString legendTitle;
  std::function<QString(double)> formatTotal;
};

// PNGs larger than this on either side are scaled down (the natural size of a 10k-node level is huge).
constexpr int kMaxPngSide = 16384;

// Draws the scene's whole level (its labels dropping out with the scale as on screen, except in SVG, which
// keeps every label: a vector picture is read zoomed in).
Expected<QByteArray> renderScene(GraphScene& scene, RenderFormat format, int width);

// Lays out a level of the model's main graph and draws it. Needs a Q(Gui)Application.
Expected<QByteArray> renderModel(const Model& model, const ShapeInference* shapes,
                                 const RenderOptions& options, RenderFormat format);

}  // namespace onyx::views
