#pragma once
// The executor's plan as data, one GraphPlan per graph (the main graph, each If/Loop/Scan body, each function
// body): the steps in schedule order (a node on its backend, or an inserted transfer), the slots the values
// live in, what is folded (constants, Transposes into MatMuls, Concats into Convs), which element-wise nodes
// ride along as epilogues, which outputs stay channels-last, and each slot's last reader. The planning steps
// (plan_*.h) fill it in, plan_builder.h runs them in order, and plan_runner.h walks it. Steps also keep
// what a run leaves for the next: folded outputs and the arenas planned for each binding of input shapes.
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/backend.h"
#include "exec/memory_planner.h"
#include "exec/tensor_value.h"

namespace onyx::exec {

constexpr int kForever = INT_MAX;  // last use of graph outputs and inputs: they outlive the run

// How a step's outputs may be kept from one run for the next (ExecutorOptions::foldConstants).
enum class Fold {
  None,
  Constant,  // CPU, deterministic, reads only constants (initializers that are not graph inputs, such steps)
  // The same, reading values computed from tensor dims as well: exporters' shape arithmetic. Its kept
  // outputs stand while GraphPlan::shapeEpoch is the one they were computed in (Step::foldedEpoch).
  Shape,
  // A Shape or Size node: its kept output stands while its input has the dims it had (Step::shapeDims); new
  // dims start a new shape epoch.
  Source,
};

// A node fused into the step before it (see EpilogueOp). Its own kernel runs only when the producer's
// kernel cannot fuse it in a run (other types or shapes).
struct EpilogueStep {
  const Node* node = nullptr;
  // The graph's node it stands for: `node` itself, or the onyx.fused call whose body `node` belongs to
  // (profiles name graph nodes; a body's node ids are not the graph's).
  const Node* graphNode = nullptr;
  int opset = 0;
  std::unique_ptr<PreparedNode> prepared;
  // Per input: its frame slot; -1 absent; kChainValue - k: value k of the chain (0: the producer's).
  std::vector<int> inputs;
};
constexpr int kChainValue = kEpilogueChain;

struct Step {
  const Node* node = nullptr;  // null: an inserted transfer
  int opset = 0;
  Backend* backend = nullptr;
  std::unique_ptr<PreparedNode> prepared;
  std::vector<int> inputs;             // slot per node input, -1 when omitted
  std::vector<int> outputs;            // slot per node output, -1 when omitted
  std::vector<int> captures;           // outer values the node's bodies read (kept alive until it ran)
  bool toHost = false;                 // transfers: direction
  // A node on the host fallback while a device backend is in use: why the device does not run it.
  std::string hostReason;
  std::vector<EpilogueStep> epilogue;  // output 0 is then the value of the last epilogue node
  std::string fusedOps;                // "+Relu", for profiles
  // Per input: the Transpose folded into this step (the kernel reads its input through the permutation,
  // KernelContext::setTransposedInputs), or null. Empty when none is.
  std::vector<const Node*> transposedInputs;
  // Per input: the Concat (or channel-scaling Mul) folded into this step (KernelContext::setConcatenatedInputs,
  // scaledInput), or null. Its parts are `inputs` from partsBegin on, after the node's own, in order; the
  // folded input's own slot is -1.
  std::vector<const Node*> concatenatedInputs;
  size_t partsBegin = SIZE_MAX;
  size_t ownInputs = SIZE_MAX;  // inputs past this many are epilogue operands
  // Per node input: 1 when its value is the same every run (an initializer no caller can override, or the
  // kept output of a constant-folded step), so kernels may pack it once (KernelContext::inputIsConstant).
  std::vector<uint8_t> constantInputs;
  bool channelsLastOut = false;  // output 0 may be channels-last: every reader takes it
  bool blocked16Out = false;     // or in channel blocks of 16 (TensorValue::blocked16): every reader takes that
  // Whether its outputs, computed once, are kept for the following runs (ONNX Runtime folds the constant
  // ones when it loads a model).
  Fold fold = Fold::None;
  int64_t outputBytes = 0;  // what the step wrote in its last run: part of its work (thread budget)
  std::optional<std::vector<RunValue>> folded;
  uint64_t foldedEpoch = 0;  // Fold::Shape
  Dims shapeDims;            // Fold::Source

  // The node input (for Kernel::acceptsChannelsLast) that inputs[i] holds or is a part of, or
  // kEpilogueOperands.
  size_t kernelInput(size_t i) const;
};

// Arena bookkeeping for one binding of the input shapes: the first run with those shapes records what each
// step allocates (requests), then the arena is planned (plan_memory.h) and later runs take views of it.
struct ArenaState {
  bool planned = false;
  std::vector<BufferRequest> requests;
  std::vector<bool> escapes;                     // a graph output or alias of one: heap, never arena
  std::map<std::pair<int, int>, int> requestOf;  // (step, output) -> request
  std::unordered_map<const void*, int> requestOfStorage;
  MemoryPlan plan;
  std::shared_ptr<void> arena;
  std::unique_ptr<char[]> tags;  // one address per request: the storage id of its views
  int64_t heapFallbacks = 0;
  // Graph outputs live on the heap (the caller keeps them); a few blocks per output are kept and reused once
  // the caller has dropped them, so a loop that holds the last outputs while running again does not fault in
  // fresh pages every run (gpt2's 4 MiB logits: 1.4 ms a run).
  struct OutputBlock {
    std::shared_ptr<void> block;
    size_t bytes = 0;
  };
  std::map<int, std::vector<OutputBlock>> outputBlocks;  // per escaping request
};

class GraphPlan {
 public:
  const Graph* graph = nullptr;
  int depth = 0;  // 0: the main graph; bodies one deeper than the graph holding their node
  std::vector<const onyx::Value*> slotValue;  // null for a transfer's copy
  std::unordered_map<const onyx::Value*, int> slotOf;
  std::vector<std::pair<int, TensorValue>> constants;  // initializers, stored in their slots before a run
  std::vector<bool> isConstant;
  std::vector<bool> isShapeDerived;  // output of a Fold::Source or Fold::Shape step
  uint64_t shapeEpoch = 0;
  std::vector<int> inputSlots;
  std::vector<int> outputSlots;
  std::vector<std::pair<const onyx::Value*, int>> captured;  // values of enclosing scopes this graph reads
  std::vector<Step> steps;
  std::vector<int> lastUse;  // per slot: the last step reading it (plan_memory.h), kForever when it escapes
  std::map<std::vector<Dims>, ArenaState> arenas;
  ArenaState* lastArena = nullptr;
  int transfers = 0;
  // The main graph's slots between runs: constants and shape arithmetic stay in place, so the steps that
  // computed them are skipped instead of copying their kept outputs back every run.
  std::vector<RunValue> keptSlots;

  int addSlot(const onyx::Value* value);
  // The slot holding `value`; a value of an enclosing scope gets a slot here, captured from the frame of the
  // graph running this one. -1 when `value` is computed by this graph but not (yet) by any planned step.
  int slotFor(const onyx::Value* value);
  // A graph input's slot: an initializer there is a default the caller may override, never a constant.
  bool isInputSlot(int slot) const;
};

}  // namespace onyx::exec
