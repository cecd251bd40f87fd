// Graph view layout: how long a level takes from the IR to positions, at the sizes the graph explorer must
// handle, with default dot measured on the same graphs as the baseline.
//   layout_bench [--quick] [--levels] [--models DIR]
// --quick skips the default-dot baseline at 2k nodes (about 10 s alone); --levels opens every level of
// the tiny dynamo-style Llama and of each shared model instead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ir/scopes.h"
#include "layout/layout_service.h"
#include "layout/synthetic_models.h"
#include "onnx/onnx_io.h"

using namespace onyx;
using namespace onyx::layout;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <class F>
double timed(F&& work) {
  auto start = std::chrono::steady_clock::now();
  work();
  return secondsSince(start);
}

uint64_t nextDocument = 1;

// One open of a level as the canvas does it: scope tree, view model, layout on the service's thread.
struct OpenFigures {
  double scopes = 0;
  double build = 0;
  double layout = 0;
  double dot = 0;
  size_t items = 0;
  size_t edges = 0;
  DotProfile profile = DotProfile::Quality;
  double total() const { return scopes + build + layout; }
};

OpenFigures openLevel(LayoutService& service, const Graph& graph, LevelRequest request,
                      const ScopeTree* scopes = nullptr) {
  OpenFigures figures;
  ScopeTree ownTree;
  if (!scopes) {
    figures.scopes = timed([&] { ownTree = ScopeTree::build(graph); });
    scopes = &ownTree;
  }
  request.graph = &graph;
  std::shared_ptr<const LevelView> level;
  figures.build = timed([&] {
    auto built = buildLevel(request, *scopes);
    if (!built) {
      std::fprintf(stderr, "error: %s\n", built.error().toString().c_str());
      std::exit(1);
    }
    level = std::make_shared<const LevelView>(std::move(built.value()));
  });
  figures.items = level->items.size();
  figures.edges = level->edges.size();
  LayoutOutcome outcome = LayoutOutcome(makeError("not run"));
  figures.layout =
      timed([&] { outcome = service.layoutNow(LayoutKey::of(request, nextDocument++, 0), level); });
  if (!outcome) {
    std::fprintf(stderr, "error: %s\n", outcome.error().toString().c_str());
    std::exit(1);
  }
  figures.dot = outcome.value()->dotSeconds;
  figures.profile = outcome.value()->profile;
  return figures;
}

void printOpen(const char* label, size_t nodes, const OpenFigures& f, double target = 0) {
  std::printf(
      "%-34s nodes=%-6zu items=%-6zu edges=%-6zu %-13s scopes=%6.1f ms  view=%6.1f ms  layout=%7.1f ms"
      "  (dot %7.1f ms)  total=%7.1f ms",
      label, nodes, f.items, f.edges, std::string(profileName(f.profile)).c_str(), f.scopes * 1e3,
      f.build * 1e3, f.layout * 1e3, f.dot * 1e3, f.total() * 1e3);
  if (target > 0) std::printf("  [target %.1f s: %s]", target, f.total() <= target ? "met" : "MISSED");
  std::printf("\n");
}

LayoutOptions forcing(DotProfile profile) {
  LayoutOptions options;
  constexpr size_t never = std::numeric_limits<size_t>::max();
  switch (profile) {
    case DotProfile::Quality:
      options.policy = {never, never, never};
      break;
    case DotProfile::Fast:
      options.policy = {0, never, never};
      break;
    case DotProfile::FastStraight:
      options.policy = {0, 0, never};
      break;
    case DotProfile::Layered:
      options.policy = {0, 0, 0};
      break;
  }
  return options;
}

// Default dot against the fast profiles on the same flat level.
void compareProfiles(size_t nodes, bool withDefault) {
  auto model = makeNetworkLike({.nodes = nodes});
  LevelRequest flat;
  flat.expandAll = true;
  size_t count = model->graph().nodeCount();
  double baseline = 0;
  for (DotProfile profile : {DotProfile::Quality, DotProfile::Fast, DotProfile::FastStraight}) {
    if (profile == DotProfile::Quality && !withDefault) continue;
    LayoutService service(forcing(profile));
    OpenFigures f = openLevel(service, model->graph(), flat);
    std::string label = "network " + std::to_string(nodes) + " flat";
    printOpen(label.c_str(), count, f);
    if (profile == DotProfile::Quality) {
      baseline = f.layout;
    } else if (baseline > 0) {
      std::printf("%-34s %s layout is %.1fx faster than default dot\n", "",
                  std::string(profileName(profile)).c_str(), baseline / f.layout);
    }
  }
}

void resnet() {
  auto model = makeResNet50Like();
  size_t count = model->graph().nodeCount();
  LayoutService service;
  // First paint: scopes, view model and layout of the whole (small, hence flat) graph.
  OpenFigures first = openLevel(service, model->graph(), {});
  printOpen("resnet50-like open (auto)", count, first, 0.5);
  LayoutService fast(forcing(DotProfile::Fast));
  OpenFigures quick = openLevel(fast, model->graph(), {});
  printOpen("resnet50-like open (fast)", count, quick);
  std::printf("%-34s default/fast layout time ratio: %.2f\n", "", first.layout / quick.layout);
}

void network10k() {
  auto model = makeNetworkLike({.nodes = 10000});
  size_t count = model->graph().nodeCount();
  LayoutService service;
  OpenFigures collapsed = openLevel(service, model->graph(), {});
  printOpen("network 10k collapsed (auto)", count, collapsed, 2.0);
  LevelRequest flat;
  flat.expandAll = true;
  OpenFigures whole = openLevel(service, model->graph(), flat);
  printOpen("network 10k flat (auto)", count, whole, 2.0);
  LayoutService withSplines(forcing(DotProfile::Fast));
  OpenFigures curved = openLevel(withSplines, model->graph(), flat);
  printOpen("network 10k flat (fast, splines)", count, curved);
}

void network100k() {
  std::unique_ptr<Model> model;
  double generate = timed([&] { model = makeNetworkLike({.nodes = 100000}); });
  size_t count = model->graph().nodeCount();
  std::printf("%-34s generated %zu nodes in %.2f s (loading, not counted)\n", "network 100k", count,
              generate);
  LayoutService service;
  ScopeTree scopes;
  double tree = timed([&] { scopes = ScopeTree::build(model->graph()); });
  OpenFigures collapsed = openLevel(service, model->graph(), {}, &scopes);
  collapsed.scopes = tree;
  printOpen("network 100k collapsed (auto)", count, collapsed, 3.0);

  // Expanding one group: its interior as its own level. /encoder holds every layer, each a group.
  LevelRequest encoder;
  encoder.scopePath = "/encoder";
  OpenFigures encoderOpen = openLevel(service, model->graph(), encoder, &scopes);
  printOpen("network 100k expand /encoder", count, encoderOpen);
  LevelRequest layer;
  layer.scopePath = "/encoder/layer.1000";
  OpenFigures expanded = openLevel(service, model->graph(), layer, &scopes);
  printOpen("network 100k expand layer.1000", count, expanded);
  LevelRequest inline_;
  inline_.expandedScopes = {"/encoder/layer.1000"};
  OpenFigures inlined = openLevel(service, model->graph(), inline_, &scopes);
  printOpen("network 100k expand inline", count, inlined);

  // Re-opening a level already laid out: the cache answers, dot does not run.
  uint64_t runsBefore = service.stats().dotRuns;
  LevelRequest top;
  top.graph = &model->graph();
  auto level = std::make_shared<const LevelView>(std::move(buildLevel(top, scopes).value()));
  LayoutKey key = LayoutKey::of(top, 42, 0);
  double cold = timed([&] { (void)service.layoutNow(key, level); });
  double warm = timed([&] { (void)service.layoutNow(key, level); });
  std::printf("%-34s re-open from cache: %.3f ms vs %.1f ms laid out (dot runs +%llu for 2 opens)\n",
              "network 100k", warm * 1e3, cold * 1e3,
              static_cast<unsigned long long>(service.stats().dotRuns - runsBefore));

  auto staged = makeNetworkLike({.nodes = 100000, .layersPerStage = 100});
  OpenFigures stages = openLevel(service, staged->graph(), {});
  printOpen("network 100k staged collapsed", staged->graph().nodeCount(), stages, 3.0);
  LevelRequest stage;
  stage.scopePath = "/encoder/stage.10";
  OpenFigures stageOpen = openLevel(service, staged->graph(), stage);
  printOpen("network 100k expand stage.10", staged->graph().nodeCount(), stageOpen);
}

void realModels(const std::filesystem::path& folder) {
  if (!std::filesystem::is_directory(folder)) {
    std::printf("real models: %s not found, skipped\n", folder.c_str());
    return;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (std::filesystem::exists(entry.path() / "model.onnx")) files.push_back(entry.path() / "model.onnx");
  }
  std::sort(files.begin(), files.end());
  LayoutService service;
  for (const auto& file : files) {
    std::unique_ptr<Model> model;
    double load = timed([&] {
      auto loaded = loadModel(file);
      if (loaded)
        model = std::move(loaded.value());
      else
        std::printf("%s: %s\n", file.c_str(), loaded.error().toString().c_str());
    });
    if (!model) continue;
    OpenFigures f = openLevel(service, model->graph(), {});
    std::string label = file.parent_path().filename().string();
    printOpen(label.c_str(), model->graph().nodeCount(), f, 0);
    std::printf("%-34s load %.1f ms; open-to-first-paint %.1f ms", "", load * 1e3, (load + f.total()) * 1e3);
    // Default dot as the baseline where it finishes in seconds (it took 34 s on ssdlite320's 2.6k items).
    if (f.profile != DotProfile::Quality && f.items <= 1000) {
      LayoutService quality(forcing(DotProfile::Quality));
      OpenFigures baseline = openLevel(quality, model->graph(), {});
      std::printf("; default dot layout %.1f ms (%.1fx)", baseline.layout * 1e3, baseline.layout / f.layout);
    }
    std::printf("\n");
  }
}

// Every level of a model, as double-clicking through its groups opens them: the most boxes any level
// shows and the slowest level (scope tree built once, as the canvas caches it).
void everyLevel(const std::filesystem::path& file) {
  auto loaded = loadModel(file);
  if (!loaded) {
    std::printf("%s: %s\n", file.c_str(), loaded.error().toString().c_str());
    return;
  }
  const Graph& graph = loaded.value()->graph();
  LayoutService service;
  ScopeTree scopes;
  double tree = timed([&] { scopes = ScopeTree::build(graph); });
  size_t levels = 0, mostBoxes = 0;
  double slowest = 0, sum = 0;
  std::string slowestPath, crowdedPath;
  std::function<void(const Scope&)> visit = [&](const Scope& scope) {
    LevelRequest request;
    request.scopePath = scope.path;
    OpenFigures f = openLevel(service, graph, request, &scopes);
    ++levels;
    sum += f.total();
    if (f.total() > slowest) slowest = f.total(), slowestPath = scope.path;
    if (f.items > mostBoxes) mostBoxes = f.items, crowdedPath = scope.path;
    for (const auto& child : scope.children) visit(*child);
  };
  visit(scopes.root());
  std::string label = file.filename() == "model.onnx" ? file.parent_path().filename().string()
                                                      : file.filename().string();
  std::printf("%-34s nodes=%-6zu levels=%-4zu scope tree %.1f ms; most items %zu ('%s'); slowest level %.1f ms "
              "('%s'); mean %.1f ms  [target 1 s: %s]\n",
              label.c_str(), graph.nodeCount(), levels, tree * 1e3, mostBoxes, crowdedPath.c_str(),
              slowest * 1e3, slowestPath.c_str(), sum / double(std::max<size_t>(1, levels)) * 1e3,
              slowest <= 1.0 ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool levelsOnly = false;
  std::filesystem::path models = ONYX_DEFAULT_MODELS_DIR;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--levels") == 0) {
      levelsOnly = true;
    } else if (std::strcmp(argv[i], "--models") == 0 && i + 1 < argc) {
      models = argv[++i];
    } else {
      std::fprintf(stderr, "usage: layout_bench [--quick] [--levels] [--models DIR]\n");
      return 2;
    }
  }
  std::printf("Graph view layout (Graphviz dot, one worker thread); times are wall clock.\n");
  if (levelsOnly) {
    std::printf("Every level of each model (its groups opened one by one):\n");
    everyLevel(ONYX_DYNAMO_MODEL);
    if (std::filesystem::is_directory(models)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(models)) {
        if (std::filesystem::exists(entry.path() / "model.onnx")) files.push_back(entry.path() / "model.onnx");
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) everyLevel(file);
    }
    return 0;
  }
  resnet();
  compareProfiles(500, true);
  compareProfiles(2000, !quick);
  network10k();
  network100k();
  realModels(models);
  return 0;
}
