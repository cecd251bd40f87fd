// Vulkan kernels for element-wise unary ops and activations: one shader (unary_vulkan.comp), the op chosen
// by a specialization constant, alpha/beta from attributes (or Clip's min/max inputs, read on the host).
#include <cmath>
#include <limits>

#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

struct UnaryOp {
  const char* opType;
  int code;
  int since;
  float (*alpha)(const Node&);
  float (*beta)(const Node&);
};

float zero(const Node&) { return 0; }

const UnaryOp kUnaryOps[] = {
    {"Relu", 1, 6, zero, zero},
    {"LeakyRelu", 2, 6, [](const Node& n) { return n.attrFloat("alpha", 0.01f); }, zero},
    {"Elu", 3, 6, [](const Node& n) { return n.attrFloat("alpha", 1.0f); }, zero},
    {"Selu", 4, 6, [](const Node& n) { return n.attrFloat("alpha", 1.67326319217681884765625f); },
     [](const Node& n) { return n.attrFloat("gamma", 1.05070102214813232421875f); }},
    {"Sigmoid", 5, 6, zero, zero},
    {"HardSigmoid", 6, 6, [](const Node& n) { return n.attrFloat("alpha", 0.2f); },
     [](const Node& n) { return n.attrFloat("beta", 0.5f); }},
    {"HardSwish", 7, 14, zero, zero},
    {"Softplus", 8, 1, zero, zero},
    {"Softsign", 9, 1, zero, zero},
    {"Tanh", 10, 6, zero, zero},
    {"Gelu", 11, 20, [](const Node& n) { return n.attrString("approximate", "none") == "tanh" ? 1.0f : 0.0f; },
     zero},
    {"Erf", 12, 9, zero, zero},
    {"Exp", 13, 6, zero, zero},
    {"Log", 14, 6, zero, zero},
    {"Abs", 15, 6, zero, zero},
    {"Neg", 16, 6, zero, zero},
    {"Sqrt", 17, 6, zero, zero},
    {"Reciprocal", 18, 6, zero, zero},
    {"Floor", 19, 6, zero, zero},
    {"Ceil", 20, 6, zero, zero},
    {"Round", 21, 11, zero, zero},
    {"Sign", 22, 9, zero, zero},
    {"Sin", 23, 7, zero, zero},
    {"Cos", 24, 7, zero, zero},
    {"Tan", 25, 7, zero, zero},
    {"Asin", 26, 7, zero, zero},
    {"Acos", 27, 7, zero, zero},
    {"Atan", 28, 7, zero, zero},
    {"Sinh", 29, 9, zero, zero},
    {"Cosh", 30, 9, zero, zero},
    {"Asinh", 31, 9, zero, zero},
    {"Acosh", 32, 9, zero, zero},
    {"Atanh", 33, 9, zero, zero},
    {"Clip", 34, 6, zero, zero},
    {"Mish", 35, 18, zero, zero},
    {"ThresholdedRelu", 36, 10, [](const Node& n) { return n.attrFloat("alpha", 1.0f); }, zero},
    {"Celu", 37, 12, [](const Node& n) { return n.attrFloat("alpha", 1.0f); }, zero},
    {"Shrink", 38, 9, [](const Node& n) { return n.attrFloat("lambd", 0.5f); },
     [](const Node& n) { return n.attrFloat("bias", 0.0f); }},
};

const UnaryOp* findOp(const std::string& opType) {
  for (const UnaryOp& op : kUnaryOps)
    if (opType == op.opType) return &op;
  return nullptr;
}

Expected<void> runUnary(VulkanRun& run) {
  const UnaryOp* op = findOp(run.node().opType());
  const TensorValue& x = run.input(0);
  float alpha = op->alpha(run.node()), beta = op->beta(run.node());
  if (op->code == 34) {  // Clip: attributes before opset 11, optional inputs after
    alpha = -std::numeric_limits<float>::infinity();
    beta = std::numeric_limits<float>::infinity();
    if (run.kernel().opset() < 11) {
      alpha = run.node().attrFloat("min", alpha);
      beta = run.node().attrFloat("max", beta);
    } else {
      if (run.kernel().hasInput(1)) alpha = float(run.kernel().input(1).doubleAt(0));
      if (run.kernel().hasInput(2)) beta = float(run.kernel().input(2).doubleAt(0));
    }
  }
  auto y = run.output(0, x.dtype(), x.dims());
  if (!y) return y.error();
  Push push;
  push.add(x.count()).addFloat(alpha).addFloat(beta);
  return run.dispatch("unary_vulkan", {op->code}, {&x, &*y}, push, x.count(), run.float16());
}

}  // namespace

// Scales a tensor in place (Mean divides the sum by the input count).
Expected<void> scaleInPlace(VulkanRun& run, const TensorValue& t, float factor) {
  Push push;
  push.add(t.count()).addFloat(factor).addFloat(0);
  return run.dispatch("unary_vulkan", {39}, {&t, &t}, push, t.count(), t.dtype() == DataType::Float16);
}

void registerUnaryVulkanKernels(VulkanKernelRegistry& registry) {
  for (const UnaryOp& op : kUnaryOps) {
    VulkanKernelDef def{op.opType, op.since};
    def.function = runUnary;
    if (op.code == 34) def.hostInputs = {1, 2};
    registry.add(std::move(def));
  }
}

}  // namespace onyx::exec::vulkan
