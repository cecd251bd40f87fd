// `onyx info MODEL [--json]`: the model summary the GUI also shows (engine/analysis/model_info.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "analysis/model_info.h"
#include "cli/command.h"
#include "onnx/onnx_io.h"

namespace onyx::cli {

Command infoCommand() {
  return {"info", "Print a model's metadata, inputs and outputs, op counts, parameters and functions",
          [](CLI::App& app) -> std::function<int()> {
            auto path = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            app.add_option("MODEL", *path, "The .onnx file")->required();
            app.add_flag("--json", *json, "Print JSON instead of text (keys in README.md)");
            return [path, json] {
              auto model = loadModel(*path);
              if (!model) return reportError(*path, model.error());
              ModelInfo info = summarizeModel(**model);
              std::cout << (*json ? formatModelInfoJson(info) : formatModelInfoText(info));
              return std::cout.flush() ? kExitOk : kExitBadInput;
            };
          }};
}

}  // namespace onyx::cli
