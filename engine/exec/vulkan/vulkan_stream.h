#pragma once
// Records work for one executor into a single command buffer: dispatches and copies over many nodes, each
// followed by a barrier, submitted only when the host needs a result (a download, the end of a run). Buffers
// the recorded work touches are kept alive until it completed. Timestamp pairs bracket profiled steps.
// Uploads go through staging buffers; readbacks copy into HOST_CACHED staging and are memcpy'd once the
// work completed, so the CPU never reads a device buffer through an uncached mapping. It counts its
// submits, host waits and bytes moved (StreamCounters) for the run reports.
// Record once, replay: commands are kept as data until the flush. When a run's n-th flush holds exactly the
// commands of the last run's n-th (same pipelines, buffers, push constants and groups: the same input dims),
// the command buffer recorded then is submitted again with its descriptor sets; otherwise it is recorded
// anew (new dims record again).
#include <array>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "exec/vulkan/vulkan_context.h"

namespace onyx::exec::vulkan {

struct StreamCounters {
  int64_t submits = 0;
  int64_t waits = 0;
  int64_t bytesUp = 0;
  int64_t bytesDown = 0;
  int64_t replays = 0;  // submits of a command buffer recorded by an earlier run
};

struct Binding {
  BufferRef buffer;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
};

class Stream {
 public:
  explicit Stream(std::shared_ptr<Context> context);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Context& context() { return *context_; }
  // Dispatches `groups` work groups (x, y, z) of the pipeline.
  Expected<void> dispatch(const Pipeline& pipeline, const std::vector<Binding>& bindings, const void* push,
                          uint32_t groupsX, uint32_t groupsY = 1, uint32_t groupsZ = 1);
  Expected<void> copy(const BufferRef& from, VkDeviceSize fromOffset, const BufferRef& to,
                      VkDeviceSize toOffset, VkDeviceSize bytes);
  // Host bytes into a device buffer, through a staging buffer (ordered with the recorded work).
  Expected<void> upload(const void* data, VkDeviceSize bytes, const BufferRef& to);
  // Waits for everything recorded, then copies device bytes to host memory.
  Expected<void> download(const BufferRef& from, VkDeviceSize bytes, void* data);
  // Records the copy of device bytes to `data`, which holds them once the next flush returned; `keep` owns
  // `data` until then.
  Expected<void> downloadLater(const BufferRef& from, VkDeviceSize bytes, void* data,
                               std::shared_ptr<const void> keep);
  // What the stream did since the last call.
  StreamCounters takeCounters() { return std::exchange(counters_, {}); }

  // Profiling: a timestamp before and after the work of one step; `done(startNs, durationNs)` runs once
  // the work completed, with device time mapped onto the host clock of `hostNowNs`.
  void beginTimed();
  void endTimed(std::function<void(int64_t, int64_t)> done);
  // Submits what is recorded and waits. Errors (device lost, timeout) leave the stream usable.
  Expected<void> flush(std::function<int64_t()> hostNowNs = {});
  bool idle() const { return !recording_; }
  // The end of a run: the next flush is the first of the next run (matched against this run's first).
  void endRun() { flushInRun_ = 0; }

  // Replay without walking the plan: a run that made one flush can be repeated by copying new host bytes into
  // its upload staging buffers, submitting its command buffer and copying its readbacks out. The buffers it
  // used stay referenced until the next run begins (beginRun), so nothing else takes them in between.
  struct HostCopy {
    BufferRef staging;
    VkDeviceSize bytes = 0;
    const void* host = nullptr;  // where the last run's bytes came from (upload) or went to (readback)
  };
  const std::vector<HostCopy>& runUploads() const { return runUploads_; }
  const std::vector<HostCopy>& runReadbacks() const { return runReadbacks_; }
  // A run that walks the plan: forgets the last run's transfers and releases its buffers to the pool, where
  // this run's allocations find them again (and its commands match the recording).
  void beginRun();
  // Runs the first recording of the last run again with `sources` (one per runUploads(), same sizes) and
  // copies its readbacks into `targets` (one per runReadbacks()).
  Expected<void> replay(const std::vector<const void*>& sources, const std::vector<void*>& targets);
  // Everything recorded since the last flush, for error messages ("after Conv 'x' (#3)").
  std::string lastLabel;

 private:
  // One command, as data: a dispatch, a copy, a timestamp or the host-read barrier.
  struct Command {
    enum Kind : uint8_t { Dispatch, Copy, TimestampTop, TimestampBottom, HostBarrier } kind = Dispatch;
    const Pipeline* pipeline = nullptr;
    std::vector<VkBuffer> buffers;  // dispatch: per binding; copy: from, to
    std::vector<VkDeviceSize> offsets, ranges;
    std::array<int32_t, 32> push{};
    uint32_t x = 0, y = 0, z = 0;  // groups; a timestamp's query in x
    VkDeviceSize bytes = 0;        // copy
    bool operator==(const Command&) const = default;
  };
  // A command buffer recorded from a list of commands, with the descriptor sets it binds.
  struct Recording {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> descriptorPools;
    std::vector<Command> list;
    bool valid = false;
  };

  Expected<void> begin();
  Expected<void> record(Recording& recording);
  Expected<VkDescriptorSet> descriptorSet(Recording& recording, size_t& poolInUse, const Pipeline& pipeline);

  std::shared_ptr<Context> context_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  uint32_t queryCapacity_ = 4096;
  uint32_t queriesUsed_ = 0;
  bool recording_ = false;  // commands are pending
  std::vector<Command> pending_;
  std::vector<std::unique_ptr<Recording>> recordings_;  // per flush of a run, in order
  size_t flushInRun_ = 0;
  std::vector<BufferRef> keepAlive_;
  struct Timed {
    uint32_t query;
    std::function<void(int64_t, int64_t)> done;
  };
  std::vector<Timed> timed_;
  struct Readback {
    BufferRef source;  // a HOST_CACHED buffer the recorded work filled
    VkDeviceSize bytes;
    void* data;
    std::shared_ptr<const void> keep;
  };
  std::vector<Readback> readbacks_;
  std::vector<HostCopy> runUploads_, runReadbacks_;
  std::vector<BufferRef> lastKeep_;  // what the last flush's commands use
  StreamCounters counters_;
};

}  // namespace onyx::exec::vulkan
