#pragma once
// The Vulkan kernel API. A kernel records one node's dispatches; it is a function registered with the ops
// it implements (engine/ops/<family>/<group>_vulkan.cpp, registered by the family's <family>_family.cpp),
// its GLSL shaders sit beside it (<group>_vulkan.comp, or <group>_<what>_vulkan.comp when it needs several).
// Inputs and outputs are device tensors; shape, axes and index inputs are read on the host.
#include <array>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "exec/kernel.h"
#include "exec/vulkan/vulkan_stream.h"

namespace onyx::exec::vulkan {

// 32 ints of push constants, the layout every shader declares (onyx_common.glsl).
struct Push {
  std::array<int32_t, 32> p{};
  int n = 0;
  Push& add(int64_t v) {
    p[size_t(n++)] = int32_t(v);
    return *this;
  }
  Push& addFloat(float v);
  Push& at(int index, int64_t v) {
    p[size_t(index)] = int32_t(v);
    return *this;
  }
};

// Device copies of host data a node's kernel uploads (index tables, programs), kept from one run to the next
// while the same bytes are uploaded again: one per upload of the kernel, in order.
struct UploadCache {
  struct Entry {
    TensorValue host;    // the bytes uploaded
    TensorValue device;  // their device copy
  };
  std::vector<Entry> entries;
};

class VulkanRun {
 public:
  // `uploads`: the node's cache when its host inputs are the same from run to run (constants and shape
  // arithmetic), else null and every upload goes up.
  VulkanRun(KernelContext& kernel, Stream& stream, std::vector<TensorValue> deviceInputs, const Backend* backend,
            UploadCache* uploads = nullptr)
      : kernel_(kernel), stream_(stream), inputs_(std::move(deviceInputs)), backend_(backend), uploads_(uploads) {}

  KernelContext& kernel() { return kernel_; }
  const Node& node() const { return kernel_.node(); }
  Context& context() { return stream_.context(); }
  Stream& stream() { return stream_; }
  bool hasInput(size_t i) const { return i < inputs_.size() && !inputs_[i].empty(); }
  // A device input (data), or a host input (shape, axes, indices) through kernel().
  const TensorValue& input(size_t i) const { return inputs_[i]; }
  bool float16(size_t input = 0) const { return inputs_[input].dtype() == DataType::Float16; }
  // A new device tensor, stored as output i.
  Expected<TensorValue> output(size_t i, DataType dtype, Dims dims);
  // A device tensor that is not an output (im2col columns, partial results).
  Expected<TensorValue> scratch(DataType dtype, Dims dims);
  // A device copy of host data (indices, conditions); the copy of the last run when the node's host inputs
  // are stable and the bytes are the same.
  Expected<TensorValue> upload(const TensorValue& host);
  // Whether the node's host inputs are computed from constants and dims only, never from a graph input's
  // data (so they are usually the same next run).
  bool hostInputsStable() const { return uploads_ != nullptr; }

  // Records one dispatch over `invocations` threads (groups of 256, spread over two dimensions).
  Expected<void> dispatch(const std::string& shader, std::vector<int32_t> spec,
                          std::vector<const TensorValue*> tensors, const Push& push, int64_t invocations,
                          bool float16);
  // Records one dispatch of explicit groups (tiled kernels).
  Expected<void> dispatchGroups(const std::string& shader, std::vector<int32_t> spec,
                                std::vector<const TensorValue*> tensors, const Push& push, uint32_t x,
                                uint32_t y, uint32_t z, bool float16);

  // Gives the node to the CPU kernel instead (an input the shaders do not handle, a tensor past the device's
  // buffer range, device memory exhausted). Return it from the kernel.
  Error fallback(std::string reason);
  bool fellBack() const { return fellBack_; }
  const std::string& fallbackReason() const { return fallbackReason_; }
  Error error(std::string message) const { return kernel_.error(std::move(message)); }

  // The element-wise nodes after this one that the kernel computes in its output pass this run (empty when
  // none; see VulkanKernelDef::acceptsEpilogue), and their operands computed earlier (device tensors, indexed
  // by EpilogueOp::inputs).
  const std::vector<EpilogueOp>& epilogue() const { return epilogue_; }
  const TensorValue& epilogueOperand(size_t i) const { return epilogueOperands_.at(i); }
  // The device copy of a constant the epilogue reads as a tensor (a bias row; scalars go in push constants),
  // uploaded once; null for a tensor no epilogue node reads.
  const TensorValue* epilogueConstant(const onyx::Tensor* constant) const {
    for (const auto& [tensor, device] : epilogueConstants_)
      if (tensor == constant) return &device;
    return nullptr;
  }
  using EpilogueConstants = std::vector<std::pair<const onyx::Tensor*, TensorValue>>;
  void setEpilogue(std::vector<EpilogueOp> ops, std::vector<TensorValue> operands, EpilogueConstants constants) {
    epilogue_ = std::move(ops);
    epilogueOperands_ = std::move(operands);
    epilogueConstants_ = std::move(constants);
  }

 private:
  Expected<TensorValue> allocate(DataType dtype, Dims dims);

  KernelContext& kernel_;
  Stream& stream_;
  std::vector<TensorValue> inputs_;
  const Backend* backend_;
  UploadCache* uploads_;
  size_t uploadsDone_ = 0;
  bool fellBack_ = false;
  std::string fallbackReason_;
  std::vector<EpilogueOp> epilogue_;
  std::vector<TensorValue> epilogueOperands_;
  EpilogueConstants epilogueConstants_;
};

using VulkanKernelFunction = Expected<void> (*)(VulkanRun&);

struct VulkanKernelDef {
  std::string opType;  // empty: every op of `domain` (the onyx.fused functions)
  int sinceVersion = 1;
  int untilVersion = 1 << 30;
  VulkanKernelFunction function = nullptr;
  std::string domain;  // "" for ai.onnx
  // Inputs read on the host (shapes, axes, pads, indices, conditions); the others are float tensors.
  std::vector<int> hostInputs;
  // Attributes and input counts the kernel handles; null: all.
  bool (*supports)(const Node& node, int opset) = nullptr;
  // Epilogue fusion (EpilogueOp in exec/kernel.h): whether the kernel can compute this chain of element-wise
  // nodes in its output pass, and whether this run's inputs and operands let it (else the executor runs the
  // nodes' own device kernels after it). Null: the kernel fuses nothing.
  bool (*acceptsEpilogue)(const std::vector<EpilogueOp>& ops) = nullptr;
  bool (*canFuseEpilogue)(const KernelContext& context, const std::vector<EpilogueOp>& ops) = nullptr;
  // Cast: the output type differs from the inputs'.
  bool convertsType = false;
  // Its data input may be an int32/int64 tensor (views; Cast to float): integer graph inputs on their way
  // into float arithmetic (an attention mask) stay on the device (VulkanBackend::supports).
  bool integerData = false;
  // The source file that registered the kernel, as the compiler named it; set by VulkanKernelRegistry::add.
  const char* source = nullptr;
};

class VulkanKernelRegistry {
 public:
  // The first added kernel that supports a node runs: registration order matters.
  void add(VulkanKernelDef def, std::source_location where = std::source_location::current()) {
    if (!def.source) def.source = where.file_name();
    defs_.push_back(std::move(def));
  }
  const VulkanKernelDef* find(const Node& node, int opset) const;
  const std::vector<VulkanKernelDef>& all() const { return defs_; }

 private:
  std::vector<VulkanKernelDef> defs_;
};

// Every Vulkan kernel, registered on first use by registerVulkanKernels, which engine/ops defines
// (ops/op_families.cpp: every op family's kernels, then the fused element-wise functions).
const VulkanKernelRegistry& vulkanKernels();
void registerVulkanKernels(VulkanKernelRegistry& registry);

// Shape helpers shared by kernels.
Dims contiguousStrides(const Dims& dims);
// Strides of `dims` broadcast to `outDims` (rank aligned at the right; broadcast dims get stride 0).
Dims broadcastStridesTo(const Dims& dims, const Dims& outDims);
// Merges adjacent dims whose strides (in every stride list) are contiguous, so rank-6 limits rarely bite.
void collapseDims(Dims& dims, std::vector<Dims*> strides);
constexpr int kMaxRank = 6;

}  // namespace onyx::exec::vulkan
