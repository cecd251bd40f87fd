// `onyx save IN OUT [--external-data NAME [--size-threshold BYTES]] [--inline]`: writes a model again, with
// its weights kept where they are, moved into the .onnx, or moved out to one data file beside it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/output_paths.h"
#include "onnx/onnx_io.h"

namespace onyx::cli {

namespace {

struct SaveArguments {
  std::string in;
  std::string out;
  std::string externalData;
  size_t sizeThreshold = 1024;
  bool inlineWeights = false;
};

std::string bytesText(size_t bytes) {
  std::string digits = std::to_string(bytes);
  for (int at = int(digits.size()) - 3; at > 0; at -= 3) digits.insert(size_t(at), ",");
  return digits + (bytes == 1 ? " byte" : " bytes");
}

}  // namespace

Command saveCommand() {
  return {"save", "Write a model again, with its weights inline or in an external data file",
          [](CLI::App& app) -> std::function<int()> {
            auto args = std::make_shared<SaveArguments>();
            app.add_option("IN", args->in, "The .onnx file to read")->required();
            app.add_option("OUT", args->out, "The .onnx file to write (may be IN: it is replaced atomically)")
                ->required();
            auto* external =
                app.add_option("--external-data", args->externalData,
                               "Move tensors of at least --size-threshold bytes to this file, next to OUT");
            app.add_option("--size-threshold", args->sizeThreshold,
                           "Smallest tensor, in bytes, that goes to the external data file (default 1024)")
                // Checked as text: "-1" would wrap to 2^64 - 1 in the size_t.
                ->check([](const std::string& text) -> std::string {
                  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
                  return digits ? "" : "must be a whole number of bytes >= 0, got '" + text + "'";
                })
                ->needs(external);
            app.add_flag("--inline", args->inlineWeights, "Bring external weights back into the .onnx file")
                ->excludes(external);
            return [args, external] {
              if (args->out.empty())
                return reportError(args->in, makeError("OUT is empty: give the .onnx file to write"));
              auto model = loadModel(args->in);
              if (!model) return reportError(args->in, model.error());
              // OUT may be IN (saving over it, atomically, is what save is for), never its weights file.
              if (auto spared = checkOutputsSpareInputs({{"OUT", args->out}}, externalDataInputs(**model)); !spared)
                return reportError(args->out, spared.error());
              SaveOptions options;
              if (args->inlineWeights) options.weights = SaveOptions::Weights::Inline;
              if (external->count() > 0 && args->externalData.empty())
                return reportError(args->out, makeError("--external-data needs a file name (it is written next "
                                                        "to OUT); use --inline to keep the weights inside"));
              if (!args->externalData.empty()) {
                options.weights = SaveOptions::Weights::External;
                options.externalDataName = args->externalData;
                options.sizeThreshold = args->sizeThreshold;
              }
              auto report = saveModel(**model, args->out, options);
              if (!report) return reportError(args->out, report.error());
              std::cout << "saved " << args->out << " (" << bytesText(report->modelBytes) << ")";
              if (!report->externalDataPath.empty())
                std::cout << " and " << report->externalTensors
                          << (report->externalTensors == 1 ? " tensor" : " tensors") << " ("
                          << bytesText(report->externalBytes) << ") in "
                          << report->externalDataPath.filename().string();
              std::cout << "\n";
              return std::cout.flush() ? kExitOk : kExitBadInput;
            };
          }};
}

}  // namespace onyx::cli
