#pragma once
// Record once, replay without the walk. A run of the main graph whose device work was one submit, replayed
// from the recording of the run before (the same input dims), and whose host steps only folded constants
// and shape arithmetic, did nothing that depends on the inputs' values besides uploading them: the next run
// with inputs of the same dims and types copies them into the same staging buffers, submits the recorded
// command buffer, waits, and copies the outputs out, as a CUDA graph replays. Token ids that a device Gather
// reads on the host and uploads as they are qualify too, checked against the table's length each replay. The executor walks its plan
// again whenever anything differs (new dims, profiling, an input given another way).
#include <optional>
#include <vector>

#include "exec/backend.h"
#include "exec/graph_plan.h"

namespace onyx::exec {

class RunReplay {
 public:
  // The replay of the run that just finished (`given`: the run's inputs per graph input, empty where the
  // caller gave none; `outputs`: what it returned), or nullopt when it does not qualify.
  static std::optional<RunReplay> of(const GraphPlan& plan, Backend& device, const std::vector<const RunValue*>& given,
                                     const std::vector<RunValue>& outputs);

  // Whether these inputs (per graph input) let the recorded run repeat: each a host tensor of the dims and
  // type the recorded run had.
  bool fits(const std::vector<const RunValue*>& given) const;
  // Repeats the run on `given` (fits() true). The outputs reuse the last replay's storage the caller dropped.
  Expected<std::vector<RunValue>> run(const std::vector<const RunValue*>& given);

 private:
  Backend* device_ = nullptr;
  std::vector<Dims> inputDims_;
  std::vector<DataType> inputTypes_;
  std::vector<size_t> uploadInput_;     // per upload of the run: the graph input it copied
  std::vector<size_t> readbackOutput_;  // per readback: the graph output it filled
  std::vector<TensorValue> outputs_;
  // Graph inputs a device Gather reads on the host as indices into a weight, uploading them as they are: a
  // replay takes only values in [0, length) (the walk normalizes or refuses others, naming the node).
  struct IndexCheck {
    size_t input = 0;
    int64_t length = 0;
  };
  std::vector<IndexCheck> indexChecks_;
};

}  // namespace onyx::exec
