// Vulkan kernels for element-wise binary ops with broadcasting (binary_vulkan.comp). Variadic Sum, Max, Min
// and Mean fold their inputs pairwise into the output.
#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {

Expected<void> scaleInPlace(VulkanRun& run, const TensorValue& t, float factor);

namespace {

struct BinaryOp {
  const char* opType;
  int code;
  int since;
  bool variadic;
};

const BinaryOp kBinaryOps[] = {
    {"Add", 0, 7, false}, {"Sub", 1, 7, false},  {"Mul", 2, 7, false}, {"Div", 3, 7, false},
    {"Pow", 4, 7, false}, {"Max", 5, 8, true},   {"Min", 6, 8, true},  {"PRelu", 7, 7, false},
    {"Mod", 8, 10, false}, {"Sum", 0, 8, true},  {"Mean", 0, 8, true},
};

const BinaryOp* findOp(const std::string& opType) {
  for (const BinaryOp& op : kBinaryOps)
    if (opType == op.opType) return &op;
  return nullptr;
}

// The shader's push constants hold 8 dims and two stride lists.
constexpr size_t kMaxBinaryRank = 8;

// y = a (op) b over y's dims; a and b broadcast to them. y may be a itself (same dims: read before write).
Expected<void> dispatchBinary(VulkanRun& run, int code, const TensorValue& a, const TensorValue& b,
                              const TensorValue& y) {
  Dims dims = y.dims();
  Dims sa = broadcastStridesTo(a.dims(), dims), sb = broadcastStridesTo(b.dims(), dims);
  collapseDims(dims, {&sa, &sb});
  if (dims.size() > kMaxBinaryRank) return run.fallback("broadcast over more than 8 dims");
  Push push;
  push.add(y.count()).add(int64_t(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    push.at(2 + int(d), dims[d]).at(10 + int(d), sa[d]).at(18 + int(d), sb[d]);
  }
  return run.dispatch("binary_vulkan", {code}, {&a, &b, &y}, push, y.count(), y.dtype() == DataType::Float16);
}

Expected<void> runBinary(VulkanRun& run) {
  const BinaryOp* op = findOp(run.node().opType());
  std::vector<const Dims*> shapes;
  std::vector<size_t> present;
  for (size_t i = 0; i < run.kernel().inputCount(); ++i) {
    if (!run.hasInput(i)) continue;
    shapes.push_back(&run.input(i).dims());
    present.push_back(i);
  }
  if (present.empty()) return run.error("needs at least one input");
  auto dims = broadcastShapes(shapes);
  if (!dims) return run.error("the inputs do not broadcast together");
  const TensorValue& first = run.input(present[0]);
  if (op->code == 7 && !op->variadic && elementCount(run.input(1).dims()) == 0 && first.count() != 0)
    return run.error("slope is empty");
  auto y = run.output(0, first.dtype(), *dims);
  if (!y) return y.error();
  if (present.size() == 1) {
    return dispatchBinary(run, 5, first, first, *y);  // Max(x, x): a copy
  }
  auto done = dispatchBinary(run, op->code, first, run.input(present[1]), *y);
  if (!done) return done;
  for (size_t k = 2; k < present.size(); ++k) {
    done = dispatchBinary(run, op->code, *y, run.input(present[k]), *y);
    if (!done) return done;
  }
  if (std::string(op->opType) == "Mean") return scaleInPlace(run, *y, 1.0f / float(present.size()));
  return {};
}

bool supportsBinary(const Node& node, int) {
  if (node.opType() == "Mod") return node.attrInt("fmod", 0) == 1;
  return true;
}

}  // namespace

void registerBinaryVulkanKernels(VulkanKernelRegistry& registry) {
  for (const BinaryOp& op : kBinaryOps) {
    VulkanKernelDef def{op.opType, op.since};
    def.function = runBinary;
    def.supports = supportsBinary;
    registry.add(std::move(def));
  }
}

}  // namespace onyx::exec::vulkan
