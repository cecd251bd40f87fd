#include "graph/graph_render.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include "graph/edge_label.h"
#include "graph/graph_scene.h"
#include "graph/level_source.h"
#include "ir/model.h"
#include "ir/scopes.h"
#include "layout/layout_service.h"

namespace onyx::views {

Expected<QByteArray> renderScene(GraphScene& scene, RenderFormat format, int width) {
  const QRectF source = scene.sceneRect();
  if (source.isEmpty()) return makeError("nothing to draw: the level is empty");
  double scale = width > 0 ? width / source.width() : 1.0;
  if (format == RenderFormat::Png && width <= 0) {
    scale = std::min(1.0, kMaxPngSide / std::max(source.width(), source.height()));
  }
  const QSize size(std::max(1, static_cast<int>(std::lround(source.width() * scale))),
                   std::max(1, static_cast<int>(std::lround(source.height() * scale))));
  if (format == RenderFormat::Png && (size.width() > 32767 || size.height() > 32767)) {
    return makeError(
        "the picture would be " + std::to_string(size.width()) + "x" + std::to_string(size.height()) +
        " pixels, more than a PNG can hold here: pass a smaller --width, or draw one scope with --scope");
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (format == RenderFormat::Png) {
    QImage image(size, QImage::Format_RGB32);
    image.fill(scene.backgroundBrush().color());
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene.setOverview(scene.wantsOverview(scale));  // as a view at this scale draws it
    scene.render(&painter, QRectF(QPointF(), QSizeF(size)), source);
    scene.setOverview(false);
    painter.end();
    if (!image.save(&buffer, "PNG")) return makeError("cannot encode the PNG");
    return bytes;
  }
  scene.setFullDetail(true);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(size);
  generator.setViewBox(QRectF(QPointF(), QSizeF(size)));
  generator.setTitle(QStringLiteral("Onyx graph"));
  QPainter painter(&generator);
  painter.fillRect(QRectF(QPointF(), QSizeF(size)), scene.backgroundBrush());
  scene.render(&painter, QRectF(QPointF(), QSizeF(size)), source);
  painter.end();
  scene.setFullDetail(false);
  return bytes;
}

Expected<QByteArray> renderModel(const Model& model, const ShapeInference* shapes,
                                 const RenderOptions& options, RenderFormat format) {
  const Graph& graph = model.graph();
  ScopeTree scopes = ScopeTree::build(graph);
  layout::LevelRequest request;
  request.graph = &graph;
  request.scopePath = options.scopePath;
  request.expandAll = options.expandAll;
  request.collapseThreshold = options.collapseThreshold;
  request.model = &model;
  auto level = buildStyledLevel(request, scopes, shapes);
  if (!level) return level.error();
  layout::LayoutService service;
  layout::LayoutOutcome laidOut = service.layoutNow(layout::LayoutKey::of(request, 1, 0), *level);
  if (!laidOut) return laidOut.error();
  GraphScene scene;
  scene.showLayout(*laidOut, edgeLabelsFrom(shapes));
  return renderScene(scene, format, options.width);
}

}  // namespace onyx::views
