#include "exec/vulkan/vulkan_stream.h"

#include <algorithm>
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
  for (auto& recording : recordings_)
    for (VkDescriptorPool p : recording->descriptorPools) vkDestroyDescriptorPool(device, p, nullptr);
  if (queries_) vkDestroyQueryPool(device, queries_, nullptr);
  if (fence_) vkDestroyFence(device, fence_, nullptr);
  if (pool_) vkDestroyCommandPool(device, pool_, nullptr);  // frees the recordings' command buffers
}

Expected<void> Stream::begin() {
  if (recording_) return {};
  VkDevice device = context_->device();
  if (!pool_) {
    VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    info.queueFamilyIndex = context_->queueFamily();
    VkResult r = vkCreateCommandPool(device, &info, nullptr, &pool_);
    if (r != VK_SUCCESS) return streamError("creating a command pool", r, "");
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
  queriesUsed_ = 0;
  recording_ = true;
  return {};
}

Expected<VkDescriptorSet> Stream::descriptorSet(Recording& recording, size_t& poolInUse, const Pipeline& pipeline) {
  VkDevice device = context_->device();
  while (true) {
    if (poolInUse == recording.descriptorPools.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 4};
      VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = kSetsPerPool;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool p;
      VkResult r = vkCreateDescriptorPool(device, &info, nullptr, &p);
      if (r != VK_SUCCESS) return streamError("creating a descriptor pool", r, lastLabel);
      recording.descriptorPools.push_back(p);
    }
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = recording.descriptorPools[poolInUse];
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &pipeline.setLayout;
    VkDescriptorSet set;
    VkResult r = vkAllocateDescriptorSets(device, &alloc, &set);
    if (r == VK_SUCCESS) return set;
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return streamError("allocating a descriptor set", r, lastLabel);
    ++poolInUse;
  }
}

// Records the pending commands into `recording`'s command buffer, each followed by a global barrier: each
// dispatch sees what the ones before it wrote, and a buffer the pool hands out again is not written before
// its earlier readers ran.
Expected<void> Stream::record(Recording& recording) {
  VkDevice device = context_->device();
  recording.valid = false;
  VkResult r = VK_SUCCESS;
  if (!recording.commands) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    r = vkAllocateCommandBuffers(device, &alloc, &recording.commands);
    if (r != VK_SUCCESS) return streamError("allocating a command buffer", r, "");
  } else {
    vkResetCommandBuffer(recording.commands, 0);
  }
  for (VkDescriptorPool p : recording.descriptorPools) vkResetDescriptorPool(device, p, 0);
  size_t poolInUse = 0;
  VkCommandBuffer cb = recording.commands;
  VkCommandBufferBeginInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  r = vkBeginCommandBuffer(cb, &info);
  if (r != VK_SUCCESS) return streamError("beginning a command buffer", r, "");
  if (queries_) vkCmdResetQueryPool(cb, queries_, 0, queryCapacity_);
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                    VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  std::vector<VkDescriptorBufferInfo> infos;
  std::vector<VkWriteDescriptorSet> writes;
  for (const Command& c : pending_) {
    switch (c.kind) {
      case Command::Dispatch: {
        const Pipeline& pipeline = *c.pipeline;
        auto set = descriptorSet(recording, poolInUse, pipeline);
        if (!set) {
          vkEndCommandBuffer(cb);
          return set.error();
        }
        infos.resize(c.buffers.size());
        writes.resize(c.buffers.size());
        for (size_t i = 0; i < c.buffers.size(); ++i) {
          infos[i] = {c.buffers[i], c.offsets[i], c.ranges[i]};
          writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
          writes[i].dstSet = *set;
          writes[i].dstBinding = uint32_t(i);
          writes[i].descriptorCount = 1;
          writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
          writes[i].pBufferInfo = &infos[i];
        }
        vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0, nullptr);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &*set, 0, nullptr);
        if (pipeline.pushBytes)
          vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, pipeline.pushBytes, c.push.data());
        vkCmdDispatch(cb, c.x, c.y, c.z);
        vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
        break;
      }
      case Command::Copy: {
        VkBufferCopy region{c.offsets[0], c.offsets[1], c.bytes};
        vkCmdCopyBuffer(cb, c.buffers[0], c.buffers[1], 1, &region);
        vkCmdPipelineBarrier(cb, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
        break;
      }
      case Command::TimestampTop:
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, c.x);
        break;
      case Command::TimestampBottom:
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, c.x);
        break;
      case Command::HostBarrier: {
        // The host reads what the device wrote: make it visible in the host's memory domain.
        VkMemoryBarrier h{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        h.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        h.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cb, stages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &h, 0, nullptr, 0, nullptr);
        break;
      }
    }
  }
  r = vkEndCommandBuffer(cb);
  if (r != VK_SUCCESS) return streamError("recording a command buffer", r, lastLabel);
  recording.list = pending_;
  recording.valid = true;
  return {};
}

Expected<void> Stream::dispatch(const Pipeline& pipeline, const std::vector<Binding>& bindings,
                                const void* push, uint32_t groupsX, uint32_t groupsY, uint32_t groupsZ) {
  if (groupsX == 0 || groupsY == 0 || groupsZ == 0) return {};
  auto started = begin();
  if (!started) return started;
  Command c;
  c.kind = Command::Dispatch;
  c.pipeline = &pipeline;
  for (const Binding& binding : bindings) {
    c.buffers.push_back(binding.buffer->buffer);
    c.offsets.push_back(binding.offset);
    c.ranges.push_back(binding.range);
    keepAlive_.push_back(binding.buffer);
  }
  if (pipeline.pushBytes) std::memcpy(c.push.data(), push, std::min<size_t>(pipeline.pushBytes, sizeof(c.push)));
  c.x = groupsX;
  c.y = groupsY;
  c.z = groupsZ;
  pending_.push_back(std::move(c));
  return {};
}

Expected<void> Stream::copy(const BufferRef& from, VkDeviceSize fromOffset, const BufferRef& to,
                            VkDeviceSize toOffset, VkDeviceSize bytes) {
  if (bytes == 0) return {};
  auto started = begin();
  if (!started) return started;
  Command c;
  c.kind = Command::Copy;
  c.buffers = {from->buffer, to->buffer};
  c.offsets = {fromOffset, toOffset};
  c.bytes = bytes;
  keepAlive_.push_back(from);
  keepAlive_.push_back(to);
  pending_.push_back(std::move(c));
  return {};
}

Expected<void> Stream::upload(const void* data, VkDeviceSize bytes, const BufferRef& to) {
  if (bytes == 0) return {};
  auto staging = context_->allocate(bytes, BufferUse::Upload);
  if (!staging) return staging.error();
  std::memcpy((*staging)->mapped, data, bytes);
  counters_.bytesUp += int64_t(bytes);
  runUploads_.push_back({*staging, bytes, data});
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
  runReadbacks_.push_back({source, bytes, data});
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
  Command c;
  c.kind = Command::TimestampTop;
  c.x = queriesUsed_;
  pending_.push_back(std::move(c));
}

void Stream::endTimed(std::function<void(int64_t, int64_t)> done) {
  if (!recording_ || !queries_ || queriesUsed_ + 2 > queryCapacity_) return;
  Command c;
  c.kind = Command::TimestampBottom;
  c.x = queriesUsed_ + 1;
  pending_.push_back(std::move(c));
  timed_.push_back({queriesUsed_, std::move(done)});
  queriesUsed_ += 2;
}

Expected<void> Stream::flush(std::function<int64_t()> hostNowNs) {
  if (!recording_) return {};
  recording_ = false;
  VkDevice device = context_->device();
  std::string where = lastLabel.empty() ? "" : "work recorded up to " + lastLabel;
  if (!readbacks_.empty()) {
    Command c;
    c.kind = Command::HostBarrier;
    pending_.push_back(std::move(c));
  }
  if (flushInRun_ == recordings_.size()) recordings_.push_back(std::make_unique<Recording>());
  Recording& recording = *recordings_[flushInRun_++];
  VkResult r = VK_SUCCESS;
  if (recording.valid && recording.list == pending_) {
    ++counters_.replays;  // the same commands on the same buffers as last run: submit what was recorded
  } else if (auto recorded = record(recording); !recorded) {
    pending_.clear();
    timed_.clear();
    readbacks_.clear();
    keepAlive_.clear();
    lastLabel.clear();
    return recorded;
  }
  VkCommandBuffer commands = recording.commands;
  int64_t submittedNs = hostNowNs ? hostNowNs() : 0;
  if (r == VK_SUCCESS) {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
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
  if (r != VK_SUCCESS) recording.valid = false;
  pending_.clear();
  lastKeep_ = std::move(keepAlive_);
  keepAlive_.clear();
  lastLabel.clear();
  if (r != VK_SUCCESS) return streamError("running the queued work", r, where);
  return {};
}

void Stream::beginRun() {
  runUploads_.clear();
  runReadbacks_.clear();
  lastKeep_.clear();
}

Expected<void> Stream::replay(const std::vector<const void*>& sources, const std::vector<void*>& targets) {
  if (recording_ || recordings_.empty() || !recordings_[0]->valid || sources.size() != runUploads_.size() ||
      targets.size() != runReadbacks_.size())
    return makeError("no recorded run to replay", "vulkan");
  for (size_t i = 0; i < sources.size(); ++i) {
    std::memcpy(runUploads_[i].staging->mapped, sources[i], runUploads_[i].bytes);
    counters_.bytesUp += int64_t(runUploads_[i].bytes);
  }
  VkDevice device = context_->device();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &recordings_[0]->commands;
  VkResult r;
  {
    std::lock_guard lock(context_->queueMutex());
    r = vkQueueSubmit(context_->queue(), 1, &submit, fence_);
  }
  ++counters_.submits;
  ++counters_.replays;
  if (r == VK_SUCCESS) {
    ++counters_.waits;
    r = vkWaitForFences(device, 1, &fence_, VK_TRUE, 600ull * 1000 * 1000 * 1000);
  }
  vkResetFences(device, 1, &fence_);
  if (r != VK_SUCCESS) {
    recordings_[0]->valid = false;
    return streamError("replaying the recorded run", r, "");
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    context_->invalidate(*runReadbacks_[i].staging);
    std::memcpy(targets[i], runReadbacks_[i].staging->mapped, runReadbacks_[i].bytes);
    counters_.bytesDown += int64_t(runReadbacks_[i].bytes);
  }
  return {};
}

}  // namespace onyx::exec::vulkan
