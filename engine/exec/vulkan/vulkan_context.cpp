#include "exec/vulkan/vulkan_context.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>

#include "exec/vulkan/shader_table.h"

namespace onyx::exec::vulkan {

std::string resultName(VkResult result) {
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "out of host memory";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "out of device memory";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "initialization failed (no usable Vulkan driver: check VK_DRIVER_FILES / VK_ICD_FILENAMES)";
    case VK_ERROR_DEVICE_LOST:
      return "device lost";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "incompatible driver";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "extension not present";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "feature not present";
    case VK_TIMEOUT:
      return "timeout";
    default:
      return "VkResult " + std::to_string(int(result));
  }
}

namespace {

Error vkError(const std::string& what, VkResult result) {
  return makeError("Vulkan: " + what + " failed: " + resultName(result), "vulkan");
}

std::string typeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

int preference(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

Expected<VkInstance> createInstance() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "onyx";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = vkCreateInstance(&info, nullptr, &instance);
  if (r != VK_SUCCESS) return vkError("creating the instance", r);
  return instance;
}

Expected<std::vector<VkPhysicalDevice>> physicalDevices(VkInstance instance) {
  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (r != VK_SUCCESS) return vkError("listing devices", r);
  std::vector<VkPhysicalDevice> devices(count);
  r = vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vkError("listing devices", r);
  devices.resize(count);
  if (devices.empty()) return makeError("Vulkan: the loader found no device", "vulkan");
  return devices;
}

DeviceInfo describe(VkPhysicalDevice device, uint32_t index) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(device, &p);
  DeviceInfo info;
  info.index = index;
  info.name = p.deviceName;
  info.type = typeName(p.deviceType);
  info.apiVersion = std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                    std::to_string(VK_API_VERSION_MINOR(p.apiVersion)) + "." +
                    std::to_string(VK_API_VERSION_PATCH(p.apiVersion));
  return info;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

}  // namespace

Expected<std::vector<DeviceInfo>> listDevices() {
  auto instance = createInstance();
  if (!instance) return instance.error();
  auto devices = physicalDevices(*instance);
  std::vector<DeviceInfo> out;
  if (devices)
    for (uint32_t i = 0; i < devices->size(); ++i) out.push_back(describe((*devices)[i], i));
  vkDestroyInstance(*instance, nullptr);
  if (!devices) return devices.error();
  return out;
}

Expected<std::shared_ptr<Context>> Context::open(std::string selector) {
  if (selector.empty())
    if (const char* env = std::getenv("ONYX_VULKAN_DEVICE")) selector = env;
  // Never destroyed: contexts live for the process (buffers and pipelines outlive executors), and tearing
  // a driver down from static destructors is fragile.
  static auto* opened = new std::map<std::string, std::shared_ptr<Context>>();
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (auto it = opened->find(selector); it != opened->end()) return it->second;
  std::shared_ptr<Context> context(new Context());
  auto ready = context->init(selector);
  if (!ready) return ready.error();
  (*opened)[selector] = context;
  return context;
}

Expected<void> Context::init(std::string_view selector) {
  auto instance = createInstance();
  if (!instance) return instance.error();
  instance_ = *instance;
  auto devices = physicalDevices(instance_);
  if (!devices) return devices.error();

  std::vector<uint32_t> order(devices->size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto typeOf = [&](uint32_t i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties((*devices)[i], &p);
    return p.deviceType;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return preference(typeOf(a)) < preference(typeOf(b)); });
  if (!selector.empty()) {
    std::string wanted(selector);
    std::vector<uint32_t> chosen;
    bool numeric = std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c); });
    for (uint32_t i = 0; i < devices->size(); ++i) {
      if (numeric ? std::to_string(i) == wanted
                  : lower(describe((*devices)[i], i).name).find(lower(wanted)) != std::string::npos)
        chosen.push_back(i);
    }
    if (chosen.empty()) {
      std::string names;
      for (uint32_t i = 0; i < devices->size(); ++i)
        names += (names.empty() ? "" : ", ") + std::to_string(i) + ": " + describe((*devices)[i], i).name;
      return makeError("no Vulkan device matches '" + wanted + "' (devices: " + names +
                           "); give an index or part of a name",
                       "--device");
    }
    order = chosen;
  }

  // The first device in preference order with a compute queue.
  for (uint32_t index : order) {
    VkPhysicalDevice candidate = (*devices)[index];
    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &familyCount, families.data());
    for (uint32_t f = 0; f < familyCount; ++f) {
      if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        physical_ = candidate;
        queueFamily_ = f;
        timestampMask_ = families[f].timestampValidBits >= 64 ? ~0ull
                                                               : (1ull << families[f].timestampValidBits) - 1;
        if (families[f].timestampValidBits == 0) timestampMask_ = 0;
        info_ = describe(candidate, index);
        break;
      }
    }
    if (physical_) break;
  }
  if (!physical_) return makeError("Vulkan: no device has a compute queue", "vulkan");

  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  if (timestampMask_ && props.limits.timestampComputeAndGraphics) timestampPeriod_ = props.limits.timestampPeriod;
  maxStorageRange_ = props.limits.maxStorageBufferRange;
  maxGroups_ = std::min({props.limits.maxComputeWorkGroupCount[0], props.limits.maxComputeWorkGroupCount[1],
                         props.limits.maxComputeWorkGroupCount[2]});
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical_, &props2);
  subgroupSize_ = subgroup.subgroupSize;
  subgroupArithmetic_ = props.apiVersion >= VK_API_VERSION_1_1 && (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                        (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                        (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  subgroupShuffle_ = props.apiVersion >= VK_API_VERSION_1_1 && (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                     (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) && subgroupSize_ > 0 &&
                     subgroupSize_ <= 256 && std::has_single_bit(subgroupSize_);

  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &storage16;
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  float16_ = storage16.storageBuffer16BitAccess;
  VkPhysicalDevice16BitStorageFeatures enable16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  enable16.storageBuffer16BitAccess = float16_;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &enable16;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  VkResult r = vkCreateDevice(physical_, &deviceInfo, nullptr, &device_);
  if (r != VK_SUCCESS) return vkError("creating the device on " + info_.name, r);
  vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
  return {};
}

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    for (auto& [key, buffer] : free_) {
      vkDestroyBuffer(device_, buffer->buffer, nullptr);
      vkFreeMemory(device_, buffer->memory, nullptr);
      delete buffer;
    }
    for (auto& [key, p] : pipelines_) {
      vkDestroyPipeline(device_, p->pipeline, nullptr);
      vkDestroyPipelineLayout(device_, p->layout, nullptr);
      vkDestroyDescriptorSetLayout(device_, p->setLayout, nullptr);
    }
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

Expected<uint32_t> Context::memoryType(uint32_t typeBits, BufferUse use) const {
  // The first allowed type that has every `wanted` flag and none of `unwanted`.
  auto find = [&](VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags unwanted = 0) -> int {
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
      if ((typeBits & (1u << i)) && (flags & wanted) == wanted && !(flags & unwanted)) return int(i);
    }
    return -1;
  };
  const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  int type = -1;
  switch (use) {
    case BufferUse::Device:
      // A discrete GPU's own memory, not its host-visible BAR window (which the CPU reads uncached).
      type = find(local, visible);
      if (type < 0) type = find(local);
      break;
    case BufferUse::Upload:
      // Host memory the GPU reads over the bus; the CPU only writes it (write-combined is fine).
      type = find(visible | coherent, local);
      if (type < 0) type = find(visible | coherent);
      break;
    case BufferUse::Readback:
      type = find(visible | cached | coherent);
      if (type < 0) type = find(visible | cached);
      if (type < 0) type = find(visible | coherent);
      break;
  }
  if (type < 0) type = find(use == BufferUse::Device ? 0 : visible);
  if (type < 0) return makeError("Vulkan: no memory type for buffers", info_.name);
  return uint32_t(type);
}

void Context::invalidate(const Buffer& buffer) const {
  if (buffer.hostCoherent || !buffer.mapped) return;
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = buffer.memory;
  range.size = VK_WHOLE_SIZE;
  vkInvalidateMappedMemoryRanges(device_, 1, &range);
}

Expected<BufferRef> Context::allocate(VkDeviceSize bytes, BufferUse use) {
  VkDeviceSize capacity = 256;
  while (capacity < bytes) capacity *= 2;
  auto self = shared_from_this();
  auto wrap = [self](Buffer* b) { return BufferRef(b, [self](Buffer* p) { self->release(p); }); };
  {
    std::lock_guard lock(poolMutex_);
    auto it = free_.lower_bound({capacity, use, 0});
    if (it != free_.end() && std::get<0>(it->first) == capacity && std::get<1>(it->first) == use) {
      Buffer* b = it->second;
      free_.erase(it);
      return wrap(b);
    }
  }
  auto buffer = std::make_unique<Buffer>();
  buffer->size = capacity;
  buffer->use = use;
  {
    std::lock_guard lock(poolMutex_);
    buffer->serial = created_++;
  }
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = capacity;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(device_, &info, nullptr, &buffer->buffer);
  if (r != VK_SUCCESS) return vkError("creating a buffer of " + std::to_string(capacity) + " bytes", r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, buffer->buffer, &req);
  auto type = memoryType(req.memoryTypeBits, use);
  if (!type) {
    vkDestroyBuffer(device_, buffer->buffer, nullptr);
    return type.error();
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  r = vkAllocateMemory(device_, &alloc, nullptr, &buffer->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, buffer->buffer, buffer->memory, 0);
  const VkMemoryPropertyFlags flags = memory_.memoryTypes[*type].propertyFlags;
  buffer->hostCached = flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  buffer->hostCoherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (r == VK_SUCCESS && (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
    r = vkMapMemory(device_, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device_, buffer->buffer, nullptr);
    if (buffer->memory) vkFreeMemory(device_, buffer->memory, nullptr);
    return vkError("allocating " + std::to_string(capacity) + " bytes of device memory", r);
  }
  return wrap(buffer.release());
}

void Context::release(Buffer* buffer) {
  std::lock_guard lock(poolMutex_);
  free_.insert({{buffer->size, buffer->use, buffer->serial}, buffer});
}

Expected<const Pipeline*> Context::pipeline(const std::string& shader, bool float16,
                                            std::span<const int32_t> spec, uint32_t bindings,
                                            uint32_t pushBytes) {
  std::lock_guard lock(pipelineMutex_);
  auto key = std::make_tuple(shader, float16, std::vector<int32_t>(spec.begin(), spec.end()));
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second.get();
  std::span<const uint32_t> code = shaderCode(shader, float16);
  if (code.empty()) return makeError("no embedded shader named '" + shader + "'", "vulkan");
  auto p = std::make_unique<Pipeline>();
  p->bindings = bindings;
  p->pushBytes = pushBytes;
  std::vector<VkDescriptorSetLayoutBinding> slots(bindings);
  for (uint32_t i = 0; i < bindings; ++i)
    slots[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = bindings;
  setInfo.pBindings = slots.data();
  VkResult r = vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &p->setLayout);
  if (r != VK_SUCCESS) return vkError("creating a descriptor set layout", r);
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &p->setLayout;
  layoutInfo.pushConstantRangeCount = pushBytes ? 1 : 0;
  layoutInfo.pPushConstantRanges = &range;
  r = vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &p->layout);
  if (r != VK_SUCCESS) return vkError("creating a pipeline layout", r);
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = code.size() * 4;
  moduleInfo.pCode = code.data();
  VkShaderModule module;
  r = vkCreateShaderModule(device_, &moduleInfo, nullptr, &module);
  if (r != VK_SUCCESS) return vkError("creating shader module " + shader, r);
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (uint32_t i = 0; i < spec.size(); ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo specInfo{uint32_t(spec.size()), entries.data(), spec.size() * 4, spec.data()};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = spec.empty() ? nullptr : &specInfo;
  info.layout = p->layout;
  r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &p->pipeline);
  vkDestroyShaderModule(device_, module, nullptr);
  if (r != VK_SUCCESS) return vkError("compiling shader " + shader, r);
  const Pipeline* result = p.get();
  pipelines_[key] = std::move(p);
  return result;
}

}  // namespace onyx::exec::vulkan
