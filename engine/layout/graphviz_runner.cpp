#include "layout/graphviz_runner.h"

#include <dlfcn.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace onyx::layout {
namespace {

// Graphviz reports through a process-wide callback; runs are serialised, so one buffer is enough.
std::string& graphvizMessages() {
  static std::string messages;
  return messages;
}

int collectGraphvizMessage(char* message) {
  graphvizMessages() += message;
  return 0;
}

// The dot layout plugin's library descriptor, from the plugin file itself; null if it cannot be opened.
void* dotLayoutPlugin() {
#ifdef ONYX_GRAPHVIZ_PLUGIN_DIR
  for (const char* file : {"/libgvplugin_dot_layout.so.6", "/libgvplugin_dot_layout.so"}) {
    std::string path = std::string(ONYX_GRAPHVIZ_PLUGIN_DIR) + file;
    if (void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (void* descriptor = dlsym(library, "gvplugin_dot_layout_LTX_library")) return descriptor;
      dlclose(library);
    }
  }
#endif
  return nullptr;
}

GVC_t* graphvizContext() {
  // Created once and kept: setting up the plugin list is the costly part of a first layout.
  static GVC_t* context = [] {
    agseterr(AGERR);  // warnings (font estimates, say) are not the user's business
    agseterrf(collectGraphvizMessage);
    // With the plugin given directly no config file is read: the first layout of a process came out
    // 20-60 ms sooner (engine/layout/README.md).
    if (void* dotLayout = dotLayoutPlugin()) {
      static lt_symlist_t builtins[] = {{"gvplugin_dot_layout_LTX_library", dotLayout}, {nullptr, nullptr}};
      return gvContextPlugins(builtins, 0);
    }
    return gvContext();
  }();
  return context;
}

// Graphviz's C API takes char*; it does not write through these.
char* mutableText(const char* text) {
  return const_cast<char*>(text);
}

std::string inches(double points) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", points / 72.0);
  return buffer;
}

// Cluster labels only reserve room for the title the canvas draws: keep them to characters dot's built-in
// font estimate knows, with no escape sequences.
std::string plainLabel(const std::string& text) {
  std::string label = text;
  for (char& c : label) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e || c == '\\') c = 'm';
  }
  return label;
}

// Frees the layout, then the graph, in that order, whatever happens in between.
struct GraphHandle {
  GVC_t* context = nullptr;
  Agraph_t* graph = nullptr;
  bool laidOut = false;
  ~GraphHandle() {
    if (laidOut) gvFreeLayout(context, graph);
    if (graph) agclose(graph);
  }
};

struct DotGraph {
  std::vector<Agnode_t*> nodes;
  std::vector<Agedge_t*> edges;
  std::vector<Agraph_t*> clusters;
};

DotGraph buildDotGraph(Agraph_t* graph, const LevelView& level, DotProfile profile) {
  for (const auto& [name, value] : dotGraphAttributes(profile)) {
    agattr(graph, AGRAPH, mutableText(std::string(name).c_str()), mutableText(std::string(value).c_str()));
  }
  agattr(graph, AGRAPH, mutableText("fontsize"), mutableText("11"));
  agattr(graph, AGRAPH, mutableText("label"), mutableText(""));
  agattr(graph, AGNODE, mutableText("shape"), mutableText("box"));
  agattr(graph, AGNODE, mutableText("fixedsize"), mutableText("true"));
  agattr(graph, AGNODE, mutableText("label"), mutableText(""));
  Agsym_t* width = agattr(graph, AGNODE, mutableText("width"), mutableText("0.75"));
  Agsym_t* height = agattr(graph, AGNODE, mutableText("height"), mutableText("0.5"));
  Agsym_t* clusterLabel = agattr(graph, AGRAPH, mutableText("label"), mutableText(""));

  DotGraph dot;
  // Clusters are listed parents first (a parent is created before its children are met), so nesting
  // can be built in one pass.
  for (size_t i = 0; i < level.clusters.size(); ++i) {
    const Cluster& cluster = level.clusters[i];
    Agraph_t* parent = cluster.parent >= 0 ? dot.clusters[static_cast<size_t>(cluster.parent)] : graph;
    std::string name = "cluster_" + std::to_string(i);
    Agraph_t* subgraph = agsubg(parent, mutableText(name.c_str()), 1);
    agxset(subgraph, clusterLabel, mutableText(plainLabel(cluster.title).c_str()));
    dot.clusters.push_back(subgraph);
  }
  dot.nodes.reserve(level.items.size());
  for (size_t i = 0; i < level.items.size(); ++i) {
    const Item& item = level.items[i];
    std::string name = "i" + std::to_string(i);
    Agnode_t* node = agnode(graph, mutableText(name.c_str()), 1);
    agxset(node, width, mutableText(inches(item.width).c_str()));
    agxset(node, height, mutableText(inches(item.height).c_str()));
    if (item.cluster >= 0) agsubnode(dot.clusters[static_cast<size_t>(item.cluster)], node, 1);
    dot.nodes.push_back(node);
  }
  dot.edges.reserve(level.edges.size());
  for (size_t i = 0; i < level.edges.size(); ++i) {
    const Edge& edge = level.edges[i];
    std::string name = "e" + std::to_string(i);
    dot.edges.push_back(
        agedge(graph, dot.nodes[edge.from], dot.nodes[edge.to], mutableText(name.c_str()), 1));
  }
  return dot;
}

Rect flipBox(const boxf& box, const boxf& bounds) {
  return {box.LL.x - bounds.LL.x, bounds.UR.y - box.UR.y, box.UR.x - box.LL.x, box.UR.y - box.LL.y};
}

Point flipPoint(const pointf& point, const boxf& bounds) {
  return {point.x - bounds.LL.x, bounds.UR.y - point.y};
}

EdgeGeometry readEdge(Agedge_t* edge, const Rect& from, const Rect& to, const boxf& bounds) {
  EdgeGeometry geometry;
  const splines* spline = ED_spl(edge);
  if (spline && spline->size > 0 && spline->list[0].size >= 4) {
    // dot gives one Bézier per edge unless it routes around concentrators, which we do not use.
    const bezier& curve = spline->list[0];
    geometry.points.reserve(static_cast<size_t>(curve.size));
    for (int i = 0; i < curve.size; ++i) geometry.points.push_back(flipPoint(curve.list[i], bounds));
    geometry.hasArrow = curve.eflag != 0;
    if (geometry.hasArrow) geometry.arrowTip = flipPoint(curve.ep, bounds);
    return geometry;
  }
  // No route (dot leaves none for some straight edges): from the producer's bottom to the consumer's top.
  Point start{from.center().x, from.bottom()};
  Point end{to.center().x, to.y};
  auto at = [&](double t) { return Point{start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t}; };
  geometry.points = {start, at(1.0 / 3), at(2.0 / 3), end};
  geometry.hasArrow = true;
  geometry.arrowTip = end;
  return geometry;
}

LevelLayout readLayout(Agraph_t* graph, const DotGraph& dot, std::shared_ptr<const LevelView> level) {
  LevelLayout layout;
  const boxf bounds = GD_bb(graph);
  layout.bounds = {0, 0, bounds.UR.x - bounds.LL.x, bounds.UR.y - bounds.LL.y};
  layout.items.reserve(dot.nodes.size());
  for (Agnode_t* node : dot.nodes) {
    double width = ND_width(node) * 72.0;
    double height = ND_height(node) * 72.0;
    pointf center = ND_coord(node);
    boxf box{{center.x - width / 2, center.y - height / 2}, {center.x + width / 2, center.y + height / 2}};
    layout.items.push_back(flipBox(box, bounds));
  }
  layout.edges.reserve(dot.edges.size());
  for (size_t i = 0; i < dot.edges.size(); ++i) {
    const Edge& edge = level->edges[i];
    layout.edges.push_back(readEdge(dot.edges[i], layout.items[edge.from], layout.items[edge.to], bounds));
  }
  for (Agraph_t* cluster : dot.clusters) layout.clusters.push_back(flipBox(GD_bb(cluster), bounds));
  layout.level = std::move(level);
  return layout;
}

}  // namespace

std::mutex& graphvizLock() {
  static std::mutex lock;
  return lock;
}

Expected<std::optional<LevelLayout>> runDot(std::shared_ptr<const LevelView> level, DotProfile profile,
                                            const DotRunHooks& hooks) {
  auto cancelled = [&] { return hooks.cancelled && hooks.cancelled(); };
  auto progress = [&](LayoutPhase phase, double fraction) {
    if (hooks.progress) hooks.progress(phase, fraction);
  };
  if (cancelled()) return std::optional<LevelLayout>();
  progress(LayoutPhase::Building, 0.05);
  graphvizMessages().clear();
  GraphHandle handle;
  handle.context = graphvizContext();
  handle.graph = agopen(mutableText("level"), Agdirected, nullptr);
  DotGraph dot = buildDotGraph(handle.graph, *level, profile);
  if (cancelled()) return std::optional<LevelLayout>();

  progress(LayoutPhase::RunningDot, 0.1);
  auto started = std::chrono::steady_clock::now();
  if (gvLayout(handle.context, handle.graph, mutableText("dot")) != 0) {
    std::string messages = graphvizMessages();
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    return makeError("Graphviz could not lay out the level" + (messages.empty() ? "" : ": " + messages),
                     level->scopePath.empty() ? "whole graph" : level->scopePath);
  }
  handle.laidOut = true;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // dot itself cannot be interrupted: a job cancelled while it ran is dropped here.
  if (cancelled()) return std::optional<LevelLayout>();

  progress(LayoutPhase::Reading, 0.95);
  LevelLayout layout = readLayout(handle.graph, dot, std::move(level));
  layout.profile = profile;
  layout.dotSeconds = seconds;
  return std::optional<LevelLayout>(std::move(layout));
}

const char* phaseName(LayoutPhase phase) {
  switch (phase) {
    case LayoutPhase::Queued:
      return "queued";
    case LayoutPhase::Building:
      return "building";
    case LayoutPhase::RunningDot:
      return "running dot";
    case LayoutPhase::Reading:
      return "reading";
    case LayoutPhase::Done:
      return "done";
    case LayoutPhase::Cancelled:
      return "cancelled";
    case LayoutPhase::Failed:
      return "failed";
  }
  return "?";
}

}  // namespace onyx::layout
