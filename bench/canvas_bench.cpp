// The graph canvas, headless (offscreen platform): open to first paint at the sizes the graph explorer must
// handle, and frame time while panning. Prints each figure against its target from issue #4.
//   canvas_bench [--models DIR]
// "Open" counts what the canvas does once the model is loaded and inferred (the loader's worker does both
// before the canvas sees the document; their times are printed separately): scope tree, level, layout on
// the service's worker, scene items, and one paint of the view into an image.
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "layout/synthetic_models.h"
#include "model_document.h"
#include "onnx/onnx_io.h"

using namespace onyx;
using namespace onyx::views;

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One frame as the screen gets it: the viewport's paint event, into an image.
void paintOnce(GraphView& view) {
  QImage frame(view.viewport()->size(), QImage::Format_RGB32);
  view.viewport()->render(&frame);
}

struct OpenResult {
  double inferMs = 0;
  double openMs = 0;  // setDocument to the first frame painted
  size_t items = 0;
  size_t nodes = 0;
  std::string profile;
};

// Opens `model` in `canvas` and paints the first frame.
OpenResult openAndPaint(GraphCanvas& canvas, std::shared_ptr<Model> model,
                        std::unique_ptr<ModelDocument>& document) {
  OpenResult result;
  result.nodes = model->graph().nodeCount();
  auto start = std::chrono::steady_clock::now();
  ShapeInference inference = inferShapes(*model);
  result.inferMs = msSince(start);
  document = std::make_unique<ModelDocument>(model, QStringLiteral("bench.onnx"), std::move(inference));
  QEventLoop loop;
  QObject::connect(&canvas, &GraphCanvas::levelShown, &loop, &QEventLoop::quit);
  QObject::connect(&canvas, &GraphCanvas::layoutFailed, &loop, [&loop](const QString& message) {
    std::fprintf(stderr, "layout failed: %s\n", qPrintable(message));
    loop.quit();
  });
  start = std::chrono::steady_clock::now();
  canvas.setDocument(document.get());
  loop.exec();
  paintOnce(*canvas.view());
  result.openMs = msSince(start);
  if (canvas.shownLayout()) {
    result.items = canvas.shownLayout()->level->items.size();
    result.profile = std::string(layout::profileName(canvas.shownLayout()->profile));
  }
  return result;
}

void printOpen(const char* label, const OpenResult& r, double targetMs) {
  std::printf("%-44s nodes=%-7zu items=%-6zu %-13s infer=%7.1f ms  open+paint=%8.1f ms", label, r.nodes,
              r.items, r.profile.c_str(), r.inferMs, r.openMs);
  if (targetMs > 0) {
    std::printf("  [target %.1f s: %s]", targetMs / 1000, r.openMs <= targetMs ? "met" : "MISSED");
  }
  std::printf("\n");
  std::fflush(stdout);
}

OpenResult openCase(const char* label, std::shared_ptr<Model> model, double targetMs,
                    size_t threshold = 1000) {
  GraphCanvas canvas;
  canvas.resize(1600, 1000);
  canvas.setCollapseThreshold(threshold);
  canvas.show();
  std::unique_ptr<ModelDocument> document;
  OpenResult result = openAndPaint(canvas, std::move(model), document);
  printOpen(label, result, targetMs);
  canvas.setDocument(nullptr);
  return result;
}

// Boxes and edges in the visible area (drawn as items, or batched in overview mode).
size_t visibleItems(GraphView& view) {
  const QRectF visible = view.visibleSceneRect();
  const auto& scene = static_cast<const GraphScene&>(*view.scene());
  size_t count = 0;
  for (const BoxItem* box : scene.boxes()) count += box->box().intersects(visible);
  for (const EdgeItem* edge : scene.edges()) count += edge->boundingRect().intersects(visible);
  return count;
}

// Pans a 10k-node flat level zoomed so that about ten thousand boxes and edges are on screen, painting the
// view into an image after each step, as a frame.
void panning() {
  std::shared_ptr<Model> model = layout::makeNetworkLike({.nodes = 10000});
  GraphCanvas canvas;
  canvas.resize(1600, 1000);
  canvas.setCollapseThreshold(1000000);
  canvas.show();
  std::unique_ptr<ModelDocument> document;
  OpenResult open = openAndPaint(canvas, model, document);
  printOpen("network-like 10k flat (expand-all)", open, 2000);
  GraphView& view = *canvas.view();
  QScrollBar* bar = view.verticalScrollBar();

  auto measure = [&](const char* label, double scale, double targetMs) {
    view.setTransform(QTransform::fromScale(scale, scale));
    bar->setValue(bar->minimum());
    view.horizontalScrollBar()->setValue(
        (view.horizontalScrollBar()->minimum() + view.horizontalScrollBar()->maximum()) / 2);
    QApplication::processEvents();
    size_t visible = visibleItems(view);
    auto warm = std::chrono::steady_clock::now();
    paintOnce(view);  // switches overview mode on or off for this scale
    double warmMs = msSince(warm);
    paintOnce(view);
    std::vector<double> frames;
    const int steps = 60;
    const int stride = std::max(1, (bar->maximum() - bar->minimum()) / (steps * 4));
    for (int i = 0; i < steps; ++i) {
      bar->setValue(bar->value() + stride);
      auto start = std::chrono::steady_clock::now();
      paintOnce(view);
      frames.push_back(msSince(start));
    }
    std::sort(frames.begin(), frames.end());
    double mean = 0;
    for (double f : frames) mean += f;
    mean /= frames.size();
    double p95 = frames[frames.size() * 95 / 100];
    std::printf("%-44s scale=%.4f visible items=%-6zu%s frame mean=%6.2f ms  p95=%6.2f ms  max=%6.2f ms",
                label, scale, visible,
                static_cast<GraphScene*>(view.scene())->isOverview() ? " (overview)" : "", mean, p95,
                frames.back());
    if (targetMs > 0) std::printf("  [target %.0f ms: %s]", targetMs, p95 <= targetMs ? "met" : "MISSED");
    std::printf("\n%-44s first frame at this scale %.1f ms\n", "", warmMs);
    std::fflush(stdout);
  };
  // Zoomed out until about 10k items (boxes and edges) are in the viewport.
  const QRectF scene = view.scene()->sceneRect();
  double fit = std::min(view.viewport()->width() / scene.width(), view.viewport()->height() / scene.height());
  double scale = fit;
  for (double factor = 8; factor > 1.0; factor /= 1.25) {
    view.setTransform(QTransform::fromScale(fit * factor, fit * factor));
    bar->setValue(bar->minimum());
    if (visibleItems(view) >= 10000) {
      scale = fit * factor;
      break;
    }
  }
  measure("pan, zoomed out (~10k items on screen)", scale, 16);
  measure("pan, zoomed in to read labels (scale 1)", 1.0, 16);
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  std::string models = ONYX_DEFAULT_MODELS_DIR;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--models") == 0) models = argv[i + 1];
  }
  std::printf("canvas_bench: offscreen, viewport 1600x1000; targets from issue #4\n");

  openCase("resnet50-like (first paint)", layout::makeResNet50Like(), 500);
  std::string resnet18 = models + "/resnet18/model.onnx";
  if (QFileInfo::exists(QString::fromStdString(resnet18))) {
    auto loaded = loadModel(resnet18);
    if (loaded)
      openCase("shared resnet18 (first paint)", std::shared_ptr<Model>(std::move(loaded).value()), 500);
  }
  openCase("network-like 10k (opens collapsed)", layout::makeNetworkLike({.nodes = 10000}), 2000);
  auto start = std::chrono::steady_clock::now();
  std::shared_ptr<Model> big = layout::makeNetworkLike({.nodes = 100000, .layersPerStage = 12});
  std::printf("%-44s generated in %.0f ms\n", "network-like 100k with stages", msSince(start));
  openCase("network-like 100k, scopes, collapsed", big, 3000);
  big.reset();
  panning();
  return 0;
}
