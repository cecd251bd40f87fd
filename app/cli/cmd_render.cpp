// `onyx render MODEL -o OUT.svg|OUT.png [--scope PATH] [--expand-all] [--width PX]`: the graph explorer's
// picture of a level, drawn headless with the canvas's own scene classes (views/graph/graph_render.h).
#include <CLI/CLI.hpp>
#include <QApplication>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "graph/graph_render.h"
#include "onnx/onnx_io.h"
#include "shapes/shape_inference.h"

namespace onyx::cli {

namespace {

struct RenderArguments {
  std::string model;
  std::string output;
  std::string scope;
  bool expandAll = false;
  int width = 0;
};

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
  ShapeInference shapes = inferShapes(**model);

  // Drawing text needs a GUI application; without a display it runs on Qt's offscreen platform.
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  qInstallMessageHandler(quietQtMessages);
  static int argc = 1;
  static char name[] = "onyx";
  static char* argv[] = {name, nullptr};
  QApplication application(argc, argv);

  views::RenderOptions options;
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
            return [arguments] { return runRender(*arguments); };
          }};
}

}  // namespace onyx::cli
