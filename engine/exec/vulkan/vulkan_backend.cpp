#include "exec/vulkan/vulkan_backend.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "exec/cpu_backend.h"
#include "exec/plan_context.h"
#include "exec/profiler.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "shapes/shape_inference.h"

namespace onyx::exec::vulkan {

namespace {

// Output memory for a node the CPU runs in place of the device (heap tensors, uploaded afterwards).
class HeapHost final : public KernelHost {
 public:
  Expected<TensorValue> allocateOutput(size_t, DataType dtype, Dims dims) override {
    return TensorValue::allocate(dtype, std::move(dims));
  }
  Expected<std::vector<RunValue>> runSubgraph(const Graph& body, std::vector<RunValue>) override {
    return makeError("a Vulkan node has no body graphs", body.name());
  }
};

struct TimedSlot {
  Profiler* profiler = nullptr;
  int64_t event = -1;
  bool measured = false;
  int64_t start = 0, duration = 0;
  void apply() {
    if (event < 0 || !measured) return;
    ProfileEvent& e = profiler->event(size_t(event));
    e.startNs = start;
    e.durationNs = duration;
  }
};

class VulkanBackend;

class VulkanNode final : public PreparedNode {
 public:
  VulkanNode(VulkanBackend& backend, const VulkanKernelDef& def, const Node& node, int opset,
             std::vector<TensorValue> weights, std::vector<const onyx::Tensor*> constants,
             std::vector<int> hostInputs, bool hostInputsStable)
      : backend_(backend),
        def_(def),
        node_(node),
        opset_(opset),
        weights_(std::move(weights)),
        constants_(std::move(constants)),
        hostInputs_(std::move(hostInputs)),
        hostInputsStable_(hostInputsStable) {}
  Expected<void> run(KernelContext& context) override;
  // "cpu-fallback" after a run the device could not do (the profile shows which nodes left the device).
  std::string_view variant() const override { return fellBack_ ? "cpu-fallback" : "vulkan"; }
  const std::vector<int>& hostInputs() const override { return hostInputs_; }
  std::string_view fallbackReason() const override { return fellBack_ ? std::string_view(fallbackReason_) : ""; }
  // The work the CPU kernel of the same op counts, so device and CPU profiles compare (GFLOP/s).
  int64_t flops(const KernelContext& context) const override {
    const KernelDef* cpu = cpuKernels().find(node_, opset_);
    return cpu && cpu->flops ? cpu->flops(context) : 0;
  }
  bool setEpilogue(const std::vector<EpilogueOp>& ops) override;
  bool canFuseEpilogue(const KernelContext& context) const override {
    return !epilogue_.empty() && (!def_.canFuseEpilogue || def_.canFuseEpilogue(context, epilogue_));
  }

 private:
  Expected<void> runOnCpu(KernelContext& context, const std::string& reason);
  Expected<std::vector<TensorValue>> deviceEpilogueOperands(const KernelContext& context);

  VulkanBackend& backend_;
  const VulkanKernelDef& def_;
  const Node& node_;
  int opset_;
  std::vector<TensorValue> weights_;  // per input: the device copy of a constant input, else empty
  std::vector<const onyx::Tensor*> constants_;
  std::vector<int> hostInputs_;
  bool hostInputsStable_;
  UploadCache uploads_;
  std::vector<EpilogueOp> epilogue_;   // fused element-wise nodes (setEpilogue)
  std::unique_ptr<PreparedNode> cpu_;  // prepared on the first fallback
  bool fellBack_ = false;               // the last run went to the CPU
  std::string fallbackReason_;
};

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(const Model& model, std::shared_ptr<Context> context)
      : context_(std::move(context)), stream_(context_) {
    ShapeInference inferred = inferShapes(model);
    for (auto& [value, info] : inferred.values)
      if (info.type.isTensor()) types_[value] = info.type.elemType();
  }
  ~VulkanBackend() override { (void)stream_.flush(); }

  std::string_view name() const override { return "vulkan"; }
  bool usesHostMemory() const override { return false; }
  bool fusesEpilogues() const override { return true; }  // the epilogue nodes run on the device when declined
  std::string deviceName() const override { return context_->info().name; }

  bool supports(const Node& node, int opset) const override { return unsupportedReason(node, opset).empty(); }

  std::string unsupportedReason(const Node& node, int opset) const override {
    const VulkanKernelDef* def = vulkanKernels().find(node, opset);
    if (!def) return "no Vulkan kernel for " + node.opType() + " at opset " + std::to_string(opset);
    DataType common = DataType::Undefined;
    for (size_t i = 0; i < node.inputCount(); ++i) {
      const onyx::Value* v = node.input(i);
      if (!v || v->name().empty()) continue;
      if (std::find(def->hostInputs.begin(), def->hostInputs.end(), int(i)) != def->hostInputs.end()) continue;
      DataType t = typeOf(v);
      if (!usable(t) && !(def->integerData && integerStaysOnDevice(node, i, t)))
        return "input '" + v->name() + "' is " + std::string(dataTypeName(t)) + "; the Vulkan kernels take " +
               (context_->float16() ? "float32 and float16" : "float32");
      if (common != DataType::Undefined && t != common) return "its inputs differ in element type";
      common = t;
    }
    for (size_t i = 0; i < node.outputCount(); ++i) {
      const onyx::Value* v = node.output(i);
      if (!v || v->name().empty()) continue;
      DataType t = typeOf(v);
      const bool same = common == DataType::Undefined || t == common;
      if (def->convertsType ? !usable(t) : !same)
        return "output '" + v->name() + "' is " + std::string(dataTypeName(t));
    }
    return {};
  }

  Expected<std::unique_ptr<PreparedNode>> prepare(const Node& node, int opset, const NodeShapes&,
                                                  const std::vector<const onyx::Tensor*>& constants) override {
    const VulkanKernelDef* def = vulkanKernels().find(node, opset);
    if (!def) return makeError("no Vulkan kernel for " + node.opType(), node.describe());
    std::vector<int> hostInputs = def->hostInputs;
    std::vector<TensorValue> weights(constants.size());
    for (size_t i = 0; i < constants.size(); ++i) {
      bool host = std::find(hostInputs.begin(), hostInputs.end(), int(i)) != hostInputs.end();
      if (!constants[i] || host) continue;
      auto uploaded = weight(*constants[i]);
      if (!uploaded) return uploaded.error();
      weights[i] = *uploaded;
      hostInputs.push_back(int(i));
    }
    bool stable = true;
    for (int i : def->hostInputs)
      if (size_t(i) < node.inputCount()) stable = stable && computedFromConstantsAndDims(node.input(size_t(i)));
    return std::unique_ptr<PreparedNode>(std::make_unique<VulkanNode>(
        *this, *def, node, opset, std::move(weights), constants, std::move(hostInputs), stable));
  }

  Expected<TensorValue> toDevice(const TensorValue& host) override {
    if (host.device() == this) return host;
    if (host.dtype() == DataType::String)
      return makeError("string tensors cannot move to the Vulkan device", "transfer");
    VkDeviceSize bytes = std::max<VkDeviceSize>(host.byteSize(), 4);
    auto buffer = context_->allocate(bytes);
    if (!buffer) return buffer.error();
    auto uploaded = stream_.upload(host.raw(), host.byteSize(), *buffer);
    if (!uploaded) return uploaded.error();
    return deviceTensor(host.dtype(), host.dims(), *buffer);
  }

  Expected<TensorValue> toHost(const TensorValue& device) override {
    auto host = toHostLater(device);
    if (!host) return host;
    auto done = flush();
    if (!done) return done.error();
    return host;
  }

  Expected<TensorValue> toHostLater(const TensorValue& device) override {
    if (device.device() != this) return device;
    closeTimedStep();
    TensorValue host = TensorValue::allocate(device.dtype(), device.dims());
    auto recorded = stream_.downloadLater(bufferOf(device), host.byteSize(), host.raw(), host.owner());
    if (!recorded) return recorded.error();
    return host;
  }

  Expected<void> sync() override { return flush(); }

  void beginRun() override { stream_.beginRun(); }
  std::optional<RunTransfers> runTransfers() const override {
    RunTransfers t;
    for (const Stream::HostCopy& c : stream_.runUploads()) t.uploads.push_back({c.host, size_t(c.bytes)});
    for (const Stream::HostCopy& c : stream_.runReadbacks()) t.readbacks.push_back({c.host, size_t(c.bytes)});
    return t;
  }
  Expected<void> replayRun(const std::vector<const void*>& sources, const std::vector<void*>& targets) override {
    return stream_.replay(sources, targets);
  }

  DeviceRunCounters takeRunCounters() override {
    StreamCounters c = stream_.takeCounters();
    return {c.submits, c.waits, c.bytesUp, c.bytesDown, c.replays};
  }

  void beginProfiledStep(Profiler& profiler) override {
    open_ = std::make_shared<TimedSlot>();
    open_->profiler = &profiler;
    profiler_ = &profiler;
    stream_.beginTimed();
  }
  void endProfiledStep(Profiler&, size_t eventIndex) override {
    std::shared_ptr<TimedSlot> slot = open_;
    closeTimedStep();
    if (!slot) return;
    slot->event = int64_t(eventIndex);
    slot->apply();
  }
  Expected<void> finishRun() override {
    closeTimedStep();
    auto done = flush();
    stream_.endRun();
    return done;
  }

  Expected<void> flush() {
    Profiler* profiler = profiler_;
    return stream_.flush(profiler ? std::function<int64_t()>([profiler] { return profiler->nowNs(); })
                                  : std::function<int64_t()>());
  }

  TensorValue deviceTensor(DataType dtype, Dims dims, const BufferRef& buffer) const {
    TensorValue t = TensorValue::view(dtype, std::move(dims), buffer.get(), buffer);
    t.setDevice(this);
    return t;
  }
  static BufferRef bufferOf(const TensorValue& t) {
    return std::const_pointer_cast<Buffer>(std::static_pointer_cast<const Buffer>(t.owner()));
  }
  Stream& stream() { return stream_; }
  Context& context() { return *context_; }
  // Weights go to the device once per backend and stay there.
  Expected<TensorValue> weight(const onyx::Tensor& tensor) {
    if (auto it = weights_.find(&tensor); it != weights_.end()) return it->second;
    auto uploaded = toDevice(TensorValue::fromConstant(tensor));
    if (!uploaded) return uploaded.error();
    weights_[&tensor] = *uploaded;
    return *uploaded;
  }

 private:
  bool usable(DataType t) const {
    return t == DataType::Float || (t == DataType::Float16 && context_->float16());
  }
  DataType typeOf(const onyx::Value* v) const {
    if (v->type().isTensor() && v->type().elemType() != DataType::Undefined) return v->type().elemType();
    auto it = types_.find(v);
    return it == types_.end() ? DataType::Undefined : it->second;
  }
  // An integer tensor lives on the device only on its way from a graph input, through views, into a Cast to
  // float (BERT's attention mask): it goes up once as the input and nothing reads it back. Any other integer
  // tensor (shape arithmetic, indices) stays on the host, where its readers are.
  bool integerStaysOnDevice(const Node& node, size_t input, DataType t) const {
    if (input != 0 || (t != DataType::Int64 && t != DataType::Int32)) return false;
    if (!fromGraphInputThroughViews(node.input(0))) return false;
    return node.opType() == "Cast" || reachesCastThroughViews(node.output(0));
  }
  static bool integerView(const Node& node) {
    static const std::unordered_set<std::string> kViews = {"Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                                           "Identity"};
    return isOnnxDomain(node) && kViews.count(node.opType());
  }
  static bool fromGraphInputThroughViews(const onyx::Value* v) {
    for (int depth = 0; v && depth < 64; ++depth) {
      if (v->isGraphInput()) return true;
      const Node* producer = v->producer();
      if (!producer || !integerView(*producer) || producer->inputCount() == 0) return false;
      v = producer->input(0);
    }
    return false;
  }
  static bool reachesCastThroughViews(const onyx::Value* v, int depth = 0) {
    if (!v || v->uses().empty() || depth > 64) return false;
    for (const Use& use : v->uses()) {
      if (!use.node || use.index != 0) return false;
      const Node& reader = *use.node;
      if (isOnnxDomain(reader) && reader.opType() == "Cast") {
        DataType to = DataType(reader.attrInt("to", 0));
        if (to != DataType::Float && to != DataType::Float16) return false;
      } else if (!integerView(reader) || !reachesCastThroughViews(reader.output(0), depth + 1)) {
        return false;
      }
    }
    return true;
  }
  // Whether `v` is the same every run with the same input dims: an initializer, or computed from them and
  // from Shape/Size of anything (exporters' shape arithmetic), never from a graph input's data.
  bool computedFromConstantsAndDims(const onyx::Value* v) const {
    if (!v || v->name().empty()) return true;
    if (auto it = stable_.find(v); it != stable_.end()) return it->second;
    bool stable = false;
    if (v->isGraphInput()) {
      stable = false;
    } else if (v->initializer()) {
      stable = true;
    } else if (const Node* producer = v->producer(); producer && producer->subgraphs().empty()) {
      const bool dimsOnly = isOnnxDomain(*producer) && (producer->opType() == "Shape" || producer->opType() == "Size");
      stable = dimsOnly || std::all_of(producer->inputs().begin(), producer->inputs().end(),
                                       [&](const onyx::Value* in) { return computedFromConstantsAndDims(in); });
    }
    stable_[v] = stable;
    return stable;
  }

  void closeTimedStep() {
    if (!open_) return;
    std::shared_ptr<TimedSlot> slot = open_;
    open_.reset();
    stream_.endTimed([slot](int64_t start, int64_t duration) {
      slot->measured = true;
      slot->start = start;
      slot->duration = duration;
      slot->apply();
    });
  }

  std::shared_ptr<Context> context_;
  Stream stream_;
  std::unordered_map<const onyx::Value*, DataType> types_;
  std::unordered_map<const onyx::Tensor*, TensorValue> weights_;
  mutable std::unordered_map<const onyx::Value*, bool> stable_;
  std::shared_ptr<TimedSlot> open_;
  Profiler* profiler_ = nullptr;
};

Expected<void> VulkanNode::run(KernelContext& context) {
  backend_.stream().lastLabel = node_.describe();
  std::vector<TensorValue> inputs(context.inputCount());
  bool host = false;
  std::string why;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i < weights_.size() && !weights_[i].empty()) {
      inputs[i] = weights_[i];
    } else if (std::find(def_.hostInputs.begin(), def_.hostInputs.end(), int(i)) == def_.hostInputs.end() &&
               context.hasInput(i)) {
      const auto* t = std::get_if<TensorValue>(&context.inputValue(i));
      if (!t) return runOnCpu(context, "input " + std::to_string(i) + " is not a tensor");
      const bool integer = t->dtype() == DataType::Int64 || t->dtype() == DataType::Int32;
      if (t->dtype() != DataType::Float && t->dtype() != DataType::Float16 && !(def_.integerData && integer)) {
        host = true;
        why = "input " + std::to_string(i) + " is " + t->describe();
      }
      if (t->device() != &backend_) {
        auto moved = backend_.toDevice(*t);
        if (!moved) return moved.error();
        inputs[i] = *moved;
      } else {
        inputs[i] = *t;
      }
    }
  }
  if (host) return runOnCpu(context, why);
  fellBack_ = false;
  VulkanRun run(context, backend_.stream(), std::move(inputs), &backend_, hostInputsStable_ ? &uploads_ : nullptr);
  if (context.fusingEpilogue()) {
    auto operands = deviceEpilogueOperands(context);
    if (!operands) return operands.error();
    VulkanRun::EpilogueConstants constants;
    for (const EpilogueOp& op : epilogue_)
      for (const onyx::Tensor* c : op.constants) {
        if (!c || c->elementCount() < 2) continue;
        auto device = backend_.weight(*c);
        if (!device) return device.error();
        constants.emplace_back(c, *device);
      }
    run.setEpilogue(epilogue_, std::move(*operands), std::move(constants));
  }
  auto ran = def_.function(run);
  if (ran || !run.fellBack()) return ran;
  return runOnCpu(context, run.fallbackReason());
}

bool VulkanNode::setEpilogue(const std::vector<EpilogueOp>& ops) {
  // Every node of the chain must have a device kernel: when a run cannot fuse it, those kernels run it.
  if (!def_.acceptsEpilogue || !def_.acceptsEpilogue(ops)) return false;
  for (const EpilogueOp& op : ops)
    if (!backend_.supports(*op.node, op.opset)) return false;
  epilogue_ = ops;
  return true;
}

Expected<std::vector<TensorValue>> VulkanNode::deviceEpilogueOperands(const KernelContext& context) {
  std::vector<TensorValue> operands;
  for (const EpilogueOp& op : epilogue_) {
    for (int index : op.inputs) {
      if (index < 0) continue;
      if (operands.size() <= size_t(index)) operands.resize(size_t(index) + 1);
      const TensorValue& t = context.epilogueOperand(size_t(index));
      auto moved = backend_.toDevice(t);
      if (!moved) return moved.error();
      operands[size_t(index)] = *moved;
    }
  }
  return operands;
}

Expected<void> VulkanNode::runOnCpu(KernelContext& context, const std::string& reason) {
  // The node still runs, only slower; the profile names it (variant "cpu-fallback") and tests check it.
  fellBack_ = true;
  fallbackReason_ = reason;
  if (!cpu_) {
    CpuBackend cpu(context.pool());
    auto prepared = cpu.prepare(node_, opset_, {}, constants_);
    if (!prepared) return prepared.error();
    cpu_ = std::move(*prepared);
    // The executor expects output 0 to be the epilogue's last value: the CPU kernel must fuse it too.
    if (!epilogue_.empty() && !cpu_->setEpilogue(epilogue_))
      return context.error("falls back to the CPU, whose kernel cannot compute its fused epilogue");
  }
  std::vector<RunValue> hostOperands;
  if (context.fusingEpilogue()) {
    for (const EpilogueOp& op : epilogue_) {
      for (int index : op.inputs) {
        if (index < 0) continue;
        if (hostOperands.size() <= size_t(index)) hostOperands.resize(size_t(index) + 1);
        auto moved = backend_.toHost(context.epilogueOperand(size_t(index)));
        if (!moved) return moved.error();
        hostOperands[size_t(index)] = std::move(*moved);
      }
    }
  }
  std::vector<RunValue> inputs(context.inputCount());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const RunValue& value = context.inputValue(i);
    const auto* t = std::get_if<TensorValue>(&value);
    if (t && t->device() == &backend_) {
      auto moved = backend_.toHost(*t);
      if (!moved) return moved.error();
      inputs[i] = std::move(*moved);
    } else {
      inputs[i] = value;
    }
  }
  std::vector<const RunValue*> pointers;
  for (const RunValue& v : inputs) pointers.push_back(&v);
  std::vector<RunValue> outputs(context.outputCount());
  HeapHost heap;
  KernelContext cpuContext(node_, opset_, pointers, outputs, heap, context.pool());
  std::vector<const RunValue*> operandPointers;
  for (const RunValue& v : hostOperands) operandPointers.push_back(&v);
  cpuContext.setEpilogueOperands(operandPointers);
  cpuContext.setFusingEpilogue(context.fusingEpilogue());
  if (context.fusingEpilogue() && !cpu_->canFuseEpilogue(cpuContext))
    return context.error("falls back to the CPU, whose kernel cannot fuse its epilogue for these inputs");
  auto ran = cpu_->run(cpuContext);
  if (!ran) return ran;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (auto* t = std::get_if<TensorValue>(&outputs[i])) {
      auto moved = backend_.toDevice(*t);
      if (!moved) return moved.error();
      context.setOutput(i, std::move(*moved));
    } else {
      context.setOutput(i, std::move(outputs[i]));
    }
  }
  return {};
}

}  // namespace

Expected<std::unique_ptr<Backend>> makeVulkanBackend(const Model& model, const std::string& device) {
  auto context = Context::open(device);
  if (!context) return context.error();
  return std::unique_ptr<Backend>(std::make_unique<VulkanBackend>(model, *context));
}

Expected<std::string> probeDevice(const std::string& device) {
  auto context = Context::open(device);
  if (!context) return context.error();
  return (*context)->info().name;
}

// VulkanRun's device memory goes through the backend's pool.
Expected<TensorValue> VulkanRun::allocate(DataType dtype, Dims dims) {
  auto* backend = static_cast<const VulkanBackend*>(backend_);
  int64_t bytes = elementCount(dims) * int64_t(elementBytes(dtype));
  if (uint64_t(bytes) > context().maxStorageRange())
    return fallback("a " + describeTensor(dtype, dims) + " tensor is past the device's storage buffer range");
  auto buffer = context().allocate(VkDeviceSize(std::max<int64_t>(bytes, 4)));
  if (!buffer) return fallback(buffer.error().message);
  return backend->deviceTensor(dtype, std::move(dims), *buffer);
}

Expected<TensorValue> VulkanRun::upload(const TensorValue& host) {
  const size_t index = uploadsDone_++;
  auto sameBytes = [&](const TensorValue& kept) {
    return kept.dtype() == host.dtype() && kept.dims() == host.dims() &&
           std::memcmp(kept.raw(), host.raw(), host.byteSize()) == 0;
  };
  if (uploads_ && index < uploads_->entries.size() && sameBytes(uploads_->entries[index].host))
    return uploads_->entries[index].device;
  auto t = allocate(host.dtype(), host.dims());
  if (!t) return t;
  auto done = stream_.upload(host.raw(), host.byteSize(), static_cast<const VulkanBackend*>(backend_)->bufferOf(*t));
  if (!done) return done.error();
  if (uploads_) {
    TensorValue kept = TensorValue::allocate(host.dtype(), host.dims());
    std::memcpy(kept.raw(), host.raw(), host.byteSize());
    uploads_->entries.resize(std::max(uploads_->entries.size(), index + 1));
    uploads_->entries[index] = {std::move(kept), *t};
  }
  return t;
}

Expected<void> VulkanRun::dispatchGroups(const std::string& shader, std::vector<int32_t> spec,
                                         std::vector<const TensorValue*> tensors, const Push& push, uint32_t x,
                                         uint32_t y, uint32_t z, bool float16) {
  uint32_t limit = context().maxGroupsPerDim();
  if (x > limit || y > limit || z > limit) return fallback("dispatch larger than the device's group limit");
  auto pipeline = context().pipeline(shader, float16, spec, uint32_t(tensors.size()), 128);
  if (!pipeline) return pipeline.error();
  std::vector<Binding> bindings;
  for (const TensorValue* t : tensors) {
    VkDeviceSize bytes = std::max<VkDeviceSize>((t->byteSize() + 3) / 4 * 4, 4);
    if (bytes > context().maxStorageRange())
      return fallback(t->describe() + " is past the device's storage buffer range");
    bindings.push_back({VulkanBackend::bufferOf(*t), 0, bytes});
  }
  return stream_.dispatch(**pipeline, bindings, push.p.data(), x, y, z);
}

Expected<void> VulkanRun::dispatch(const std::string& shader, std::vector<int32_t> spec,
                                   std::vector<const TensorValue*> tensors, const Push& push, int64_t invocations,
                                   bool float16) {
  if (invocations <= 0) return {};
  int64_t groups = (invocations + 255) / 256;
  int64_t limit = context().maxGroupsPerDim();
  int64_t x = std::min(groups, limit);
  int64_t y = (groups + x - 1) / x;
  if (y > limit) return fallback("too many elements for one dispatch");
  return dispatchGroups(shader, std::move(spec), std::move(tensors), push, uint32_t(x), uint32_t(y), 1, float16);
}

}  // namespace onyx::exec::vulkan
