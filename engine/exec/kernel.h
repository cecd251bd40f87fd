#pragma once
// The kernel API. A kernel computes one node's outputs from its inputs. It is written once per op (and per
// variant: the plain reference kernel is the oracle, optimized variants are checked against it), and
// registered explicitly by its op family (engine/ops/<family>/<family>_family.cpp). See README-kernels.md.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "exec/tensor_value.h"
#include "ir/graph.h"
#include "util/expected.h"

namespace onyx::exec {

class ThreadPool;
class KernelContext;

// The executor's side of a KernelContext: output memory (arena or heap, as the memory planner decided),
// subgraph execution for control flow.
class KernelHost {
 public:
  virtual ~KernelHost() = default;
  virtual Expected<TensorValue> allocateOutput(size_t index, DataType dtype, Dims dims) = 0;
  // Runs a body graph (If branch, Loop/Scan body) with the given inputs; outer-scope values resolve to the
  // values of the frame running the node.
  virtual Expected<std::vector<RunValue>> runSubgraph(const Graph& body, std::vector<RunValue> inputs) = 0;
};

class KernelContext {
 public:
  KernelContext(const Node& node, int opset, std::span<const RunValue* const> inputs,
                std::span<RunValue> outputs, KernelHost& host, ThreadPool& pool)
      : node_(node), opset_(opset), inputs_(inputs), outputs_(outputs), host_(host), pool_(pool) {}

  const Node& node() const { return node_; }
  // Opset version imported for the node's domain: kernels whose op changed across versions branch on it.
  int opset() const { return opset_; }

  // Inputs. An omitted optional input (or one past the end) is absent.
  size_t inputCount() const { return inputs_.size(); }
  bool hasInput(size_t i) const;
  const RunValue& inputValue(size_t i) const;
  // The input as a tensor; empty TensorValue when absent. Use requireTensor to get an error instead.
  const TensorValue& input(size_t i) const;
  Expected<const TensorValue*> requireTensor(size_t i) const;
  // Optional tensor input holding integers (axes, pads...): nullopt when absent.
  std::optional<std::vector<int64_t>> intsInput(size_t i) const;

  // Inputs read through a Transpose the executor folded into this node (per input: the Transpose node, or
  // null). input(i) is then the transposed tensor, made on first use; a kernel that reads the stored tensor
  // with permuted strides uses storedInput, inputPermutation and inputDims and never makes it.
  void setTransposedInputs(std::span<const Node* const> transposes);
  const TensorValue& storedInput(size_t i) const;
  // Output dim d of the Transpose reads stored dim perm[d]; empty when input i is not transposed. An error
  // names the Transpose when its perm does not fit the stored tensor's rank.
  Expected<std::vector<int64_t>> inputPermutation(size_t i) const;
  Dims inputDims(size_t i) const;  // input(i).dims() without making a transposed or concatenated input

  // Inputs joined by a Concat the executor folded into this node (per input: the Concat node, or null), and
  // the Concat's inputs, consecutive per folded input. input(i) is then the concatenation, made on first
  // use; a kernel that reads the parts where they lie uses inputParts and inputDims and never makes it.
  void setConcatenatedInputs(std::span<const Node* const> concats, std::span<const RunValue* const> parts);
  // The parts of input i, in order; empty when input i is not concatenated.
  std::vector<const TensorValue*> inputParts(size_t i) const;
  // Whether every concatenated input's parts join: tensors of one type and rank whose dims differ only on
  // the axis. The error names the Concat. (Also checks the scaled inputs below.)
  Expected<void> checkConcatenatedInputs() const;
  // A channel scale the executor folded into this node as well (plan_fold.h: a Mul read only by a 1 x 1
  // Conv), passed like a Concat with the Mul's two inputs as its parts: {the operand as large as the
  // product, the other}, or nullopt when input i is no such product. input(i) is then the product, made on
  // first use, and inputParts(i) is empty.
  std::optional<std::pair<const TensorValue*, const TensorValue*>> scaledInput(size_t i) const;

  // Attributes with defaults.
  int64_t attrInt(std::string_view name, int64_t fallback) const { return node_.attrInt(name, fallback); }
  float attrFloat(std::string_view name, float fallback) const { return node_.attrFloat(name, fallback); }
  std::string attrString(std::string_view name, std::string_view fallback = {}) const {
    return node_.attrString(name, fallback);
  }
  std::optional<std::vector<int64_t>> attrInts(std::string_view name) const { return node_.attrInts(name); }
  std::optional<std::vector<float>> attrFloats(std::string_view name) const;
  std::optional<std::vector<std::string>> attrStrings(std::string_view name) const;
  const onyx::Tensor* attrTensor(std::string_view name) const;
  const Graph* attrGraph(std::string_view name) const;
  bool hasAttr(std::string_view name) const { return node_.attribute(name) != nullptr; }

  // Outputs. allocateOutput returns the tensor to fill (memory from the planner) and stores it as output i.
  size_t outputCount() const { return outputs_.size(); }
  bool wantsOutput(size_t i) const;  // false for omitted optional outputs: kernels may skip computing them
  Expected<TensorValue*> allocateOutput(size_t i, DataType dtype, Dims dims);
  // Sets output i to an existing value: a view of an input (Reshape, Identity), a sequence, an optional.
  void setOutput(size_t i, RunValue value);

  Expected<std::vector<RunValue>> runSubgraph(const Graph& body, std::vector<RunValue> inputs) {
    return host_.runSubgraph(body, std::move(inputs));
  }

  // True when the kernel computes its fused epilogue (Kernel::setEpilogue) in this run: output 0 is then the
  // value of the epilogue's last node. False when the executor runs the epilogue nodes after it.
  bool fusingEpilogue() const { return fusingEpilogue_; }
  void setFusingEpilogue(bool on) { fusingEpilogue_ = on; }
  // Operands of the epilogue nodes computed before this node ran (EpilogueOp::inputs indexes them).
  const TensorValue& epilogueOperand(size_t i) const;
  void setEpilogueOperands(std::span<const RunValue* const> operands) { epilogueOperands_ = operands; }

  // True when input i holds the same value in every run (a weight, or a value folded from weights): kernels
  // may pack it on first use and keep the packed copy.
  bool inputIsConstant(size_t i) const { return i < constantInputs_.size() && constantInputs_[i]; }
  void setConstantInputs(std::span<const uint8_t> constant) { constantInputs_ = constant; }

  // True when output 0 may be written channels-last (TensorValue::channelsLast): every reader of it takes
  // that layout. Kernels that cannot produce it write plain storage as always.
  bool outputMayBeChannelsLast() const { return outputMayBeChannelsLast_; }
  void setOutputMayBeChannelsLast(bool on) { outputMayBeChannelsLast_ = on; }
  // True when output 0 may be written in channel blocks of 16 (TensorValue::blocked16) instead: every reader
  // takes that layout too (plan_layout.h).
  bool outputMayBeBlocked16() const { return outputMayBeBlocked16_; }
  void setOutputMayBeBlocked16(bool on) { outputMayBeBlocked16_ = on; }

  ThreadPool& pool() const { return pool_; }
  void parallelFor(int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& body) const;

  // An error naming the node (and the input, when `input` >= 0): "Add 'x' (#3), input 1 'B'".
  Error error(std::string message, int input = -1) const;
  Error unsupportedType(int input) const;  // "Add ... does not support float16 for input 0 'A'"

 private:
  const Node& node_;
  int opset_;
  std::span<const RunValue* const> inputs_;
  std::span<RunValue> outputs_;
  KernelHost& host_;
  ThreadPool& pool_;
  bool fusingEpilogue_ = false;
  bool outputMayBeChannelsLast_ = false;
  bool outputMayBeBlocked16_ = false;
  std::span<const RunValue* const> epilogueOperands_;
  std::span<const uint8_t> constantInputs_;
  std::span<const Node* const> transposes_;
  std::span<const Node* const> concats_;
  std::span<const RunValue* const> parts_;
  mutable std::vector<RunValue> made_;  // per transposed or concatenated input, once made

  int64_t concatAxis(size_t i) const;  // of input i's Concat, resolved against its parts' rank
  std::span<const RunValue* const> partValues(size_t i) const;
};

// An element-wise node that follows a node and reads its output 0 (Conv then Relu, Clip, an Add of the
// residual branch, or Sigmoid and Mul for SiLU): the executor asks the producer's kernel to compute it in
// its output pass instead of writing the intermediate tensor and reading it back.
struct EpilogueOp {
  const Node* node = nullptr;
  int opset = 0;
  // Per input of `node`: its value when known while planning (an initializer or a Constant node's tensor),
  // else null.
  std::vector<const onyx::Tensor*> constants;
  // Per input of `node`: kEpilogueChain - k for value k of the chain (0: the producer's output 0, k: the
  // output of epilogue node k-1); an operand computed before the producer ran (the residual of an Add): an
  // index for KernelContext::epilogueOperand; -1 for an absent or constant input.
  std::vector<int> inputs;
};
constexpr int kEpilogueChain = -2;
constexpr size_t kEpilogueOperands = SIZE_MAX;

struct ClipBounds {
  float lo, hi;
};
// A Clip epilogue's bounds: attributes before opset 11, then its optional constant scalar inputs (absent:
// unbounded). nullopt when a bound is computed at run time or lo > hi (ONNX then gives hi everywhere, which
// no fused kernel reproduces): the Clip then runs as its own node. Shared by every kernel that fuses Clip.
std::optional<ClipBounds> epilogueClipBounds(const EpilogueOp& op);
// The value of a float32 one-element constant (an epilogue's Clip bound or scale); nullopt otherwise.
inline std::optional<float> scalarConstant(const onyx::Tensor* t) {
  if (!t || t->dtype() != DataType::Float || t->elementCount() != 1) return std::nullopt;
  return TensorValue::fromConstant(*t).data<float>()[0];
}

// A kernel with state prepared once per node (parsed attributes, packed weights, oneDNN primitives).
class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual Expected<void> run(KernelContext& context) = 0;
  // Offers the kernel the whole epilogue chain so far; true when it will compute all of it (it keeps the
  // list), false to leave its state as it was. The default kernel computes no epilogue.
  virtual bool setEpilogue(const std::vector<EpilogueOp>&) { return false; }
  // Whether this run's inputs let the kernel fuse its epilogue (types, matching shapes); when not, the
  // executor runs it without and then the epilogue nodes' own kernels.
  virtual bool canFuseEpilogue(const KernelContext&) const { return true; }
  // Channels-last storage (TensorValue::channelsLast): whether the kernel reads it for node input i (or
  // kEpilogueOperands: its epilogue operands), and whether it can write output 0 that way when
  // KernelContext::outputMayBeChannelsLast allows.
  virtual bool acceptsChannelsLast(size_t) const { return false; }
  virtual bool producesChannelsLast() const { return false; }
  // Reading channels-last pays only when the output stays channels-last too (Concat: otherwise the
  // producers' own reorders to plain are faster than converting here).
  virtual bool readsChannelsLastOnlyToKeepIt() const { return false; }
  // Channel blocks of 16 (TensorValue::blocked16): whether the kernel reads them for node input i (or
  // kEpilogueOperands). Producing them is the kernel's choice where KernelContext::outputMayBeBlocked16.
  virtual bool acceptsBlocked16(size_t) const { return false; }
  // The algorithm the last run took when the kernel chooses between several ("winograd"), for profiles;
  // empty when there is one.
  virtual std::string_view algorithm() const { return {}; }
  // The code the last run executed, for profiles: oneDNN's implementation ("brg:avx2", "jit_1x1:avx512_core");
  // empty for kernels that report none (KernelDef::isaDispatched names their instruction set instead).
  virtual std::string_view implementation() const { return {}; }
};

// What a kernel factory sees at prepare time.
struct PrepareContext {
  const Node& node;
  int opset;
  ThreadPool& pool;
  // Inputs that are initializers (weights): kernels may pack them now. Null for run-time inputs.
  std::vector<const onyx::Tensor*> constantInputs;
  Error error(std::string message) const { return makeError(std::move(message), node.describe()); }
};

using KernelFunction = Expected<void> (*)(KernelContext&);
using KernelFactory = Expected<std::unique_ptr<Kernel>> (*)(const PrepareContext&);
// Floating-point operations of one run of the node, from its input shapes: sizes its threads, profiles.
using FlopCounter = int64_t (*)(const KernelContext&);

struct KernelDef {
  std::string domain;  // "" for ai.onnx
  std::string opType;
  int sinceVersion = 1;  // the opset versions this kernel implements: [sinceVersion, untilVersion]
  int untilVersion = 1 << 30;
  std::string variant = "reference";  // "reference" is the oracle; others: "avx2", "dnnl", ...
  int priority = 0;                   // among the kernels that support a node, the highest priority runs
  // Its inner loops run the per-instruction-set code of exec/cpu (fast_math.h, F16C): profiles name the set
  // it ran on ("fast:avx2", exec/cpu/cpu_isa.h).
  bool isaDispatched = false;
  KernelFunction function = nullptr;  // either a stateless function,
  KernelFactory factory = nullptr;    // or a factory of prepared kernels
  // Optional filter beyond op and version (attributes, known input types): false means "use another".
  bool (*supports)(const Node& node, int opset) = nullptr;
  // (output, input) pairs whose buffers may be shared: the kernel reads element i of that input before
  // writing element i of the output. The memory planner uses it when the input dies at this node.
  std::vector<std::pair<int, int>> inPlace;
  FlopCounter flops = nullptr;
  // The source file that registered the kernel, as the compiler named it; set by KernelRegistry::add
  // (`onyx ops` shows where each variant lives).
  const char* source = nullptr;
};

class KernelRegistry {
 public:
  // Among kernels of equal priority that support a node, the first added runs: registration order matters.
  void add(KernelDef def, std::source_location where = std::source_location::current());
  // Best kernel for the node under its opset (or the named variant only); null when none.
  const KernelDef* find(const Node& node, int opset, std::string_view variant = {}) const;
  // All kernels of one op, for tests comparing variants.
  std::vector<const KernelDef*> variants(std::string_view domain, std::string_view opType) const;
  const std::vector<std::unique_ptr<KernelDef>>& all() const { return defs_; }

 private:
  std::vector<std::unique_ptr<KernelDef>> defs_;
};

// Every CPU kernel, registered on first use by registerCpuKernels, which engine/ops defines
// (ops/op_families.cpp: every op family's kernels, family by family).
const KernelRegistry& cpuKernels();
void registerCpuKernels(KernelRegistry& registry);

// Runs the node's reference kernel (for its opset): what an optimized variant calls for the types, shapes
// and layouts it leaves to the oracle.
Expected<void> runReferenceKernel(KernelContext& ctx);

// Helpers shared by kernel registrations.
KernelDef kernel(std::string opType, KernelFunction function, int sinceVersion = 1,
                 int untilVersion = 1 << 30);
KernelDef kernelFactory(std::string opType, KernelFactory factory, int sinceVersion = 1);

}  // namespace onyx::exec
