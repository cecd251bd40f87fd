// `onyx diff A B [--json]`: what changed from model A to model B (engine/diff/graph_diff.h). The files are
// unrelated as far as the engine knows, so nodes match by name and then by structure. Exit code 0 whether
// or not the models differ (the summary line says it); 1 when either file cannot be read.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "diff/diff_format.h"
#include "onnx/onnx_io.h"

namespace onyx::cli {

Command diffCommand() {
  return {"diff", "Compare two models: added, removed and changed nodes, values, initializers and functions",
          [](CLI::App& app) -> std::function<int()> {
            auto before = std::make_shared<std::string>();
            auto after = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            app.add_option("A", *before, "The old .onnx file")->required();
            app.add_option("B", *after, "The new .onnx file")->required();
            app.add_flag("--json", *json, "Print JSON instead of text (keys in README.md)");
            app.footer("Exit code 0 whether or not the models differ; 1 when a file cannot be read.");
            return [before, after, json] {
              auto modelA = loadModel(*before);
              if (!modelA) return reportError(*before, modelA.error());
              auto modelB = loadModel(*after);
              if (!modelB) return reportError(*after, modelB.error());
              diff::ModelDiff result = diff::diffModels(**modelA, **modelB, diff::MatchBy::Structure);
              std::cout << (*json ? diff::formatDiffJson(result) : diff::formatDiffText(result));
              return std::cout.flush() ? kExitOk : kExitBadInput;
            };
          }};
}

}  // namespace onyx::cli
