// `onyx ops [NAME]`: the op catalogue: per op its domain, category and the kernels each backend has; with
// NAME, one op in detail (since-versions, arity, and the files of its family folder that define it), then
// its ONNX schema's documentation (summary, inputs, outputs, attributes).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "onnx/op_documentation.h"
#include "ops/op_report.h"

namespace onyx::cli {

Command opsCommand() {
  return {"ops",
          "List the ops Onyx knows, their kernels per backend and where they live; NAME: one op in detail",
          [](CLI::App& app) -> std::function<int()> {
            auto name = std::make_shared<std::string>();
            app.add_option("NAME", *name, "An op type (Conv, MatMul...): show it in detail");
            return [name] {
              const std::vector<ops::OpInfo> all = ops::describeOps();
              if (name->empty()) {
                std::cout << ops::formatOpTable(all);
                return std::cout.flush() ? kExitOk : kExitBadInput;
              }
              auto details = ops::formatOpDetails(all, *name);
              if (!details) {
                std::cerr << "error: " << details.error().message << "\n";
                return kExitBadInput;
              }
              std::cout << *details;
              // Then what the ONNX schema says (as the Inspector shows it), at the newest opset libonnx knows.
              for (const ops::OpInfo& op : all) {
                if (op.schema->opType != *name) continue;
                if (auto doc = onnxOpDocumentation(op.schema->domain, op.schema->opType, 1 << 20))
                  std::cout << "\n" << formatOpDocumentation(*doc);
              }
              return std::cout.flush() ? kExitOk : kExitBadInput;
            };
          }};
}

}  // namespace onyx::cli
