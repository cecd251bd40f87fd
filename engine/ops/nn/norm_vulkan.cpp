// Vulkan kernels for BatchNormalization (inference), LayerNormalization, InstanceNormalization, Softmax and
// LogSoftmax, the op chosen by a specialization constant: rows normalized by one workgroup each with
// workgroup reductions (norm_rows_vulkan.comp, or norm_rows_subgroup_vulkan.comp where the device has
// subgroup arithmetic), and BatchNorm and a Softmax along a strided axis by one thread per element or row
// (norm_vulkan.comp).
#include <algorithm>

#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

bool half(const TensorValue& t) { return t.dtype() == DataType::Float16; }

Expected<void> normDispatch(VulkanRun& run, int mode, const Push& push, int64_t threads,
                            std::vector<const TensorValue*> tensors) {
  bool float16 = half(*tensors[0]);
  return run.dispatch("norm_vulkan", {mode}, std::move(tensors), push, threads, float16);
}

// One workgroup per row, over a 2-D grid of groups; smaller groups for short rows (four elements a thread).
Expected<void> rowsDispatch(VulkanRun& run, int mode, const Push& push, int64_t rows, int64_t len,
                            std::vector<const TensorValue*> tensors) {
  if (rows <= 0) return {};
  int32_t groupSize = 32;
  while (groupSize < 256 && groupSize * 4 < len) groupSize *= 2;
  int64_t limit = run.context().maxGroupsPerDim();
  int64_t x = std::min(rows, limit), y = (rows + x - 1) / x;
  if (y > limit) return run.fallback("too many rows for one dispatch");
  const char* shader = run.context().subgroupArithmetic() ? "norm_rows_subgroup_vulkan" : "norm_rows_vulkan";
  bool float16 = half(*tensors[0]);
  return run.dispatchGroups(shader, {mode, groupSize}, std::move(tensors), push, uint32_t(x), uint32_t(y), 1, float16);
}

Expected<void> runBatchNorm(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 2) return run.error("needs rank >= 2");
  int64_t c = x.dim(1), inner = x.count() / std::max<int64_t>(x.dim(0) * c, 1);
  for (size_t i = 1; i <= 4; ++i)
    if (run.input(i).count() != c) return run.error("statistics do not have " + std::to_string(c) + " channels");
  auto y = run.output(0, x.dtype(), x.dims());
  if (!y) return y.error();
  Push push;
  push.add(x.count()).add(0).addFloat(run.node().attrFloat("epsilon", 1e-5f)).add(c).add(std::max<int64_t>(inner, 1));
  return normDispatch(run, 0, push, x.count(),
                      {&x, &run.input(1), &run.input(2), &run.input(3), &run.input(4), &*y});
}

Expected<void> runLayerNorm(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  auto axis = normalizeAxis(run.node().attrInt("axis", -1), x.rank());
  if (!axis) return run.error("axis is out of range for " + x.describe());
  int64_t rows = 1, len = 1;
  for (int64_t d = 0; d < x.rank(); ++d) (d < *axis ? rows : len) *= x.dim(d);
  const TensorValue& scale = run.input(1);
  const TensorValue* bias = run.hasInput(2) ? &run.input(2) : nullptr;
  auto stride = [&](const TensorValue& t) -> int64_t { return t.count() == len ? 1 : t.count() == 1 ? 0 : -1; };
  if (stride(scale) < 0 || (bias && stride(*bias) < 0)) return run.fallback("scale or bias broadcasts partially");
  auto y = run.output(0, x.dtype(), x.dims());
  if (!y) return y.error();
  Push push;
  push.add(rows).add(len).addFloat(run.node().attrFloat("epsilon", 1e-5f)).add(1).add(1).add(bias ? 1 : 0);
  push.add(stride(scale)).add(bias ? stride(*bias) : 0);
  return rowsDispatch(run, 1, push, rows, len, {&x, &scale, bias ? bias : &x, &*y});
}

Expected<void> runInstanceNorm(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 3) return run.error("needs rank >= 3");
  int64_t c = x.dim(1), rows = x.dim(0) * c, len = x.count() / std::max<int64_t>(rows, 1);
  if (run.input(1).count() != c || run.input(2).count() != c) return run.error("scale and B need one value per channel");
  auto y = run.output(0, x.dtype(), x.dims());
  if (!y) return y.error();
  Push push;
  push.add(rows).add(len).addFloat(run.node().attrFloat("epsilon", 1e-5f)).add(c);
  return rowsDispatch(run, 2, push, rows, len, {&x, &run.input(1), &run.input(2), &*y});
}

Expected<void> runSoftmax(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  bool legacy = run.kernel().opset() < 13;  // before 13: flattened to 2-D at the axis
  auto axis = normalizeAxis(run.node().attrInt("axis", legacy ? 1 : -1), std::max<int64_t>(x.rank(), 1));
  if (!axis) return run.error("axis is out of range for " + x.describe());
  // Before opset 13 the tensor is flattened to 2-D at the axis: the softmax runs over everything after it.
  const AxisSplit split = axisSplit(x.dims(), *axis);
  const int64_t outer = split.outer;
  const int64_t len = legacy ? split.len * split.inner : split.len;
  const int64_t inner = legacy ? 1 : split.inner;
  auto y = run.output(0, x.dtype(), x.dims());
  if (!y) return y.error();
  if (len == 0) return {};
  int mode = run.node().opType() == "Softmax" ? 3 : 4;
  Push push;
  push.add(outer * inner).add(len).addFloat(0).add(1).add(inner);
  if (inner == 1) return rowsDispatch(run, mode, push, outer, len, {&x, &x, &x, &*y});
  return normDispatch(run, mode, push, outer * inner, {&x, &x, &x, &x, &x, &*y});
}

bool inferenceOnly(const Node& node, int) {
  // Training-mode statistics outputs (BatchNorm) and LayerNorm's Mean/InvStdDev stay on the CPU.
  for (size_t i = 1; i < node.outputCount(); ++i)
    if (node.output(i) && !node.output(i)->name().empty()) return false;
  return node.attrInt("training_mode", 0) == 0;
}

}  // namespace

void registerNormVulkanKernels(VulkanKernelRegistry& registry) {
  auto add = [&](const char* op, int since, VulkanKernelFunction f) {
    VulkanKernelDef def{op, since};
    def.function = f;
    def.supports = inferenceOnly;
    registry.add(std::move(def));
  };
  add("BatchNormalization", 9, runBatchNorm);
  add("LayerNormalization", 17, runLayerNorm);
  add("InstanceNormalization", 6, runInstanceNorm);
  add("Softmax", 1, runSoftmax);
  add("LogSoftmax", 1, runSoftmax);
}

}  // namespace onyx::exec::vulkan
