#include "exec/vulkan/vulkan_stream.h"

#include <cstring>

namespace onyx::exec::vulkan {

namespace {
constexpr uint32_t kSetsPerPool = 1024;
Error streamError(const std::string& what, VkResult result, const std::string& where) {
  return makeError("Vulkan: " + what + " failed: " + resultName(result), where.empty() ? "vulkan" : where);
}
}  // namespace

Stream::Stream(std::shared_ptr<Context> context) : context_(std::move(context)) {}

Stream::~Stream() {
  VkDevice device = context_->device();
  if (recording_) {
    vkEndCommandBuffer(commands_);
    recording_ = false;
  }
  for (VkDescriptorPool p : descriptorPools_) vkDestroyDescriptorPool(device, p, nullptr);
  if (queries_) vkDestroyQueryPool(device, queries_, nullptr);
  if (fence_) vkDestroyFence(device, fence_, nullptr);
  if (pool_) vkDestroyCommandPool(device, pool_, nullptr);
}

Expected<void> Stream::begin() {
  if (recording_) return {};
  VkDevice device = context_->device();
  VkResult r = VK_SUCCESS;
  if (!pool_) {
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    info.queueFamilyIndex = context_->queueFamily();
    r = vkCreateCommandPool(device, &info, nullptr, &pool_);
    if (r != VK_SUCCESS) return streamError("creating a command pool", r, "");
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    r = vkAllocateCommandBuffers(device, &alloc, &commands_);
    if (r != VK_SUCCESS) return streamError("allocating a command buffer", r, "");
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(device, &fenceInfo, nullptr, &fence_);
    if (r != VK_SUCCESS) return streamError("creating a fence", r, "");
    if (context_->timestamps()) {
      VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
      q.queryType = VK_QUERY_TYPE_TIMESTAMP;
      q.queryCount = queryCapacity_;
      if (vkCreateQueryPool(device, &q, nullptr, &queries_) != VK_SUCCESS) queries_ = VK_NULL_HANDLE;
    }
  }
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  r = vkBeginCommandBuffer(commands_, &info);
  if (r != VK_SUCCESS) return streamError("beginning a command buffer", r, "");
  if (queries_) vkCmdResetQueryPool(commands_, queries_, 0, queryCapacity_);
  queriesUsed_ = 0;
  recording_ = true;
  return {};
}

void Stream::barrier() {
  // One global barrier after every command: each dispatch sees what the ones before it wrote, and a buffer
  // the pool hands out again is not written before its earlier readers ran.
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT;
  VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(commands_, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

Expected<VkDescriptorSet> Stream::descriptorSet(const Pipeline& pipeline) {
  VkDevice device = context_->device();
  while (true) {
    if (descriptorPoolInUse_ == descriptorPools_.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 4};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool p;
      VkResult r = vkCreateDescriptorPool(device, &info, nullptr, &p);
      if (r != VK_SUCCESS) return streamError("creating a descriptor pool", r, lastLabel);
      descriptorPools_.push_back(p);
    }
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = descriptorPools_[descriptorPoolInUse_];
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &pipeline.setLayout;
    VkDescriptorSet set;
    VkResult r = vkAllocateDescriptorSets(device, &alloc, &set);
    if (r == VK_SUCCESS) return set;
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return streamError("allocating a descriptor set", r, lastLabel);
    ++descriptorPoolInUse_;
  }
}

Expected<void> Stream::dispatch(const Pipeline& pipeline, const std::vector<Binding>& bindings,
                                const void* push, uint32_t groupsX, uint32_t groupsY, uint32_t groupsZ) {
  if (groupsX == 0 || groupsY == 0 || groupsZ == 0) return {};
  auto started = begin();
  if (!started) return started;
  auto set = descriptorSet(pipeline);
  if (!set) return set.error();
  std::vector<VkDescriptorBufferInfo> infos(bindings.size());
  std::vector<VkWriteDescriptorSet> writes(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    infos[i] = {bindings[i].buffer->buffer, bindings[i].offset, bindings[i].range};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = *set;
    writes[i].dstBinding = uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
    keepAlive_.push_back(bindings[i].buffer);
  }
  vkUpdateDescriptorSets(context_->device(), uint32_t(writes.size()), writes.data(), 0, nullptr);
  vkCmdBindPipeline(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
  vkCmdBindDescriptorSets(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &*set, 0, nullptr);
  if (pipeline.pushBytes)
    vkCmdPushConstants(commands_, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pipeline.pushBytes, push);
  vkCmdDispatch(commands_, groupsX, groupsY, groupsZ);
  barrier();
  return {};
}

Expected<void> Stream::copy(const BufferRef& from, VkDeviceSize fromOffset, const BufferRef& to,
                            VkDeviceSize toOffset, VkDeviceSize bytes) {
  if (bytes == 0) return {};
  auto started = begin();
  if (!started) return started;
  VkBufferCopy region{fromOffset, toOffset, bytes};
  vkCmdCopyBuffer(commands_, from->buffer, to->buffer, 1, &region);
  keepAlive_.push_back(from);
  keepAlive_.push_back(to);
  barrier();
  return {};
}

Expected<void> Stream::upload(const void* data, VkDeviceSize bytes, const BufferRef& to) {
  if (bytes == 0) return {};
  auto staging = context_->allocate(bytes, BufferUse::Upload);
  if (!staging) return staging.error();
  std::memcpy((*staging)->mapped, data, bytes);
  counters_.bytesUp += int64_t(bytes);
  return copy(*staging, 0, to, 0, bytes);
}

Expected<void> Stream::downloadLater(const BufferRef& from, VkDeviceSize bytes, void* data,
                                     std::shared_ptr<const void> keep) {
  if (bytes == 0) return {};
  auto started = begin();
  if (!started) return started;
  BufferRef source = from;
  if (!from->mapped || !from->hostCached) {
    // A discrete GPU's memory, or a mapping the CPU would read uncached: copy into cached staging first.
    auto staging = context_->allocate(bytes, BufferUse::Readback);
    if (!staging) return staging.error();
    auto copied = copy(from, 0, *staging, 0, bytes);
    if (!copied) return copied;
    source = *staging;
  }
  keepAlive_.push_back(from);
  counters_.bytesDown += int64_t(bytes);
  readbacks_.push_back({std::move(source), bytes, data, std::move(keep)});
  return {};
}

Expected<void> Stream::download(const BufferRef& from, VkDeviceSize bytes, void* data) {
  auto recorded = downloadLater(from, bytes, data, nullptr);
  if (!recorded) return recorded;
  return flush();
}

void Stream::beginTimed() {
  if (!begin() || !queries_ || queriesUsed_ + 2 > queryCapacity_) return;
  vkCmdWriteTimestamp(commands_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, queriesUsed_);
}

void Stream::endTimed(std::function<void(int64_t, int64_t)> done) {
  if (!recording_ || !queries_ || queriesUsed_ + 2 > queryCapacity_) return;
  vkCmdWriteTimestamp(commands_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, queriesUsed_ + 1);
  timed_.push_back({queriesUsed_, std::move(done)});
  queriesUsed_ += 2;
}

Expected<void> Stream::flush(std::function<int64_t()> hostNowNs) {
  if (!recording_) return {};
  recording_ = false;
  VkDevice device = context_->device();
  std::string where = lastLabel.empty() ? "" : "work recorded up to " + lastLabel;
  if (!readbacks_.empty()) {
    // The host reads what the device wrote: make it visible in the host's memory domain.
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(commands_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
  }
  VkResult r = vkEndCommandBuffer(commands_);
  int64_t submittedNs = hostNowNs ? hostNowNs() : 0;
  if (r == VK_SUCCESS) {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands_;
    std::lock_guard lock(context_->queueMutex());
    r = vkQueueSubmit(context_->queue(), 1, &submit, fence_);
    ++counters_.submits;
  }
  if (r == VK_SUCCESS) {
    ++counters_.waits;
    // Generous: lavapipe runs whole models on the CPU. A hang becomes an error, not a frozen process.
    r = vkWaitForFences(device, 1, &fence_, VK_TRUE, 600ull * 1000 * 1000 * 1000);
  }
  if (r == VK_SUCCESS && !timed_.empty()) {
    std::vector<uint64_t> stamps(queriesUsed_);
    VkResult q = vkGetQueryPoolResults(device, queries_, 0, queriesUsed_, stamps.size() * 8, stamps.data(), 8,
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (q == VK_SUCCESS) {
      uint64_t mask = context_->timestampMask();
      uint64_t origin = stamps[timed_.front().query] & mask;
      double period = context_->timestampPeriodNs();
      for (const Timed& t : timed_) {
        uint64_t a = stamps[t.query] & mask, b = stamps[t.query + 1] & mask;
        int64_t start = submittedNs + int64_t(double(a - origin) * period);
        t.done(start, int64_t(double(b >= a ? b - a : 0) * period));
      }
    }
  }
  timed_.clear();
  if (r == VK_SUCCESS) {
    for (const Readback& b : readbacks_) {
      context_->invalidate(*b.source);
      std::memcpy(b.data, b.source->mapped, b.bytes);
    }
  }
  readbacks_.clear();
  vkResetFences(device, 1, &fence_);
  vkResetCommandBuffer(commands_, 0);
  for (size_t i = 0; i < descriptorPools_.size(); ++i) vkResetDescriptorPool(device, descriptorPools_[i], 0);
  descriptorPoolInUse_ = 0;
  keepAlive_.clear();
  lastLabel.clear();
  if (r != VK_SUCCESS) return streamError("running the queued work", r, where);
  return {};
}

}  // namespace onyx::exec::vulkan
