// Shape functions of ops that join, split and index tensors: Concat, Split, Slice, Gather, GatherND,
// GatherElements. They also carry small values, because shape arithmetic slices and gathers shape vectors.
#include <algorithm>

#include "ops/tensor/slice_range.h"
#include "ops/tensor/tensor_shapes.h"

namespace onyx::tensor_shapes {

using namespace shapes;

Expected<void> inferConcat(ShapeContext& ctx) {
  DataType elem = DataType::Undefined;
  std::optional<Shape> reference;
  size_t referenceInput = 0;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    if (elem == DataType::Undefined) elem = ctx.inputElemType(i);
    if (!reference && ctx.inputShape(i)) {
      reference = ctx.inputShape(i);
      referenceInput = i;
    }
  }
  if (!reference) return ctx.setOutputUnknownRank(0, elem, ctx.rankOriginOf(0)), Expected<void>();
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", ctx.opset() < 4 ? 1 : 0), reference->size());
  if (!axis) return axis.error();
  Shape out = *reference;
  Dim total(0);
  bool allValues = true;
  std::vector<Dim> value;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.hasInput(i)) continue;
    const auto& shape = ctx.inputShape(i);
    if (!shape) {
      total = Dim::unknown(ctx.rankOriginOf(i));
      allValues = false;
      continue;
    }
    if (shape->size() != out.size()) {
      return ctx.error("Concat inputs must have the same rank: " + ctx.describeInput(referenceInput) + " has " +
                       shapeToString(*reference) + " but " + ctx.describeInput(i) + " has " + shapeToString(*shape));
    }
    for (size_t k = 0; k < out.size(); ++k) {
      if (k == *axis || i == referenceInput) continue;
      auto same = ctx.requireEqual(out[k], referenceInput, (*shape)[k], i, "Concat dims off the axis");
      if (!same) return same.error();
      out[k] = *same;
    }
    total = dimAdd(total, (*shape)[*axis]);
    const auto& inputValue = ctx.inputValue(i);
    if (inputValue && allValues) value.insert(value.end(), inputValue->begin(), inputValue->end());
    else allValues = false;
  }
  out[*axis] = total;
  ctx.setOutputTensor(0, elem, out);
  // Row-major values concatenate by appending when every dim before the axis is 1.
  bool leadingOnes = true;
  for (size_t k = 0; k < *axis; ++k) leadingOnes = leadingOnes && out[k].value() == 1;
  if (allValues && leadingOnes && trackableValueShape(out)) ctx.setOutputValue(0, std::move(value));
  return {};
}

Expected<void> inferSplit(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  size_t outputs = ctx.outputCount();
  if (!ctx.inputShape(0)) {
    for (size_t i = 0; i < outputs; ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& in = *ctx.inputShape(0);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), in.size());
  if (!axis) return axis.error();
  auto split = intsArgument(ctx, "split", 1, 13);
  std::vector<Dim> sizes;
  const Dim& d = in[*axis];
  if (split.state == IntsArgument::State::Known) {
    if (split.values.size() != outputs) {
      return ctx.error("Split gives " + std::to_string(split.values.size()) + " sizes for " + std::to_string(outputs) + " outputs");
    }
    int64_t sum = 0;
    for (int64_t v : split.values) {
      if (v < 0) return ctx.error("Split size " + std::to_string(v) + " is negative");
      sum += v;
    }
    if (auto v = d.value(); v && *v != sum) {
      return ctx.error("Split sizes add up to " + std::to_string(sum) + " but axis " + std::to_string(*axis) + " of " + ctx.describeInput(0) + " has " + std::to_string(*v));
    }
    sizes = dimsFromInts(split.values);
  } else if (split.state == IntsArgument::State::Runtime) {
    sizes.assign(outputs, ctx.unknownDim(runtimeReason(ctx, 1, "the split sizes")));
  } else {
    int64_t n = static_cast<int64_t>(outputs);
    // fuzz_shapes: a Split with no outputs divided by zero under UBSan.
    if (n == 0) return ctx.error("Split has no outputs: give it one output per part");
    if (auto v = d.value()) {
      int64_t chunk = (*v + n - 1) / n;
      if (*v % n != 0 && ctx.opset() < 18) {
        return ctx.error("Split cannot divide axis size " + std::to_string(*v) + " into " + std::to_string(n) + " equal parts");
      }
      for (int64_t i = 0; i < n; ++i) sizes.emplace_back(std::max<int64_t>(0, std::min(chunk, *v - i * chunk)));
    } else {
      sizes.assign(outputs, dimFloorDiv(d, Dim(n)));
    }
  }
  const auto& value = ctx.inputValue(0);
  int64_t offset = 0;
  for (size_t i = 0; i < outputs; ++i) {
    Shape out = in;
    out[*axis] = sizes[i];
    ctx.setOutputTensor(i, elem, out);
    auto length = sizes[i].value();
    if (value && in.size() == 1 && length && offset + *length <= static_cast<int64_t>(value->size())) {
      ctx.setOutputValue(i, std::vector<Dim>(value->begin() + offset, value->begin() + offset + *length));
    }
    offset += length.value_or(0);
  }
  return {};
}

namespace {

constexpr int64_t kToTheEnd = int64_t{1} << 30;  // bounds at least this large mean "to the end"

// Length of a slice [start, end) with `step` along a dim of size `d` (ONNX clamping rules). Symbolic dims
// assume the bounds fall inside the dim, as exporters write them.
Dim sliceLength(const Dim& d, const Dim& start, const Dim& end, int64_t step) {
  auto dv = d.value(), sv = start.value(), ev = end.value();
  if (dv && sv && ev) return Dim(exec::sliceRange(*dv, *sv, *ev, step).count);
  if (d.isUnknown()) return d;
  auto position = [&](const Dim& bound, bool isStart) -> Dim {
    auto v = bound.value();
    if (!v) return bound;
    if (step > 0) {
      if (*v >= kToTheEnd) return d;
      if (*v < 0) return *v <= -kToTheEnd ? Dim(0) : dimAdd(d, Dim(*v));
      return bound;
    }
    if (*v >= kToTheEnd) return dimSub(d, Dim(1));
    if (*v <= -kToTheEnd) return isStart ? Dim(0) : Dim(-1);
    return *v < 0 ? dimAdd(d, Dim(*v)) : bound;
  };
  Dim s = position(start, true), e = position(end, false);
  if (step > 0) return step == 1 ? dimSub(e, s) : dimCeilDiv(dimSub(e, s), Dim(step));
  return dimCeilDiv(dimSub(s, e), Dim(step == INT64_MIN ? INT64_MAX : -step));
}

}  // namespace

Expected<void> inferSlice(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& in = *ctx.inputShape(0);
  std::vector<Dim> starts, ends;
  std::vector<int64_t> axes, steps;
  if (ctx.opset() < 10) {
    auto s = ctx.attrInts("starts"), e = ctx.attrInts("ends");
    if (!s || !e) return ctx.error("Slice-1 needs 'starts' and 'ends' attributes");
    starts = dimsFromInts(*s);
    ends = dimsFromInts(*e);
    if (auto a = ctx.attrInts("axes")) axes = *a;
  } else {
    const auto& s = ctx.inputValue(1);
    const auto& e = ctx.inputValue(2);
    auto a = ctx.hasInput(3) ? ctx.inputInts(3) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    auto st = ctx.hasInput(4) ? ctx.inputInts(4) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    if (!s || !e || !a || !st) {
      // Which axes change is unknown unless the axes are known; the rank stays.
      size_t runtimeInput = !s ? 1 : (!e ? 2 : (!a ? 3 : 4));
      std::string reason = runtimeReason(ctx, runtimeInput, "the slice bounds");
      Shape out = in;
      if (a && !a->empty()) {
        auto normalized = normalizeAxes(ctx, *a, in.size());
        if (!normalized) return normalized.error();
        for (size_t axis : *normalized) out[axis] = ctx.unknownDim(reason);
      } else {
        out = ctx.unknownDims(in.size(), reason);
      }
      ctx.setOutputTensor(0, elem, std::move(out));
      return {};
    }
    starts = *s;
    ends = *e;
    axes = *a;
    steps = *st;
  }
  if (starts.size() != ends.size()) return ctx.error("Slice has " + std::to_string(starts.size()) + " starts but " + std::to_string(ends.size()) + " ends");
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) return ctx.error("Slice starts, ends, axes and steps differ in length");
  auto normalized = normalizeAxes(ctx, axes, in.size());
  if (!normalized) return normalized.error();
  Shape out = in;
  for (size_t i = 0; i < normalized->size(); ++i) {
    if (steps[i] == 0) return ctx.error("Slice step is 0");
    size_t axis = (*normalized)[i];
    out[axis] = sliceLength(in[axis], starts[i], ends[i], steps[i]);
  }
  ctx.setOutputTensor(0, elem, out);
  const auto& value = ctx.inputValue(0);
  auto inDims = staticDims(in);
  auto outDims = staticDims(out);
  if (value && inDims && outDims) {
    // Per axis: the first source index and the step (bounds are static when the output dims are).
    std::vector<int64_t> first(in.size(), 0), stride(in.size(), 1);
    bool known = true;
    for (size_t i = 0; i < normalized->size(); ++i) {
      size_t axis = (*normalized)[i];
      auto s = starts[i].value();
      if (!s) known = false;
      int64_t n = (*inDims)[axis], step = steps[i];
      int64_t begin = s ? (*s < 0 ? *s + n : *s) : 0;
      begin = step > 0 || n == 0 ? std::clamp<int64_t>(begin, 0, n) : std::clamp<int64_t>(begin, 0, n - 1);
      first[axis] = begin;
      stride[axis] = step;
    }
    if (known) {
      auto sliced = rearrangeValue(*value, *inDims, *outDims, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> from(index.size());
        for (size_t k = 0; k < index.size(); ++k) from[k] = first[k] + index[k] * stride[k];
        return from;
      });
      if (sliced) ctx.setOutputValue(0, std::move(*sliced));
    }
  }
  return {};
}

Expected<void> inferGather(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const Shape& data = *ctx.inputShape(0);
  const Shape& indices = *ctx.inputShape(1);
  if (data.empty()) return ctx.error("Gather needs data of rank >= 1");
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), data.size());
  if (!axis) return axis.error();
  Shape out(data.begin(), data.begin() + *axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + *axis + 1, data.end());
  ctx.setOutputTensor(0, elem, out);
  const auto& value = ctx.inputValue(0);
  auto picks = ctx.inputInts(1);
  if (value && data.size() == 1 && picks && indices.size() <= 1) {
    int64_t n = static_cast<int64_t>(value->size());
    std::vector<Dim> gathered;
    for (int64_t index : *picks) {
      if (index < -n || index >= n) {
        return ctx.error("Gather index " + std::to_string(index) + " is out of range for " + std::to_string(n) + " elements of " + ctx.describeInput(0));
      }
      gathered.push_back((*value)[index < 0 ? index + n : index]);
    }
    ctx.setOutputValue(0, std::move(gathered));
  }
  return {};
}

Expected<void> inferGatherND(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const Shape& data = *ctx.inputShape(0);
  const Shape& indices = *ctx.inputShape(1);
  const int64_t batchDims = ctx.attrInt("batch_dims", 0);
  if (indices.empty()) return ctx.error("GatherND indices must have rank >= 1");
  // Checked as signed values before any iterator moves by them (fuzz_run: a batch_dims past the indices' rank
  // made a negative range, std::length_error).
  if (batchDims < 0 || batchDims >= int64_t(std::min(data.size(), indices.size())))
    return ctx.error("GatherND batch_dims " + std::to_string(batchDims) +
                     " must be at least 0 and less than the ranks of the data and the indices");
  const size_t batch = size_t(batchDims);
  auto last = indices.back().value();
  if (!last) {
    ctx.setOutputUnknownRank(0, elem, ctx.origin("GatherND: the last dim of the indices is not static"));
    return {};
  }
  if (*last < 1 || *last > int64_t(data.size() - batch))
    return ctx.error("GatherND indices address " + std::to_string(*last) + " dims; the data has " +
                     std::to_string(data.size() - batch) + " after its batch dims (1 to that many)");
  Shape out(data.begin(), data.begin() + batch);
  out.insert(out.end(), indices.begin() + batch, indices.end() - 1);
  out.insert(out.end(), data.begin() + batch + *last, data.end());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferGatherElements(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 1, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(1));
  return {};
}

}  // namespace onyx::tensor_shapes
