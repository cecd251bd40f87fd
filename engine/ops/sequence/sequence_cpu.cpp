// Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement, OptionalGetElement.
#include <cstring>

#include "exec/copy_elements.h"
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<const SequenceValue*> sequenceInput(const KernelContext& ctx, size_t i) {
  const auto* s = std::get_if<SequenceValue>(&ctx.inputValue(i));
  if (!s) return ctx.error("expects a sequence, got " + describeValue(ctx.inputValue(i)), int(i));
  return s;
}

Expected<int64_t> position(const KernelContext& ctx, size_t input, int64_t size, bool insert) {
  if (!ctx.hasInput(input)) return insert ? size : size - 1;
  // position is a scalar int32 or int64 (fuzz audit: an empty position was read past its end).
  const TensorValue& t = ctx.input(input);
  if (t.count() != 1 || (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32))
    return ctx.error("position must be a scalar int32 or int64, got " + describeValue(ctx.inputValue(input)),
                     int(input));
  int64_t p = t.intAt(0);
  int64_t limit = insert ? size + 1 : size;
  if (p < -size || p >= limit)
    return ctx.error(
        "position " + std::to_string(p) + " is out of range for a sequence of " + std::to_string(size),
        int(input));
  return p < 0 ? p + size : p;
}

Expected<void> sequenceEmpty(KernelContext& ctx) {
  SequenceValue s;
  s.elemType = static_cast<DataType>(ctx.attrInt("dtype", int64_t(DataType::Float)));
  ctx.setOutput(0, std::move(s));
  return {};
}

Expected<void> sequenceConstruct(KernelContext& ctx) {
  SequenceValue s;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if (i > 0 && (*t)->dtype() != s.elemType)
      return ctx.error("tensors have different element types", int(i));
    s.elemType = (*t)->dtype();
    s.tensors.push_back(**t);
  }
  ctx.setOutput(0, std::move(s));
  return {};
}

Expected<void> sequenceInsert(KernelContext& ctx) {
  auto s = sequenceInput(ctx, 0);
  if (!s) return s.error();
  auto t = ctx.requireTensor(1);
  if (!t) return t.error();
  SequenceValue out = **s;
  if (!out.tensors.empty() && out.elemType != (*t)->dtype())
    return ctx.error("tensor type differs from the sequence's", 1);
  auto p = position(ctx, 2, int64_t(out.tensors.size()), true);
  if (!p) return p.error();
  out.elemType = (*t)->dtype();
  out.tensors.insert(out.tensors.begin() + *p, **t);
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> sequenceAt(KernelContext& ctx) {
  auto s = sequenceInput(ctx, 0);
  if (!s) return s.error();
  if (!ctx.hasInput(1)) return ctx.error("is missing the position", 1);
  auto p = position(ctx, 1, int64_t((*s)->tensors.size()), false);
  if (!p) return p.error();
  ctx.setOutput(0, (*s)->tensors[size_t(*p)]);
  return {};
}

Expected<void> sequenceErase(KernelContext& ctx) {
  auto s = sequenceInput(ctx, 0);
  if (!s) return s.error();
  SequenceValue out = **s;
  if (out.tensors.empty()) return ctx.error("cannot erase from an empty sequence", 0);
  auto p = position(ctx, 1, int64_t(out.tensors.size()), false);
  if (!p) return p.error();
  out.tensors.erase(out.tensors.begin() + *p);
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> sequenceLength(KernelContext& ctx) {
  auto s = sequenceInput(ctx, 0);
  if (!s) return s.error();
  ctx.setOutput(0, TensorValue::scalar<int64_t>(DataType::Int64, int64_t((*s)->tensors.size())));
  return {};
}

Expected<void> splitToSequence(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt, len = in.dim(axis);
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  std::vector<int64_t> sizes;
  bool scalarSplit = false;
  if (ctx.hasInput(1)) {
    const TensorValue& split = ctx.input(1);
    if (split.rank() == 0) {
      int64_t chunk = split.intAt(0);
      if (chunk <= 0) return ctx.error("split must be positive", 1);
      for (int64_t b = 0; b < len; b += chunk) sizes.push_back(std::min(chunk, len - b));
    } else {
      sizes = split.toInts();
    }
  } else {
    sizes.assign(static_cast<size_t>(len), 1);
    scalarSplit = !keepDims;
  }
  // Every size checked before any part is copied (fuzz audit: sizes past the axis length were copied from
  // past the input's end before their sum was checked).
  const std::string badSplit =
      "split sizes do not add up to the axis length " + std::to_string(len) + " (each must be non-negative)";
  int64_t total = 0;
  for (int64_t n : sizes) {
    if (n < 0 || n > len - total) return ctx.error(badSplit, 1);  // total <= len: len - total cannot overflow
    total += n;
  }
  if (total != len) return ctx.error(badSplit, 1);
  const AxisSplit split = axisSplit(in.dims(), axis);
  const int64_t outer = split.outer, inner = split.inner;
  SequenceValue out;
  out.elemType = in.dtype();
  int64_t begin = 0;
  for (int64_t n : sizes) {
    Dims dims = in.dims();
    dims[size_t(axis)] = n;
    TensorValue t = TensorValue::allocate(in.dtype(), dims);
    for (int64_t o = 0; o < outer; ++o) copyElements(t, o * n * inner, in, (o * len + begin) * inner, n * inner);
    if (scalarSplit) {
      dims.erase(dims.begin() + axis);
      t = t.reshaped(dims);
    }
    out.tensors.push_back(std::move(t));
    begin += n;
  }
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> concatFromSequence(KernelContext& ctx) {
  auto s = sequenceInput(ctx, 0);
  if (!s) return s.error();
  const auto& items = (*s)->tensors;
  if (items.empty()) return ctx.error("cannot concatenate an empty sequence", 0);
  bool newAxis = ctx.attrInt("new_axis", 0) != 0;
  int64_t rank = items[0].rank() + (newAxis ? 1 : 0);
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt;
  // Every part must agree with the first off the concatenation axis (and in rank and type) before any is
  // reshaped or copied: a fuzzed model with differently shaped parts read past the smaller ones.
  for (size_t i = 1; i < items.size(); ++i) {
    const TensorValue& t = items[i];
    if (t.rank() != items[0].rank() || t.dtype() != items[0].dtype())
      return ctx.error("sequence tensor " + std::to_string(i) + " differs from tensor 0 in rank or element type; "
                       "ConcatFromSequence needs tensors alike but for the axis", 0);
    for (int64_t d = 0; d < t.rank(); ++d) {
      const bool concatenated = !newAxis && d == axis;
      if (!concatenated && t.dim(d) != items[0].dim(d))
        return ctx.error("sequence tensor " + std::to_string(i) + " has " + std::to_string(t.dim(d)) +
                         " along axis " + std::to_string(d) + " where tensor 0 has " + std::to_string(items[0].dim(d)) +
                         (newAxis ? "; with new_axis=1 every tensor must have the same shape"
                                  : "; only the concatenation axis may differ"), 0);
    }
  }
  std::vector<TensorValue> parts;
  for (const TensorValue& t : items) {
    Dims d = t.dims();
    if (newAxis) d.insert(d.begin() + axis, 1);
    parts.push_back(t.reshaped(d));
  }
  Dims outDims = parts[0].dims();
  outDims[size_t(axis)] = 0;
  for (const TensorValue& p : parts) {
    if (p.rank() != rank) return ctx.error("sequence tensors differ in rank", 0);
    outDims[size_t(axis)] += p.dim(axis);
  }
  auto y = ctx.allocateOutput(0, parts[0].dtype(), outDims);
  if (!y) return y.error();
  const AxisSplit split = axisSplit(outDims, axis);
  const int64_t outer = split.outer, inner = split.inner;
  int64_t offset = 0, outRow = outDims[size_t(axis)] * inner;
  for (const TensorValue& p : parts) {
    int64_t row = p.dim(axis) * inner;
    for (int64_t o = 0; o < outer; ++o) copyElements(**y, o * outRow + offset, p, o * row, row);
    offset += row;
  }
  return {};
}

Expected<void> optionalKernel(KernelContext& ctx) {
  if (ctx.hasInput(0)) {
    ctx.setOutput(0, ctx.inputValue(0));
    return {};
  }
  Type type;
  if (const Attribute* a = ctx.node().attribute("type")) {
    if (const auto* t = std::get_if<Type>(&a->payload())) type = Type::optional(*t);
  }
  ctx.setOutput(0, EmptyOptional{type});
  return {};
}

Expected<void> optionalHasElement(KernelContext& ctx) {
  const RunValue& v = ctx.inputValue(0);
  bool has = !std::holds_alternative<std::monostate>(v) && !std::holds_alternative<EmptyOptional>(v);
  ctx.setOutput(0, TensorValue::scalar<uint8_t>(DataType::Bool, has ? 1 : 0));
  return {};
}

Expected<void> optionalGetElement(KernelContext& ctx) {
  const RunValue& v = ctx.inputValue(0);
  if (std::holds_alternative<std::monostate>(v) || std::holds_alternative<EmptyOptional>(v))
    return ctx.error("got an empty optional; check OptionalHasElement first", 0);
  ctx.setOutput(0, v);
  return {};
}

}  // namespace

void registerSequenceCpuKernels(KernelRegistry& r) {
  r.add(kernel("SequenceEmpty", sequenceEmpty, 11));
  r.add(kernel("SequenceConstruct", sequenceConstruct, 11));
  r.add(kernel("SequenceInsert", sequenceInsert, 11));
  r.add(kernel("SequenceAt", sequenceAt, 11));
  r.add(kernel("SequenceErase", sequenceErase, 11));
  r.add(kernel("SequenceLength", sequenceLength, 11));
  r.add(kernel("SplitToSequence", splitToSequence, 11));
  r.add(kernel("ConcatFromSequence", concatFromSequence, 11));
  r.add(kernel("Optional", optionalKernel, 15));
  r.add(kernel("OptionalHasElement", optionalHasElement, 15));
  r.add(kernel("OptionalGetElement", optionalGetElement, 15));
}

}  // namespace onyx::exec
