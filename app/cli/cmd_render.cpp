// `onyx render MODEL -o OUT.svg|OUT.png [--scope PATH] [--expand-all] [--width PX] [--profile TRACE
// [--metric M]]`: the graph explorer's picture of a level, drawn headless with the canvas's own scene classes
// (views/graph/graph_render.h); with a profile (ours or ONNX Runtime's), painted with the profiling overlay.
#include <CLI/CLI.hpp>
#include <QApplication>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/output_paths.h"
#include "graph/graph_render.h"
#include "onnx/onnx_io.h"
#include "profile/fused_attribution.h"
#include "profile/node_metrics.h"
#include "profile/profile.h"
#include "profile/profile_overlay.h"
#include "shapes/shape_inference.h"

namespace onyx::cli {

namespace {

struct RenderArguments {
  std::string model;
  std::string output;
  std::string scope;
  bool expandAll = false;
  int width = 0;
  std::string profile;
  std::string metric = "self-time";
};

const std::vector<std::pair<std::string, profile::OverlayMetric>>& metricNames() {
  static const std::vector<std::pair<std::string, profile::OverlayMetric>> names = {
      {"self-time", profile::OverlayMetric::SelfTime}, {"share", profile::OverlayMetric::Share},
      {"flops", profile::OverlayMetric::Flops},         {"bytes", profile::OverlayMetric::Bytes},
      {"gflops", profile::OverlayMetric::GflopsPerSecond}, {"gbps", profile::OverlayMetric::GigabytesPerSecond}};
  return names;
}

// Qt's own chatter (no XDG_RUNTIME_DIR, offscreen plugin limits) is not the command's output: the CLI
// promises stderr holds only its one error line. Critical and fatal messages still go through.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << message.toStdString() << "\n";
}

bool endsWith(const std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[text.size() - suffix.size() + i])) != suffix[i])
      return false;
  }
  return true;
}

int runRender(const RenderArguments& arguments) {
  views::RenderFormat format =
      endsWith(arguments.output, ".svg") ? views::RenderFormat::Svg : views::RenderFormat::Png;
  auto model = loadModel(arguments.model);
  if (!model) return reportError(arguments.model, model.error());
  std::vector<PathRole> reads{{"the model", arguments.model}, {"the --profile trace", arguments.profile}};
  for (PathRole& file : externalDataInputs(**model)) reads.push_back(std::move(file));
  if (auto spared = checkOutputsSpareInputs({{"-o", arguments.output}}, reads); !spared)
    return reportError(arguments.output, spared.error());
  ShapeInference shapes = inferShapes(**model);
  // Other shape errors are drawn (red edges); a shape input over the resource limit stops, as in `shapes`.
  if (shapes.overLimit) return reportError(arguments.model, *shapes.overLimit);

  // Drawing text needs a GUI application; without a display it runs on Qt's offscreen platform.
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  qInstallMessageHandler(quietQtMessages);
  static int argc = 1;
  static char name[] = "onyx";
  static char* argv[] = {name, nullptr};
  QApplication application(argc, argv);

  views::RenderOptions options;
  if (!arguments.profile.empty()) {
    auto trace = profile::readTrace(arguments.profile);
    if (!trace) return reportError(arguments.profile, trace.error());
    profile::MappingStats mapping = profile::mapOntoModel(*trace, **model);
    profile::ProfileMetrics metrics = profile::nodeMetrics(*trace);
    if (metrics.nodes.empty()) {
      return reportError(arguments.profile,
                         makeError("none of the trace's " + std::to_string(trace->events.size()) +
                                       " events names a node of the model (" +
                                       std::to_string(mapping.mapped) + " mapped)",
                                   "is it a profile of " + arguments.model + "?"));
    }
    profile::OverlayMetric metric = profile::OverlayMetric::SelfTime;
    for (const auto& [name, value] : metricNames())
      if (name == arguments.metric) metric = value;
    views::ProfileOverlay overlay = views::buildOverlay(metrics, metric);
    if (metric == profile::OverlayMetric::SelfTime || metric == profile::OverlayMetric::Share)
      views::addAttributedTime(overlay, profile::attributeFusedTime(*trace, **model), **model, metrics.iterations);
    for (const auto& [id, entry] : overlay.nodes) options.overlay[id] = {entry.fill, entry.label, entry.value};
    options.legend = overlay.legend;
    options.legendTitle = QString::fromStdString(std::string(profile::metricName(metric)));
    options.formatTotal = &views::ProfileOverlay::formatTotal;
  }
  options.scopePath = arguments.scope;
  options.expandAll = arguments.expandAll;
  options.width = arguments.width;
  auto picture = views::renderModel(**model, &shapes, options, format);
  if (!picture) return reportError(arguments.model, picture.error());
  auto written = writeFileAtomically(arguments.output, picture->toStdString());
  if (!written) return reportError(arguments.output, written.error());
  return kExitOk;
}

}  // namespace

Command renderCommand() {
  return {"render", "Draw a model's graph as the GUI shows it, to an SVG or PNG file",
          [](CLI::App& app) -> std::function<int()> {
            auto arguments = std::make_shared<RenderArguments>();
            app.add_option("MODEL", arguments->model, "The .onnx file")->required();
            app.add_option("-o,--output", arguments->output, "The picture to write: OUT.svg or OUT.png")
                ->required()
                ->check([](const std::string& path) -> std::string {
                  return endsWith(path, ".svg") || endsWith(path, ".png")
                             ? std::string()
                             : "the output must end in .svg or .png, got '" + path + "'";
                });
            app.add_option("--scope", arguments->scope,
                           "Draw only this name scope's interior (e.g. /layer1)");
            app.add_flag("--expand-all", arguments->expandAll,
                         "Show every node, even where the level opens collapsed");
            app.add_option("--width", arguments->width, "Width of the picture in pixels")
                ->check(CLI::Range(16, 100000));
            app.add_option("--profile", arguments->profile,
                           "Paint a profile on the graph: our Chrome trace (onyx run --profile) or an ONNX "
                           "Runtime profile, mapped onto the model by node name");
            std::vector<std::string> metrics;
            for (const auto& [name, value] : metricNames()) metrics.push_back(name);
            app.add_option("--metric", arguments->metric,
                           "What colours the nodes: self-time (default), share, flops, bytes, gflops, gbps")
                ->check(CLI::IsMember(metrics));
            return [arguments] { return runRender(*arguments); };
          }};
}

}  // namespace onyx::cli
