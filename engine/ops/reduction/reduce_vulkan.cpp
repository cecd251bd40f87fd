// Vulkan kernels for ReduceSum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum and LogSumExp
// (reduce.glsl: a thread per output, or a workgroup per output for long reductions, with subgroup arithmetic
// where the device has it). Axes come from the attribute or, from the opset that made them an input, the host.
#include <algorithm>

#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

struct ReduceOp {
  const char* opType;
  int code;
  int axesInputSince;
};

const ReduceOp kReduceOps[] = {
    {"ReduceSum", 0, 13},  {"ReduceMean", 1, 18}, {"ReduceMax", 2, 18},   {"ReduceMin", 3, 18},
    {"ReduceProd", 4, 18}, {"ReduceL1", 5, 18},   {"ReduceL2", 6, 18},    {"ReduceSumSquare", 7, 18},
    {"ReduceLogSum", 8, 18}, {"ReduceLogSumExp", 9, 18},
};

const ReduceOp* findOp(const std::string& opType) {
  for (const ReduceOp& op : kReduceOps)
    if (opType == op.opType) return &op;
  return nullptr;
}

Expected<void> runReduce(VulkanRun& run) {
  const ReduceOp* op = findOp(run.node().opType());
  const TensorValue& x = run.input(0);
  int64_t rank = x.rank();
  bool fromInput = run.kernel().opset() >= op->axesInputSince;
  std::vector<int64_t> axes = fromInput ? run.kernel().intsInput(1).value_or(std::vector<int64_t>{})
                                        : run.node().attrInts("axes").value_or(std::vector<int64_t>{});
  bool keepDims = run.node().attrInt("keepdims", 1) != 0;
  bool noop = fromInput && run.node().attrInt("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(size_t(rank), axes.empty() && !noop);
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis) return run.error("axis " + std::to_string(a) + " is out of range for " + x.describe());
    reduced[size_t(*axis)] = true;
  }
  Dims strides = contiguousStrides(x.dims()), outDims, keptDims, keptStrides, redDims, redStrides;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[size_t(d)]) {
      redDims.push_back(x.dim(d));
      redStrides.push_back(strides[size_t(d)]);
      if (keepDims) outDims.push_back(1);
    } else {
      keptDims.push_back(x.dim(d));
      keptStrides.push_back(strides[size_t(d)]);
      outDims.push_back(x.dim(d));
    }
  }
  int64_t redCount = elementCount(redDims);
  collapseDims(keptDims, {&keptStrides});
  collapseDims(redDims, {&redStrides});
  if (keptDims.size() > size_t(kMaxRank) || redDims.size() > size_t(kMaxRank))
    return run.fallback("more than 6 kept or reduced dims after merging");
  auto y = run.output(0, x.dtype(), outDims);
  if (!y) return y.error();
  Push push;
  push.add(y->count()).add(int64_t(keptDims.size())).add(int64_t(redDims.size())).add(redCount);
  for (size_t d = 0; d < keptDims.size(); ++d) push.at(4 + int(d), keptDims[d]).at(10 + int(d), keptStrides[d]);
  for (size_t d = 0; d < redDims.size(); ++d) push.at(16 + int(d), redDims[d]).at(22 + int(d), redStrides[d]);
  bool float16 = x.dtype() == DataType::Float16;
  const char* shader = run.context().subgroupArithmetic() ? "reduce_subgroup_vulkan" : "reduce_vulkan";
  // A long reduction, read contiguously or with few outputs to spread threads over: a workgroup per output.
  bool perGroup = redCount >= 256 && ((!redStrides.empty() && redStrides.back() == 1) || y->count() < 2048);
  if (!perGroup) return run.dispatch(shader, {op->code, 256, false}, {&x, &*y}, push, y->count(), float16);
  int32_t groupSize = 32;
  while (groupSize < 256 && groupSize * 4 < redCount) groupSize *= 2;
  int64_t limit = run.context().maxGroupsPerDim();
  int64_t gx = std::min(y->count(), limit), gy = (y->count() + gx - 1) / gx;
  if (gy > limit) return run.fallback("too many outputs for one dispatch");
  return run.dispatchGroups(shader, {op->code, groupSize, true}, {&x, &*y}, push, uint32_t(gx), uint32_t(gy), 1,
                            float16);
}

}  // namespace

void registerReduceVulkanKernels(VulkanKernelRegistry& registry) {
  for (const ReduceOp& op : kReduceOps) {
    VulkanKernelDef def{op.opType, 1};
    def.function = runReduce;
    def.hostInputs = {1};
    registry.add(std::move(def));
  }
}

}  // namespace onyx::exec::vulkan
