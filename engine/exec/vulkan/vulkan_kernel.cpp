#include "exec/vulkan/vulkan_kernel.h"

#include <bit>

namespace onyx::exec::vulkan {

Push& Push::addFloat(float v) {
  p[size_t(n++)] = std::bit_cast<int32_t>(v);
  return *this;
}

Expected<TensorValue> VulkanRun::output(size_t i, DataType dtype, Dims dims) {
  auto t = allocate(dtype, std::move(dims));
  if (!t) return t;
  kernel_.setOutput(i, *t);
  return t;
}

Expected<TensorValue> VulkanRun::scratch(DataType dtype, Dims dims) {
  return allocate(dtype, std::move(dims));
}

Error VulkanRun::fallback(std::string reason) {
  fellBack_ = true;
  fallbackReason_ = reason;
  return kernel_.error("falls back to the CPU: " + reason);
}

const VulkanKernelDef* VulkanKernelRegistry::find(const Node& node, int opset) const {
  const std::string& domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
  for (const VulkanKernelDef& def : defs_) {
    if (def.domain != domain) continue;
    if (!def.opType.empty() && def.opType != node.opType()) continue;
    if (opset < def.sinceVersion || opset > def.untilVersion) continue;
    if (def.supports && !def.supports(node, opset)) continue;
    return &def;
  }
  return nullptr;
}

const VulkanKernelRegistry& vulkanKernels() {
  static const VulkanKernelRegistry registry = [] {
    VulkanKernelRegistry r;
    registerVulkanKernels(r);
    return r;
  }();
  return registry;
}

Dims contiguousStrides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

Dims broadcastStridesTo(const Dims& dims, const Dims& outDims) {
  Dims own = contiguousStrides(dims);
  Dims strides(outDims.size(), 0);
  size_t offset = outDims.size() - dims.size();
  for (size_t d = 0; d < dims.size(); ++d) strides[offset + d] = dims[d] == 1 ? 0 : own[d];
  return strides;
}

void collapseDims(Dims& dims, std::vector<Dims*> strides) {
  // Drop size-1 dims, then merge d into d+1 when every stride list is contiguous across them.
  Dims outDims;
  std::vector<Dims> out(strides.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    outDims.push_back(dims[d]);
    for (size_t s = 0; s < strides.size(); ++s) out[s].push_back((*strides[s])[d]);
  }
  for (size_t d = outDims.size(); d-- > 1;) {
    bool merge = true;
    for (size_t s = 0; s < strides.size(); ++s) merge = merge && out[s][d - 1] == out[s][d] * outDims[d];
    if (!merge) continue;
    outDims[d - 1] *= outDims[d];
    outDims.erase(outDims.begin() + long(d));
    for (size_t s = 0; s < strides.size(); ++s) {
      out[s][d - 1] = out[s][d];
      out[s].erase(out[s].begin() + long(d));
    }
  }
  dims = outDims;
  for (size_t s = 0; s < strides.size(); ++s) *strides[s] = out[s];
}

}  // namespace onyx::exec::vulkan
