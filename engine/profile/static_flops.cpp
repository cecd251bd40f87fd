#include "profile/static_flops.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "ops/contrib/contrib_flops.h"
#include "profile/fused_attribution.h"
#include "util/limits.h"

namespace onyx::profile {

namespace {

// The value's shape, inferred where shape inference knows it, else as declared; empty when not static.
std::optional<std::vector<int64_t>> staticShape(const Value* value, const ShapeInference& shapes) {
  if (!value) return std::nullopt;
  const InferredValue* inferred = shapes.find(value);
  const Type& type = inferred ? inferred->type : value->type();
  if (!type.isTensor() || !type.shape()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& dim : *type.shape()) {
    auto size = dim.value();
    if (!size) return std::nullopt;
    dims.push_back(*size);
  }
  return dims;
}

// a * b for counts, saturating at the int64 maximum: a hostile file declares dims whose product overflows.
// A negative factor (no count) gives 0.
int64_t times(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return checkedMul(a, b).value_or(std::numeric_limits<int64_t>::max());
}

int64_t elements(const std::optional<std::vector<int64_t>>& shape) {
  if (!shape) return 0;
  int64_t n = 1;
  for (int64_t d : *shape) n = times(n, d);
  return n;
}

// Ops that move, view or describe data without arithmetic.
bool movesDataOnly(std::string_view op) {
  static const std::unordered_set<std::string_view> ops = {
      "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Shape", "Size", "Transpose", "Concat",
      "Split", "Slice", "Gather", "GatherElements", "Expand", "Tile", "Pad", "Cast", "Constant",
      "ConstantOfShape", "Dropout", "DepthToSpace", "SpaceToDepth"};
  return ops.count(op) > 0;
}

int64_t reducedPerOutput(const Node& node, const ShapeInference& shapes, size_t firstReduced) {
  auto input = staticShape(node.inputs().empty() ? nullptr : node.input(0), shapes);
  if (!input || input->size() < firstReduced) return 0;
  int64_t per = 1;
  for (size_t d = firstReduced; d < input->size(); ++d) per = times(per, (*input)[d]);
  return per;
}

}  // namespace

int64_t estimateFlops(const Node& node, const ShapeInference& shapes) {
  const std::string& op = node.opType();
  if (movesDataOnly(op) || node.outputs().empty()) return 0;
  const int64_t out = elements(staticShape(node.output(0), shapes));
  if (node.domain() == "com.microsoft") {
    exec::contrib::InputDims inputs;
    for (const Value* input : node.inputs()) inputs.push_back(staticShape(input, shapes));
    if (auto flops = exec::contrib::contribFlops(node, inputs)) return *flops;
  }
  if (op == "Conv" || op == "ConvTranspose") {
    // Each output element sums input channels / group times the kernel's elements.
    auto weight = staticShape(node.inputs().size() > 1 ? node.input(1) : nullptr, shapes);
    if (!weight || weight->size() < 2) return 0;
    int64_t perOutput = 1;
    for (size_t d = 1; d < weight->size(); ++d) perOutput = times(perOutput, (*weight)[d]);
    if (op == "ConvTranspose") perOutput = elements(weight) / std::max<int64_t>((*weight)[1], 1);
    return times(2, times(out, perOutput));
  }
  if (op == "MatMul" || op == "Gemm") {
    auto a = staticShape(node.inputs().empty() ? nullptr : node.input(0), shapes);
    if (!a || a->empty()) return 0;
    const Attribute* transA = node.attribute("transA");
    int64_t k = op == "Gemm" && attributeIntOr(transA, 0) ? a->front() : a->back();
    return times(2, times(out, k));
  }
  if (op == "BatchNormalization" || op == "InstanceNormalization" || op == "LayerNormalization") return times(4, out);
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    const Attribute* kernel = node.attribute("kernel_shape");
    int64_t window = 1;
    if (kernel && kernel->getInts())
      for (int64_t k : *kernel->getInts()) window = times(window, k);
    return times(out, window);
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return times(out, reducedPerOutput(node, shapes, 2));
  if (op == "Softmax" || op == "LogSoftmax") return times(4, out);
  return times(elementwiseFlopsPerElement(op), out);
}

}  // namespace onyx::profile
