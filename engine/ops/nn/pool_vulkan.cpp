// Vulkan kernels for MaxPool, AveragePool (1-D and 2-D windows, pads, strides, dilations, ceil_mode,
// count_include_pad): pool_vulkan.comp; GlobalMaxPool/GlobalAveragePool (any spatial rank): global_pool.glsl.
#include <algorithm>

#include "exec/cpu/window_geometry.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

// Global pooling: LANES threads per plane (global_pool.glsl), about four elements each up to a whole group of
// 256 for planes of a thousand or more, so small and large planes alike keep every thread busy.
Expected<void> globalPool(VulkanRun& run, bool isMax) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 3) return run.fallback("needs a spatial dim");
  Dims outDims(size_t(x.rank()), 1);
  outDims[0] = x.dim(0);
  outDims[1] = x.dim(1);
  auto y = run.output(0, x.dtype(), outDims);
  if (!y) return y.error();
  int64_t planes = y->count(), len = x.count() / std::max<int64_t>(planes, 1);
  if (planes == 0) return {};
  int32_t lanes = 1;
  while (lanes < 256 && lanes * 4 < len) lanes *= 2;
  int64_t groups = (planes + 256 / lanes - 1) / (256 / lanes), limit = run.context().maxGroupsPerDim();
  int64_t gx = std::min(groups, limit), gy = (groups + gx - 1) / gx;
  if (gy > limit) return run.fallback("too many planes for one dispatch");
  bool float16 = x.dtype() == DataType::Float16, vec4 = !float16 && len % 4 == 0;
  Push push;
  push.add(planes).add(len);
  std::vector<const TensorValue*> tensors = {&x, &*y};
  if (!float16) tensors.push_back(&x);  // the vec4 view
  const char* shader = run.context().subgroupShuffle() ? "global_pool_subgroup_vulkan" : "global_pool_vulkan";
  return run.dispatchGroups(shader, {isMax ? 1 : 0, lanes, vec4}, std::move(tensors), push,
                            uint32_t(gx), uint32_t(gy), 1, float16);
}

Expected<void> pool(VulkanRun& run, bool isMax) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 3 || x.rank() > 4) return run.fallback("not a 1-D or 2-D pooling");
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  auto kernelShape = run.node().attrInts("kernel_shape");
  if (!kernelShape) return run.error("has no kernel_shape");
  auto geometry = windowGeometry(run.kernel(), spatial, *kernelShape, run.node().attrInt("ceil_mode", 0) != 0);
  if (!geometry) return geometry.error();
  const WindowGeometry& g = *geometry;
  Dims outDims = {x.dim(0), x.dim(1)};
  outDims.insert(outDims.end(), g.outSize.begin(), g.outSize.end());
  auto y = run.output(0, x.dtype(), outDims);
  if (!y) return y.error();
  bool two = spatial.size() == 2;
  size_t o = two ? 1 : 0;
  Push push;
  push.at(0, y->count()).at(2, two ? spatial[0] : 1).at(3, spatial[o]).at(5, two ? g.outSize[0] : 1).at(6, g.outSize[o]);
  push.at(7, two ? g.kernel[0] : 1).at(8, g.kernel[o]).at(9, two ? g.strides[0] : 1).at(10, g.strides[o]);
  push.at(11, two ? g.padsBegin[0] : 0).at(12, g.padsBegin[o]).at(13, two ? g.dilations[0] : 1).at(14, g.dilations[o]);
  push.at(15, run.node().attrInt("count_include_pad", 0)).at(16, two ? g.padsEnd[0] : 0).at(17, g.padsEnd[o]);
  return run.dispatch("pool_vulkan", {isMax ? 1 : 0}, {&x, &*y}, push, y->count(), x.dtype() == DataType::Float16);
}

bool noIndices(const Node& node, int) {
  return node.outputCount() < 2 || !node.output(1) || node.output(1)->name().empty();
}

}  // namespace

void registerPoolVulkanKernels(VulkanKernelRegistry& registry) {
  VulkanKernelDef maxPool{"MaxPool", 1};
  maxPool.function = [](VulkanRun& run) { return pool(run, true); };
  maxPool.supports = noIndices;
  registry.add(std::move(maxPool));
  VulkanKernelDef averagePool{"AveragePool", 1};
  averagePool.function = [](VulkanRun& run) { return pool(run, false); };
  registry.add(std::move(averagePool));
  VulkanKernelDef globalMax{"GlobalMaxPool", 1};
  globalMax.function = [](VulkanRun& run) { return globalPool(run, true); };
  registry.add(std::move(globalMax));
  VulkanKernelDef globalAverage{"GlobalAveragePool", 1};
  globalAverage.function = [](VulkanRun& run) { return globalPool(run, false); };
  registry.add(std::move(globalAverage));
}

}  // namespace onyx::exec::vulkan
