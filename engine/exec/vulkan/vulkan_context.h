#pragma once
// One Vulkan device opened for compute: instance and device selection, the buffer pool and the pipeline
// cache. Opened once per process and device choice and shared by every executor (pipelines compile once).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "util/expected.h"

namespace onyx::exec::vulkan {

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;  // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string type;  // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string apiVersion;
};

// Lists the devices the loader finds; an error (never a crash) when there is no loader, no driver or none.
Expected<std::vector<DeviceInfo>> listDevices();

class Context;

// What a buffer is for, which decides its memory type (Context::memoryType).
enum class BufferUse {
  Device,    // tensors: DEVICE_LOCAL, preferably not host-visible (a discrete GPU's own memory)
  Upload,    // staging the host writes: HOST_VISIBLE|HOST_COHERENT
  Readback,  // staging the host reads: HOST_VISIBLE|HOST_CACHED (HOST_COHERENT only when none is cached)
};

// A device buffer from the pool: returned to it when the last reference goes.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;   // capacity (the pool rounds requests up)
  void* mapped = nullptr;  // host pointer when the memory is host-visible
  BufferUse use = BufferUse::Device;
  bool hostCached = false;    // the CPU reads `mapped` through its caches
  bool hostCoherent = false;  // else a read needs vkInvalidateMappedMemoryRanges
  uint64_t serial = 0;        // creation order
};
using BufferRef = std::shared_ptr<Buffer>;

struct Pipeline {
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t bindings = 0;
  uint32_t pushBytes = 0;
};

class Context : public std::enable_shared_from_this<Context> {
 public:
  // `selector`: "" picks the best device (discrete GPU, integrated, virtual, then CPU); a number picks by
  // index; anything else picks the first device whose name contains it (case-insensitive). Falls back to
  // the ONYX_VULKAN_DEVICE environment variable when empty.
  static Expected<std::shared_ptr<Context>> open(std::string selector = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& info() const { return info_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queueFamily() const { return queueFamily_; }
  bool float16() const { return float16_; }  // 16-bit storage buffers
  bool timestamps() const { return timestampPeriod_ > 0; }
  double timestampPeriodNs() const { return timestampPeriod_; }
  uint64_t timestampMask() const { return timestampMask_; }
  uint64_t maxStorageRange() const { return maxStorageRange_; }
  uint32_t maxGroupsPerDim() const { return maxGroups_; }
  uint32_t subgroupSize() const { return subgroupSize_; }
  // Subgroup add/min/max/mul in compute shaders (GL_KHR_shader_subgroup_arithmetic).
  bool subgroupArithmetic() const { return subgroupArithmetic_; }
  // subgroupShuffleXor in compute shaders (GL_KHR_shader_subgroup_shuffle), with a power-of-two subgroup size
  // that divides 256: butterfly reductions across the lanes of a subgroup.
  bool subgroupShuffle() const { return subgroupShuffle_; }
  std::mutex& queueMutex() { return queueMutex_; }

  // A pooled buffer for `use`. Device buffers are host-visible only where all memory is (lavapipe, UMA
  // GPUs). Out of memory is an error, never a crash.
  Expected<BufferRef> allocate(VkDeviceSize bytes, BufferUse use = BufferUse::Device);
  // Makes the device's writes to a mapped buffer visible to the host (non-coherent memory).
  void invalidate(const Buffer& buffer) const;
  // Compiled once per shader, precision and specialization.
  Expected<const Pipeline*> pipeline(const std::string& shader, bool float16, std::span<const int32_t> spec,
                                     uint32_t bindings, uint32_t pushBytes);

 private:
  Context() = default;
  Expected<void> init(std::string_view selector);
  Expected<uint32_t> memoryType(uint32_t typeBits, BufferUse use) const;
  void release(Buffer* buffer);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  DeviceInfo info_;
  VkPhysicalDeviceMemoryProperties memory_{};
  bool float16_ = false;
  double timestampPeriod_ = 0;
  uint64_t timestampMask_ = ~0ull;
  uint64_t maxStorageRange_ = 0;
  uint32_t maxGroups_ = 65535;
  uint32_t subgroupSize_ = 1;
  bool subgroupArithmetic_ = false;
  bool subgroupShuffle_ = false;
  std::mutex queueMutex_;

  std::mutex poolMutex_;
  // Idle buffers by (capacity, use, serial). The pool hands out the oldest fitting one, so a run that
  // allocates and releases as the last did gets the same buffers (Stream then replays its commands).
  std::map<std::tuple<VkDeviceSize, BufferUse, uint64_t>, Buffer*> free_;
  uint64_t created_ = 0;
  std::mutex pipelineMutex_;
  std::map<std::tuple<std::string, bool, std::vector<int32_t>>, std::unique_ptr<Pipeline>> pipelines_;
};

std::string resultName(VkResult result);

}  // namespace onyx::exec::vulkan
