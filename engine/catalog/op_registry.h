#pragma once
// The op catalogue: what Onyx knows about each operator: the domain and type, the category the graph view
// colours it by, the opset versions that changed it, its input/output arity, whether it is elementwise and
// its shape function. It sits below shapes/, exec/ and views/, which read it; the ops themselves live above,
// one family per folder (engine/ops/<family>/), and fill it on first use through registerOpSchemas, which
// engine/ops defines (no static initialisers: the engine is a static library).
#include <cstdint>
#include <source_location>
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
  // The source file that registered the op (its family's schema table), as the compiler named it; set by
  // OpRegistry::add. engineRelativePath makes it "ops/nn/nn_shapes.cpp".
  const char* source = nullptr;

  static constexpr int kVariadic = 1 << 20;
  // The version of the op's definition in effect under `opset` (the largest since-version <= opset); 0 when
  // the op did not exist yet.
  int versionFor(int64_t opset) const;
};

class OpRegistry {
 public:
  void add(OpSchema schema, std::source_location where = std::source_location::current());
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

// Fills the registry with every op family's schemas: defined by engine/ops (ops/op_families.cpp), the only
// place that knows the families.
void registerOpSchemas(OpRegistry& registry);

// A source file path as the compiler named it (absolute, or relative to the build folder), from the engine
// folder on: ".../engine/ops/nn/conv_cpu.cpp" -> "ops/nn/conv_cpu.cpp". Empty for null.
std::string_view engineRelativePath(const char* sourcePath);

}  // namespace onyx
