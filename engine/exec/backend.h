#pragma once
// A backend runs nodes (exec/cpu_backend.h, exec/vulkan/vulkan_backend.h; created by name through
// exec/backend_registry.h). The scheduler asks each backend, in preference order, whether it supports a node;
// the first that does prepares it, and the fallback (a host backend, the CPU's by default) takes the rest.
// Tensors live in the memory of the backend that produced them; the scheduler inserts transfers.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/kernel.h"
#include "ir/dim.h"

namespace onyx::exec {

// Shapes known before the run (from shape inference, with symbols bound from the actual inputs); a dim is
// -1 when it is only known once the producing kernel ran.
struct NodeShapes {
  std::vector<std::optional<Dims>> inputs;
  std::vector<std::optional<Dims>> outputs;
};

// What a device backend did in one run (Backend::takeRunCounters).
struct DeviceRunCounters {
  int64_t submits = 0;    // queue submissions
  int64_t waits = 0;      // times the host waited for the device
  int64_t bytesUp = 0;    // host to device: inputs, values CPU nodes computed, kernels' host inputs
  int64_t bytesDown = 0;  // device to host: outputs, inputs of CPU nodes
  int64_t replays = 0;    // submits of a command buffer recorded by an earlier run (same input dims)
};

// A node that ran on the host while a device backend was in use, and why (a run report's CPU nodes).
struct HostNodeRun {
  std::string node;  // Node::describe()
  std::string why;
};

// One node prepared by a backend.
class PreparedNode {
 public:
  virtual ~PreparedNode() = default;
  virtual Expected<void> run(KernelContext& context) = 0;
  virtual std::string_view variant() const = 0;  // kernel variant, for profiles
  virtual int64_t flops(const KernelContext&) const { return 0; }
  virtual const std::vector<std::pair<int, int>>& inPlace() const;
  // Inputs a device node reads in host memory (shape, axes and index inputs; weights it uploaded once at
  // prepare time): the scheduler inserts no transfer for them. Host backends read everything on the host.
  virtual const std::vector<int>& hostInputs() const;
  // Epilogue fusion (see EpilogueOp in kernel.h); backends without it keep the defaults.
  virtual bool setEpilogue(const std::vector<EpilogueOp>&) { return false; }
  virtual bool canFuseEpilogue(const KernelContext&) const { return false; }
  // Channels-last storage (see Kernel); backends without it keep the defaults.
  virtual bool acceptsChannelsLast(size_t) const { return false; }
  virtual bool producesChannelsLast() const { return false; }
  virtual bool readsChannelsLastOnlyToKeepIt() const { return false; }
  virtual bool acceptsBlocked16(size_t) const { return false; }
  // See Kernel::algorithm.
  virtual std::string_view algorithm() const { return {}; }
  // The code that ran, for profiles: oneDNN's implementation (Kernel::implementation) or the instruction
  // set of an ISA-dispatched kernel ("avx2"); empty when neither applies.
  virtual std::string_view implementation() const { return {}; }
  // Why the last run of a device node went to the CPU instead ("" when it ran on the device).
  virtual std::string_view fallbackReason() const { return {}; }
};

class Profiler;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;  // "cpu", "vulkan"
  // Host backends compute on host memory; others need transfers in and out.
  virtual bool usesHostMemory() const = 0;
  // Whether the planner offers this backend's steps the element-wise nodes after them (setEpilogue): host
  // backends, and device backends that run those nodes' own kernels on the device when a run declines.
  virtual bool fusesEpilogues() const { return usesHostMemory(); }
  virtual bool supports(const Node& node, int opset) const = 0;
  virtual Expected<std::unique_ptr<PreparedNode>> prepare(
      const Node& node, int opset, const NodeShapes& shapes,
      const std::vector<const onyx::Tensor*>& constants) = 0;
  // Copies between host memory and this backend's memory (device backends only).
  virtual Expected<TensorValue> toDevice(const TensorValue& host) { return host; }
  virtual Expected<TensorValue> toHost(const TensorValue& device) { return device; }
  // toHost that need not wait: the returned tensor holds the device's bytes once sync() or finishRun()
  // returned (graph outputs read back together at the end of a run).
  virtual Expected<TensorValue> toHostLater(const TensorValue& device) { return toHost(device); }
  virtual Expected<void> sync() { return {}; }
  // Why supports() declines a node, for run reports ("no Vulkan kernel for Trilu").
  virtual std::string unsupportedReason(const Node&, int /*opset*/) const { return {}; }
  // Device backends: what they did since the last call.
  virtual DeviceRunCounters takeRunCounters() { return {}; }
  // The device the backend runs on, for reports ("llvmpipe (LLVM 15.0.6, 256 bits)").
  virtual std::string deviceName() const { return std::string(name()); }
  // Device backends that queue work: when profiling, the executor brackets each of their steps (nodes and
  // transfers) with these, and the backend replaces the event's host times with device times once the work
  // completed. finishRun submits what is still queued at the end of a run.
  virtual void beginProfiledStep(Profiler&) {}
  virtual void endProfiledStep(Profiler&, size_t /*eventIndex*/) {}
  virtual Expected<void> finishRun() { return {}; }

  // Replaying a run without walking the plan (run_replay.h). beginRun starts a run that walks it. After a run
  // whose device work was one submit, runTransfers says which host memory it uploaded from and read back
  // into, in order; replayRun repeats that work with other host memory of the same sizes.
  struct RunTransfers {
    std::vector<std::pair<const void*, size_t>> uploads, readbacks;
  };
  virtual void beginRun() {}
  virtual std::optional<RunTransfers> runTransfers() const { return std::nullopt; }
  virtual Expected<void> replayRun(const std::vector<const void*>& /*sources*/, const std::vector<void*>& /*targets*/) {
    return makeError("this backend does not replay runs", std::string(name()));
  }
};

}  // namespace onyx::exec
