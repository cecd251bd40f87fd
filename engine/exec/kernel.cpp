#include "exec/kernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "exec/elementwise.h"
#include "exec/kernel_util.h"
#include "exec/thread_pool.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {
const TensorValue kNoTensor;
const RunValue kAbsent;

// The tensor whose dim d is `in`'s dim perm[d], in row-major storage.
TensorValue permuteTensor(const TensorValue& in, const std::vector<int64_t>& perm) {
  const TensorValue plain = in.toPlainLayout();
  Dims dims;
  for (int64_t p : perm) dims.push_back(plain.dim(p));
  // A permutation that moves only size-1 dims keeps the storage order (an RNN's [seq, 1, C] read as
  // [1, seq, C]): a view, no copy.
  int64_t lastMoved = -1;
  bool keepsOrder = true;
  for (int64_t p : perm) {
    if (plain.dim(p) == 1) continue;
    keepsOrder = keepsOrder && p > lastMoved;
    lastMoved = p;
  }
  if (keepsOrder) return plain.reshaped(dims);
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

// The parts joined along `axis`, in row-major storage: per outer index, each part's block in turn.
TensorValue concatenate(const std::vector<const TensorValue*>& parts, int64_t axis) {
  std::vector<TensorValue> plain;
  for (const TensorValue* p : parts) plain.push_back(p->toPlainLayout());
  Dims dims = plain[0].dims();
  dims[size_t(axis)] = 0;
  for (const TensorValue& p : plain) dims[size_t(axis)] += p.dim(axis);
  TensorValue out = TensorValue::allocate(plain[0].dtype(), dims);
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[size_t(d)];
  const size_t bytes = elementBytes(out.dtype());
  const bool strings = out.dtype() == DataType::String;
  int64_t at = 0;  // elements of the output written
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorValue& p : plain) {
      const int64_t block = outer ? p.count() / outer : 0;
      if (strings) {
        for (int64_t k = 0; k < block; ++k) out.data<std::string>()[at + k] = p.data<std::string>()[o * block + k];
      } else if (block > 0) {
        std::memcpy(static_cast<char*>(out.raw()) + size_t(at) * bytes,
                    static_cast<const char*>(p.raw()) + size_t(o * block) * bytes, size_t(block) * bytes);
      }
      at += block;
    }
  }
  return out;
}

bool isScale(const Node* folded) { return folded && folded->opType() == "Mul"; }

// A folded Mul's product, for a kernel that reads the input whole (checkConcatenatedInputs checked the
// operands: one float type, broadcasting dims).
TensorValue multiplied(const KernelContext& ctx, const TensorValue& a0, const TensorValue& b0) {
  const TensorValue a = a0.toPlainLayout();
  const TensorValue b = b0.toPlainLayout();
  const BinaryLayout layout = *binaryLayout(a.dims(), b.dims());
  TensorValue out = TensorValue::allocate(a.dtype(), layout.outDims);
  if (a.dtype() == DataType::Double) {
    binaryLoop(ctx, layout, a.data<double>(), b.data<double>(), out.data<double>(),
               [](double x, double y) { return x * y; });
  } else if (a.dtype() == DataType::Float16) {
    throughFloats(a, b, out,
                  [&](const float* fa, const float* fb, float* fy) { arithLoop(ctx, layout, Arith::Mul, fa, fb, fy); });
  } else {
    arithLoop(ctx, layout, Arith::Mul, a.data<float>(), b.data<float>(), out.data<float>());
  }
  return out;
}

std::string inputLabel(const Node& node, int index) {
  const Value* value = node.input(size_t(index));
  return "input " + std::to_string(index) + (value ? " '" + value->name() + "'" : "");
}
}  // namespace

bool KernelContext::hasInput(size_t i) const {
  if (i < concats_.size() && concats_[i]) return true;
  return i < inputs_.size() && inputs_[i] && !std::holds_alternative<std::monostate>(*inputs_[i]);
}

const RunValue& KernelContext::inputValue(size_t i) const {
  const bool concatenated = i < concats_.size() && concats_[i];
  const RunValue& stored = i < inputs_.size() && inputs_[i] ? *inputs_[i] : kAbsent;
  const bool transposed = i < transposes_.size() && transposes_[i] && std::holds_alternative<TensorValue>(stored);
  if (!concatenated && !transposed) return stored;
  if (made_.size() <= i) made_.resize(i + 1);
  RunValue& made = made_[i];
  if (std::holds_alternative<std::monostate>(made)) {
    // The executor checks every permutation and concatenation before the kernel runs.
    if (concatenated) {
      if (!checkConcatenatedInputs()) return kAbsent;
      if (auto scaled = scaledInput(i))
        made = multiplied(*this, *scaled->first, *scaled->second);
      else
        made = concatenate(inputParts(i), concatAxis(i));
    } else {
      auto perm = inputPermutation(i);
      if (!perm) return kAbsent;
      made = permuteTensor(std::get<TensorValue>(stored), *perm);
    }
  }
  return made;
}

void KernelContext::setTransposedInputs(std::span<const Node* const> transposes) {
  transposes_ = transposes;
  made_.clear();
}

void KernelContext::setConcatenatedInputs(std::span<const Node* const> concats,
                                          std::span<const RunValue* const> parts) {
  concats_ = concats;
  parts_ = parts;
  made_.clear();
}

std::span<const RunValue* const> KernelContext::partValues(size_t i) const {
  if (i >= concats_.size() || !concats_[i]) return {};
  size_t begin = 0;
  for (size_t k = 0; k < i; ++k)
    if (concats_[k]) begin += concats_[k]->inputCount();
  const size_t count = concats_[i]->inputCount();
  return begin + count <= parts_.size() ? parts_.subspan(begin, count) : std::span<const RunValue* const>{};
}

std::optional<std::pair<const TensorValue*, const TensorValue*>> KernelContext::scaledInput(size_t i) const {
  if (i >= concats_.size() || !isScale(concats_[i])) return std::nullopt;
  std::span<const RunValue* const> values = partValues(i);
  if (values.size() != 2) return std::nullopt;
  const auto* a = values[0] ? std::get_if<TensorValue>(values[0]) : nullptr;
  const auto* b = values[1] ? std::get_if<TensorValue>(values[1]) : nullptr;
  if (!a || !b) return std::nullopt;
  if (b->count() > a->count()) std::swap(a, b);
  return std::make_pair(a, b);
}

std::vector<const TensorValue*> KernelContext::inputParts(size_t i) const {
  std::vector<const TensorValue*> out;
  if (i < concats_.size() && isScale(concats_[i])) return out;
  for (const RunValue* part : partValues(i)) {
    const auto* t = part ? std::get_if<TensorValue>(part) : nullptr;
    out.push_back(t ? t : &kNoTensor);
  }
  return out;
}

int64_t KernelContext::concatAxis(size_t i) const {
  std::vector<const TensorValue*> parts = inputParts(i);
  const int64_t rank = parts.empty() ? 0 : parts[0]->rank();
  const int64_t axis = concats_[i]->attrInt("axis", 0);
  return axis < 0 ? axis + rank : axis;
}

Expected<void> KernelContext::checkConcatenatedInputs() const {
  for (size_t i = 0; i < concats_.size(); ++i) {
    if (!concats_[i]) continue;
    if (isScale(concats_[i])) {
      auto scaled = scaledInput(i);
      const Node& mul = *concats_[i];
      if (!scaled)
        return makeError("Mul expects two tensors", mul.describe());
      const TensorValue& x = *scaled->first;
      const TensorValue& s = *scaled->second;
      const DataType t = x.dtype();
      if (s.dtype() != t || (t != DataType::Float && t != DataType::Double && t != DataType::Float16))
        return makeError("Mul folded into " + node_.describe() + " multiplies " + x.describe() + " by " +
                             s.describe() + ": both must be float, double or float16 of one type",
                         mul.describe());
      if (!binaryLayout(x.dims(), s.dims()))
        return makeError("Mul cannot broadcast " + s.describe() + " to " + x.describe(), mul.describe());
      continue;
    }
    const Node& concat = *concats_[i];
    std::span<const RunValue* const> values = partValues(i);
    if (values.empty()) return makeError("has no parts to concatenate", concat.describe());
    for (size_t k = 0; k < values.size(); ++k)
      if (!values[k] || !std::holds_alternative<TensorValue>(*values[k]))
        return makeError("Concat expects a tensor for " + inputLabel(concat, int(k)) + ", got " +
                             (values[k] ? describeValue(*values[k]) : std::string("nothing")),
                         concat.describe());
    std::vector<const TensorValue*> parts = inputParts(i);
    const TensorValue& first = *parts[0];
    const int64_t axis = concatAxis(i);
    if (axis < 0 || axis >= first.rank())
      return makeError("Concat axis " + std::to_string(concat.attrInt("axis", 0)) + " is out of range for " +
                           first.describe(),
                       concat.describe());
    for (size_t k = 1; k < parts.size(); ++k) {
      const TensorValue& t = *parts[k];
      bool joins = t.dtype() == first.dtype() && t.rank() == first.rank();
      for (int64_t d = 0; joins && d < t.rank(); ++d) joins = d == axis || t.dim(d) == first.dim(d);
      if (!joins)
        return makeError("Concat cannot join " + t.describe() + " with " + first.describe() + " along axis " +
                             std::to_string(axis) + ": every other dim and the type must match",
                         concat.describe() + ", " + inputLabel(concat, int(k)));
    }
  }
  return {};
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
  if (auto scaled = scaledInput(i)) {
    auto layout = binaryLayout(scaled->first->dims(), scaled->second->dims());
    return layout ? layout->outDims : Dims();
  }
  if (i < concats_.size() && concats_[i]) {
    std::vector<const TensorValue*> parts = inputParts(i);
    const int64_t axis = concatAxis(i);
    if (parts.empty() || axis < 0 || axis >= parts[0]->rank()) return {};
    Dims dims = parts[0]->dims();
    for (size_t k = 1; k < parts.size(); ++k) dims[size_t(axis)] += parts[k]->dim(axis);
    return dims;
  }
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
  // Outputs sized from data (Expand's shape, OneHot's depth, Tile's repeats) are checked before allocating.
  if (!tensorSizeFits(dims, int64_t(elementBytes(dtype)))) {
    auto size = checkTensorSize(dims, int64_t(elementBytes(dtype)),
                                node_.opType() + " output " + std::to_string(i) + " (" +
                                    std::string(dataTypeName(dtype)) + ")",
                                node_.describe());
    if (!size) return size.error();
  }
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

void KernelRegistry::add(KernelDef def, std::source_location where) {
  if (!def.source) def.source = where.file_name();
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

std::optional<ClipBounds> epilogueClipBounds(const EpilogueOp& op) {
  const Node& node = *op.node;
  ClipBounds bounds{std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
  if (op.opset < 11) {
    bounds.lo = node.attrFloat("min", bounds.lo);
    bounds.hi = node.attrFloat("max", bounds.hi);
  } else {
    for (size_t k = 1; k < 3 && k < op.inputs.size(); ++k) {
      const onyx::Value* bound = node.input(k);
      if (!bound || bound->name().empty()) continue;
      const onyx::Tensor* t = k < op.constants.size() ? op.constants[k] : nullptr;
      if (!t || t->dtype() != DataType::Float || t->elementCount() != 1) return std::nullopt;
      (k == 1 ? bounds.lo : bounds.hi) = TensorValue::fromConstant(*t).data<float>()[0];
    }
  }
  if (!(bounds.lo <= bounds.hi)) return std::nullopt;
  return bounds;
}

}  // namespace onyx::exec
