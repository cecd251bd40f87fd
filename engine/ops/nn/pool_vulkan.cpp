// Vulkan kernels for MaxPool, AveragePool (1-D and 2-D windows, pads, strides, dilations, ceil_mode,
// count_include_pad) and GlobalMaxPool/GlobalAveragePool (one window over each plane): pool_vulkan.comp.
#include "exec/cpu/window_geometry.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

Expected<void> pool(VulkanRun& run, bool isMax, bool global) {
  const TensorValue& x = run.input(0);
  if (x.rank() < 3 || x.rank() > 4) return run.fallback("not a 1-D or 2-D pooling");
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  WindowGeometry g;
  if (global) {
    g.kernel = spatial;
    g.strides = g.dilations = std::vector<int64_t>(spatial.size(), 1);
    g.padsBegin = g.padsEnd = std::vector<int64_t>(spatial.size(), 0);
    g.outSize = std::vector<int64_t>(spatial.size(), 1);
  } else {
    auto kernelShape = run.node().attrInts("kernel_shape");
    if (!kernelShape) return run.error("has no kernel_shape");
    auto geometry = windowGeometry(run.kernel(), spatial, *kernelShape, run.node().attrInt("ceil_mode", 0) != 0);
    if (!geometry) return geometry.error();
    g = *geometry;
  }
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
  maxPool.function = [](VulkanRun& run) { return pool(run, true, false); };
  maxPool.supports = noIndices;
  registry.add(std::move(maxPool));
  VulkanKernelDef averagePool{"AveragePool", 1};
  averagePool.function = [](VulkanRun& run) { return pool(run, false, false); };
  registry.add(std::move(averagePool));
  VulkanKernelDef globalMax{"GlobalMaxPool", 1};
  globalMax.function = [](VulkanRun& run) { return pool(run, true, true); };
  registry.add(std::move(globalMax));
  VulkanKernelDef globalAverage{"GlobalAveragePool", 1};
  globalAverage.function = [](VulkanRun& run) { return pool(run, false, true); };
  registry.add(std::move(globalAverage));
}

}  // namespace onyx::exec::vulkan
