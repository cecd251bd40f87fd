#pragma once
// What Onyx knows about each operator, kept in one place beside its shape function: the domain and type, the
// category the graph view colours it by, the opset versions that changed it, its input/output arity and
// whether it is elementwise. Kernels live beside the shape functions in the same family folders
// (engine/ops/<family>/*_cpu.cpp). The registry is filled on first use by the explicit per-family
// register functions listed in register_all.cpp (no static initialisers: the engine is a static library).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/expected.h"

namespace onyx {

class ShapeContext;

enum class OpCategory {
  Layer,          // Conv, Gemm, MatMul...
  Pool,
  Normalization,
  Activation,
  Elementwise,    // arithmetic and math on tensors
  Logic,          // comparisons, boolean and bitwise ops
  Reduction,
  Shape,          // Shape, Size, Reshape, Squeeze...: ops about shapes rather than data
  DataMovement,   // Transpose, Gather, Concat, Slice, Pad...
  Creation,       // Constant, ConstantOfShape, Range, EyeLike...
  ControlFlow,
  Sequence,
  Quantization,
  Recurrent,
  Attention,
  Detection,      // NonMaxSuppression, RoiAlign...
  Random,
  Other,
};
inline constexpr int kOpCategoryCount = static_cast<int>(OpCategory::Other) + 1;

// "Layer", "Pool", ..., as shown in legends and JSON.
std::string_view opCategoryName(OpCategory category);

// Computes a node's output types (and small integer output values) from its inputs; returns an error that
// names the node when the inputs are provably inconsistent.
using ShapeFunction = Expected<void> (*)(ShapeContext& context);

struct OpSchema {
  std::string domain;  // "" for ai.onnx
  std::string opType;
  OpCategory category = OpCategory::Other;
  std::vector<int> sinceVersions;  // ascending: the opset versions that introduced or changed the op
  int minInputs = 0;
  int maxInputs = 0;    // kVariadic for variadic inputs
  int minOutputs = 1;
  int maxOutputs = 1;   // kVariadic for variadic outputs
  bool elementwise = false;  // output element i depends only on input elements i (after broadcasting)
  ShapeFunction shape = nullptr;

  static constexpr int kVariadic = 1 << 20;
  // The version of the op's definition in effect under `opset` (the largest since-version <= opset); 0 when
  // the op did not exist yet.
  int versionFor(int64_t opset) const;
};

class OpRegistry {
 public:
  void add(OpSchema schema);
  // "" and "ai.onnx" are the same domain.
  const OpSchema* find(std::string_view domain, std::string_view opType) const;
  const std::vector<OpSchema>& all() const { return schemas_; }

 private:
  std::vector<OpSchema> schemas_;
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  // "domain::opType" -> position in schemas_; looked up by string_view so that find() does not allocate.
  std::unordered_map<std::string, size_t, KeyHash, std::equal_to<>> index_;
};

// The registry with every op Onyx knows.
const OpRegistry& opRegistry();

// Per-family registration, called once by opRegistry() (register_all.cpp).
void registerMathOps(OpRegistry& registry);
void registerActivationOps(OpRegistry& registry);
void registerLogicOps(OpRegistry& registry);
void registerReductionOps(OpRegistry& registry);
void registerNnOps(OpRegistry& registry);
void registerTensorOps(OpRegistry& registry);
void registerControlFlowOps(OpRegistry& registry);
void registerSequenceOps(OpRegistry& registry);
void registerRnnOps(OpRegistry& registry);
void registerQuantizationOps(OpRegistry& registry);
void registerRandomOps(OpRegistry& registry);
void registerDetectionOps(OpRegistry& registry);
void registerMiscOps(OpRegistry& registry);

}  // namespace onyx
