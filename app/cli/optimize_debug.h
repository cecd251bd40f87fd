#pragma once
// The pass debugger's modes of `onyx optimize`: --bisect (which step and which rewrite break the outputs)
// and --measure (what each step buys), with the inputs they run the model on.
#include <string>
#include <vector>

#include "exec/executor.h"
#include "passes/bisect.h"
#include "passes/pass_manager.h"

namespace onyx::cli {

// The inputs of the numeric modes: the --inputs folder, else test_data_set_0 beside the model when there is
// one, else none (random inputs from the bindings). `source` says which, for the report.
struct DebugInputs {
  exec::NamedValues inputs;
  SymBindings bindings;
  std::string source;
};
Expected<DebugInputs> debugInputs(const Model& model, const std::string& modelPath, const std::string& folder,
                                  const std::string& bindText);

void printBisect(const passes::BisectResult& result, const passes::BisectOptions& options,
                 const DebugInputs& inputs, size_t pipelineSize, bool json);

// One line per step (and one for the model before the pipeline): latency, peak bytes, nodes, worst error.
void printMeasureTable(const passes::PipelineResult& result);
std::string costJson(const passes::StepCost& cost);

// One rewrite of a step (--rewrites): "rewrite 2 at Add 'h' (#2): removed ...; added ...", and as JSON.
std::string rewriteText(const passes::RewriteRecord& rewrite);
std::string rewriteJson(const passes::RewriteRecord& rewrite);

}  // namespace onyx::cli
