#include "exec/kernel.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "exec/kernel_util.h"
#include "exec/thread_pool.h"

namespace onyx::exec {
namespace {
const TensorValue kNoTensor;
const RunValue kAbsent;

// The tensor whose dim d is `in`'s dim perm[d], in row-major storage.
TensorValue permuteTensor(const TensorValue& in, const std::vector<int64_t>& perm) {
  const TensorValue plain = in.toPlainLayout();
  Dims dims;
  for (int64_t p : perm) dims.push_back(plain.dim(p));
  const std::vector<int64_t> inStrides = rowMajorStrides(plain.dims());
  std::vector<int64_t> strides;  // stored stride per output dim
  for (int64_t p : perm) strides.push_back(inStrides[size_t(p)]);
  TensorValue out = TensorValue::allocate(plain.dtype(), dims);
  const size_t bytes = elementBytes(plain.dtype());
  const bool strings = plain.dtype() == DataType::String;
  forEachBroadcast<1>(dims, {strides}, [&](int64_t to, const std::array<int64_t, 1>& from) {
    if (strings)
      out.data<std::string>()[to] = plain.data<std::string>()[from[0]];
    else
      std::memcpy(static_cast<char*>(out.raw()) + size_t(to) * bytes,
                  static_cast<const char*>(plain.raw()) + size_t(from[0]) * bytes, bytes);
  });
  return out;
}

std::string inputLabel(const Node& node, int index) {
  const Value* value = node.input(size_t(index));
  return "input " + std::to_string(index) + (value ? " '" + value->name() + "'" : "");
}
}  // namespace

bool KernelContext::hasInput(size_t i) const {
  return i < inputs_.size() && inputs_[i] && !std::holds_alternative<std::monostate>(*inputs_[i]);
}

const RunValue& KernelContext::inputValue(size_t i) const {
  const RunValue& stored = i < inputs_.size() && inputs_[i] ? *inputs_[i] : kAbsent;
  if (i >= transposes_.size() || !transposes_[i] || !std::holds_alternative<TensorValue>(stored))
    return stored;
  if (transposed_.size() < transposes_.size()) transposed_.resize(transposes_.size());
  RunValue& made = transposed_[i];
  if (std::holds_alternative<std::monostate>(made)) {
    auto perm = inputPermutation(i);
    if (!perm) return kAbsent;  // the executor checks every permutation before the kernel runs
    made = permuteTensor(std::get<TensorValue>(stored), *perm);
  }
  return made;
}

void KernelContext::setTransposedInputs(std::span<const Node* const> transposes) {
  transposes_ = transposes;
  transposed_.clear();
}

const TensorValue& KernelContext::storedInput(size_t i) const {
  const auto* t = i < inputs_.size() && inputs_[i] ? std::get_if<TensorValue>(inputs_[i]) : nullptr;
  return t ? *t : kNoTensor;
}

Expected<std::vector<int64_t>> KernelContext::inputPermutation(size_t i) const {
  if (i >= transposes_.size() || !transposes_[i]) return std::vector<int64_t>{};
  const Node& transpose = *transposes_[i];
  auto perm = resolvePerm(transpose.attrInts("perm").value_or(std::vector<int64_t>{}), storedInput(i).rank());
  if (!perm)
    return makeError("perm of the Transpose folded into " + node_.describe() + " is not a permutation of " +
                         storedInput(i).describe() + "'s dims",
                     transpose.describe());
  return *perm;
}

Dims KernelContext::inputDims(size_t i) const {
  const TensorValue& stored = storedInput(i);
  auto perm = inputPermutation(i);
  if (!perm || perm->empty()) return stored.dims();
  Dims dims;
  for (int64_t p : *perm) dims.push_back(stored.dim(p));
  return dims;
}

const TensorValue& KernelContext::input(size_t i) const {
  const auto* t = std::get_if<TensorValue>(&inputValue(i));
  return t ? *t : kNoTensor;
}

Expected<const TensorValue*> KernelContext::requireTensor(size_t i) const {
  const auto* t = std::get_if<TensorValue>(&inputValue(i));
  if (!t) {
    return error(
        hasInput(i) ? "expects a tensor, got " + describeValue(inputValue(i)) : "is missing a required input",
        int(i));
  }
  return t;
}

std::optional<std::vector<int64_t>> KernelContext::intsInput(size_t i) const {
  const TensorValue& t = input(i);
  if (t.empty()) return std::nullopt;
  return t.toInts();
}

std::optional<std::vector<float>> KernelContext::attrFloats(std::string_view name) const {
  const Attribute* attr = node_.attribute(name);
  if (!attr || !attr->getFloats()) return std::nullopt;
  return *attr->getFloats();
}

std::optional<std::vector<std::string>> KernelContext::attrStrings(std::string_view name) const {
  const Attribute* attr = node_.attribute(name);
  if (!attr || !attr->getStrings()) return std::nullopt;
  return *attr->getStrings();
}

const onyx::Tensor* KernelContext::attrTensor(std::string_view name) const {
  const Attribute* attr = node_.attribute(name);
  return attr ? attr->getTensor() : nullptr;
}

const Graph* KernelContext::attrGraph(std::string_view name) const {
  const Attribute* attr = node_.attribute(name);
  return attr ? attr->getGraph() : nullptr;
}

const TensorValue& KernelContext::epilogueOperand(size_t i) const {
  static const TensorValue empty;
  if (i >= epilogueOperands_.size()) return empty;
  const auto* t = std::get_if<TensorValue>(epilogueOperands_[i]);
  return t ? *t : empty;
}

bool KernelContext::wantsOutput(size_t i) const {
  const Value* value = node_.output(i);
  return i < outputs_.size() && value && !value->name().empty();
}

Expected<TensorValue*> KernelContext::allocateOutput(size_t i, DataType dtype, Dims dims) {
  for (int64_t d : dims) {
    if (d < 0)
      return error("computed a negative output dimension " + describeTensor(dtype, dims) + " for output " +
                   std::to_string(i));
  }
  if (i >= outputs_.size()) return error("has no output " + std::to_string(i));
  auto tensor = host_.allocateOutput(i, dtype, std::move(dims));
  if (!tensor) return tensor.error();
  outputs_[i] = std::move(*tensor);
  return &std::get<TensorValue>(outputs_[i]);
}

void KernelContext::setOutput(size_t i, RunValue value) {
  if (i < outputs_.size()) outputs_[i] = std::move(value);
}

void KernelContext::parallelFor(int64_t count, int64_t grain,
                                const std::function<void(int64_t, int64_t)>& body) const {
  pool_.parallelFor(count, grain, body);
}

Error KernelContext::error(std::string message, int input) const {
  std::string where = node_.describe();
  if (input >= 0) where += ", " + inputLabel(node_, input);
  return makeError(node_.opType() + " " + message, std::move(where));
}

Error KernelContext::unsupportedType(int input) const {
  const RunValue& value = inputValue(size_t(input));
  const auto* t = std::get_if<TensorValue>(&value);
  std::string type = t ? std::string(dataTypeName(t->dtype())) : describeValue(value);
  return error("does not support element type " + type + "; cast the input to a supported type", input);
}

void KernelRegistry::add(KernelDef def) {
  defs_.push_back(std::make_unique<KernelDef>(std::move(def)));
}

namespace {
bool sameDomain(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; };
  return norm(a) == norm(b);
}
}  // namespace

const KernelDef* KernelRegistry::find(const Node& node, int opset, std::string_view variant) const {
  const KernelDef* best = nullptr;
  const KernelDef* reference = nullptr;
  for (const auto& def : defs_) {
    if (def->opType != node.opType() || !sameDomain(def->domain, node.domain())) continue;
    if (opset < def->sinceVersion || opset > def->untilVersion) continue;
    if (def->supports && !def->supports(node, opset)) continue;
    if (def->variant == "reference") reference = def.get();
    if (!variant.empty() && def->variant != variant) continue;
    if (!best || def->priority > best->priority) best = def.get();
  }
  // A pinned variant falls back to the reference kernel for ops that have only that.
  return best ? best : (variant.empty() ? nullptr : reference);
}

std::vector<const KernelDef*> KernelRegistry::variants(std::string_view domain,
                                                       std::string_view opType) const {
  std::vector<const KernelDef*> out;
  for (const auto& def : defs_)
    if (def->opType == opType && sameDomain(def->domain, domain)) out.push_back(def.get());
  return out;
}

Expected<void> runReferenceKernel(KernelContext& ctx) {
  const KernelDef* def = cpuKernels().find(ctx.node(), ctx.opset(), "reference");
  if (!def || def->variant != "reference" || !def->function) return ctx.error("has no reference kernel");
  return def->function(ctx);
}

const KernelRegistry& cpuKernels() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerCpuKernels(r);
    return r;
  }();
  return registry;
}

KernelDef kernel(std::string opType, KernelFunction function, int sinceVersion, int untilVersion) {
  KernelDef def;
  def.opType = std::move(opType);
  def.function = function;
  def.sinceVersion = sinceVersion;
  def.untilVersion = untilVersion;
  return def;
}

KernelDef kernelFactory(std::string opType, KernelFactory factory, int sinceVersion) {
  KernelDef def;
  def.opType = std::move(opType);
  def.factory = factory;
  def.sinceVersion = sinceVersion;
  return def;
}

}  // namespace onyx::exec
