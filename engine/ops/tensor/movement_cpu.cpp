// Data movement: Transpose, Concat, Split, Slice, Gather, GatherElements, GatherND, Tile, Pad, Trilu,
// ScatterND, ScatterElements. Copies go by element size (strings by value).
#include <cstring>

#include "exec/kernel_util.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

template <class F>
bool bySize(DataType dtype, F&& f) {
  return dispatchBySize(dtype, std::forward<F>(f));
}

Expected<void> transposeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  auto permOr = transposePerm(ctx, in);
  if (!permOr) return permOr.error();
  const std::vector<int64_t>& perm = *permOr;
  Dims outDims;
  for (int64_t p : perm) outDims.push_back(in.dim(p));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  std::vector<int64_t> strides;  // input stride per output dim
  for (int64_t p : perm) strides.push_back(inStrides[size_t(p)]);
  int64_t total = in.count();
  if (total == 0) return {};
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t inner = rank ? outDims.back() : 1;
    int64_t innerStride = rank ? strides.back() : 1;
    int64_t rows = total / std::max<int64_t>(inner, 1);
    ctx.parallelFor(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)),
                    [&](int64_t b, int64_t e) {
                      for (int64_t row = b; row < e; ++row) {
                        int64_t off = 0, rest = row;
                        for (int64_t d = rank - 2; d >= 0; --d) {
                          off += (rest % outDims[size_t(d)]) * strides[size_t(d)];
                          rest /= outDims[size_t(d)];
                        }
                        T* o = dst + row * inner;
                        for (int64_t i = 0; i < inner; ++i) o[i] = src[off + i * innerStride];
                      }
                    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> concatKernel(KernelContext& ctx) {
  std::vector<const TensorValue*> inputs;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    inputs.push_back(*t);
  }
  if (inputs.empty()) return ctx.error("needs at least one input");
  const TensorValue& first = *inputs[0];
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), first.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + first.describe(), 0);
  int64_t axis = *axisOpt;
  Dims outDims = first.dims();
  outDims[size_t(axis)] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorValue& t = *inputs[i];
    if (t.rank() != first.rank() || t.dtype() != first.dtype())
      return ctx.error("input " + t.describe() + " does not match " + first.describe(), int(i));
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.dim(d) != first.dim(d))
        return ctx.error("cannot concatenate " + t.describe() + " with " + first.describe() + " on axis " +
                             std::to_string(axis),
                         int(i));
    outDims[size_t(axis)] += t.dim(axis);
  }
  auto y = ctx.allocateOutput(0, first.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= outDims[size_t(d)];
  int64_t innerUnit = 1;
  for (int64_t d = axis + 1; d < first.rank(); ++d) innerUnit *= outDims[size_t(d)];
  int64_t outRow = outDims[size_t(axis)] * innerUnit;
  bool ok = bySize(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    int64_t offset = 0;
    for (const TensorValue* t : inputs) {
      int64_t row = t->dim(axis) * innerUnit;
      const T* src = t->data<T>();
      for (int64_t o = 0; o < outer; ++o)
        std::copy(src + o * row, src + (o + 1) * row, dst + o * outRow + offset);
      offset += row;
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Copies a block [outer][axisLen][inner] range along the axis.
template <class T>
void copyAxisRange(const T* src, T* dst, int64_t outer, int64_t srcAxis, int64_t begin, int64_t len,
                   int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    std::copy(src + (o * srcAxis + begin) * inner, src + (o * srcAxis + begin + len) * inner,
              dst + o * len * inner);
}

Expected<void> splitKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + in.describe(), 0);
  int64_t axis = *axisOpt;
  int64_t n = int64_t(ctx.outputCount());
  std::vector<int64_t> sizes;
  if (ctx.opset() >= 13 && ctx.hasInput(1))
    sizes = ctx.input(1).toInts();
  else if (auto s = ctx.attrInts("split"))
    sizes = *s;
  int64_t len = in.dim(axis);
  if (sizes.empty()) {
    int64_t parts = ctx.opset() >= 18 ? ctx.attrInt("num_outputs", n) : n;
    int64_t chunk = (len + parts - 1) / std::max<int64_t>(parts, 1);
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, len - i * chunk)));
  }
  int64_t sum = 0;
  for (int64_t s : sizes) sum += s;
  if (int64_t(sizes.size()) != n || sum != len)
    return ctx.error("split sizes do not add up to dim " + std::to_string(len) + " of " + in.describe(), 1);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in.dim(d);
  for (int64_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
  int64_t begin = 0;
  for (int64_t i = 0; i < n; ++i) {
    Dims dims = in.dims();
    dims[size_t(axis)] = sizes[size_t(i)];
    auto y = ctx.allocateOutput(size_t(i), in.dtype(), dims);
    if (!y) return y.error();
    bool ok = bySize(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      copyAxisRange(in.data<T>(), (*y)->template data<T>(), outer, len, begin, sizes[size_t(i)], inner);
    });
    if (!ok) return ctx.unsupportedType(0);
    begin += sizes[size_t(i)];
  }
  return {};
}

}  // namespace

Expected<std::vector<int64_t>> transposePerm(const KernelContext& ctx, const TensorValue& in) {
  const std::vector<int64_t> given = ctx.attrInts("perm").value_or(std::vector<int64_t>{});
  if (!given.empty() && int64_t(given.size()) != in.rank())
    return ctx.error("perm has " + std::to_string(given.size()) + " entries for " + in.describe(), 0);
  auto perm = resolvePerm(given, in.rank());
  if (!perm) return ctx.error("perm is not a permutation", 0);
  return *perm;
}

Expected<SliceBounds> sliceBounds(const KernelContext& ctx, const TensorValue& in) {
  int64_t rank = in.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attrInts("starts").value_or(std::vector<int64_t>{});
    ends = ctx.attrInts("ends").value_or(std::vector<int64_t>{});
    axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    starts = ctx.intsInput(1).value_or(std::vector<int64_t>{});
    ends = ctx.intsInput(2).value_or(std::vector<int64_t>{});
    axes = ctx.intsInput(3).value_or(std::vector<int64_t>{});
    steps = ctx.intsInput(4).value_or(std::vector<int64_t>{});
  }
  if (starts.size() != ends.size()) return ctx.error("starts and ends differ in length", 1);
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.error("axes or steps differ in length from starts", 3);
  SliceBounds bounds;
  bounds.begin.assign(size_t(rank), 0);
  bounds.step.assign(size_t(rank), 1);
  bounds.outDims = in.dims();
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return ctx.error("axis " + std::to_string(axes[i]) + " is out of range for " + in.describe(), 3);
    int64_t dim = in.dim(*axis), s = steps[i];
    if (s == 0) return ctx.error("step is 0", 4);
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      bounds.outDims[size_t(*axis)] = e > b ? (e - b + s - 1) / s : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      bounds.outDims[size_t(*axis)] = b > e ? (b - e + (-s) - 1) / (-s) : 0;
    }
    bounds.begin[size_t(*axis)] = b;
    bounds.step[size_t(*axis)] = s;
  }
  return bounds;
}

namespace {

Expected<void> sliceKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  auto bounds = sliceBounds(ctx, in);
  if (!bounds) return bounds.error();
  const std::vector<int64_t>& begin = bounds->begin;
  const std::vector<int64_t>& step = bounds->step;
  const Dims& outDims = bounds->outDims;
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t total = elementCount(outDims);
  if (total == 0) return {};
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t inner = rank ? outDims.back() : 1;
    int64_t rows = total / inner;
    int64_t innerStep = rank ? step.back() * inStrides.back() : 1;
    int64_t innerBegin = rank ? begin.back() * inStrides.back() : 0;
    for (int64_t row = 0; row < rows; ++row) {
      int64_t off = innerBegin, rest = row;
      for (int64_t d = rank - 2; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
        off += (begin[size_t(d)] + i * step[size_t(d)]) * inStrides[size_t(d)];
      }
      T* o = dst + row * inner;
      if (innerStep == 1)
        std::copy(src + off, src + off + inner, o);
      else
        for (int64_t i = 0; i < inner; ++i) o[i] = src[off + i * innerStep];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> gatherKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + in.describe(), 0);
  int64_t axis = *axisOpt;
  Dims outDims(in.dims().begin(), in.dims().begin() + axis);
  for (int64_t d : (*idx)->dims()) outDims.push_back(d);
  for (int64_t d = axis + 1; d < in.rank(); ++d) outDims.push_back(in.dim(d));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1, inner = 1, len = in.dim(axis), n = (*idx)->count();
  for (int64_t d = 0; d < axis; ++d) outer *= in.dim(d);
  for (int64_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
  std::vector<int64_t> indices = (*idx)->toInts();
  for (int64_t& i : indices) {
    if (i < -len || i >= len)
      return ctx.error("index " + std::to_string(i) + " is out of range for dim " + std::to_string(len), 1);
    if (i < 0) i += len;
  }
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        std::copy(src + (o * len + indices[size_t(j)]) * inner,
                  src + (o * len + indices[size_t(j)] + 1) * inner, dst + (o * n + j) * inner);
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Offset into a tensor with `strides` of element `o` of an index tensor with dims `indexDims`, whose
// coordinate along `axis` is replaced by `index` (GatherElements reads there, ScatterElements writes).
// An index outside [-len, len) sets `bad` and reads element 0 of that axis.
int64_t elementOffsetAlongAxis(int64_t o, const std::vector<int64_t>& indexDims, const std::vector<int64_t>& strides,
                               int64_t axis, int64_t index, int64_t len, bool& bad) {
  int64_t rest = o, off = 0;
  for (int64_t d = int64_t(indexDims.size()) - 1; d >= 0; --d) {
    int64_t i = rest % indexDims[size_t(d)];
    rest /= indexDims[size_t(d)];
    if (d == axis) {
      i = index;
      if (i < -len || i >= len) {
        bad = true;
        i = 0;
      }
      if (i < 0) i += len;
    }
    off += i * strides[size_t(d)];
  }
  return off;
}

Expected<void> gatherElementsKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt || (*idx)->rank() != in.rank())
    return ctx.error("axis or index rank does not match " + in.describe(), 1);
  int64_t axis = *axisOpt;
  auto y = ctx.allocateOutput(0, in.dtype(), (*idx)->dims());
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  const Dims& od = (*idx)->dims();
  std::vector<int64_t> indices = (*idx)->toInts();
  int64_t len = in.dim(axis);
  bool bad = false;
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < (*y)->count(); ++o)
      dst[o] = src[elementOffsetAlongAxis(o, od, inStrides, axis, indices[size_t(o)], len, bad)];
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> gatherNDKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  const TensorValue& ind = **idx;
  int64_t b = ctx.attrInt("batch_dims", 0);
  if (ind.rank() < 1) return ctx.error("indices must have rank >= 1", 1);
  int64_t k = ind.dims().back();
  if (b + k > in.rank()) return ctx.error("index depth exceeds the data rank", 1);
  Dims outDims(ind.dims().begin(), ind.dims().end() - 1);
  for (int64_t d = b + k; d < in.rank(); ++d) outDims.push_back(in.dim(d));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t batch = 1;
  for (int64_t d = 0; d < b; ++d) batch *= in.dim(d);
  int64_t slice = 1;
  for (int64_t d = b + k; d < in.rank(); ++d) slice *= in.dim(d);
  int64_t perBatchData = 1;
  for (int64_t d = b; d < in.rank(); ++d) perBatchData *= in.dim(d);
  int64_t tuples = ind.count() / std::max<int64_t>(k, 1);
  if (k == 0) tuples = elementCount(Dims(ind.dims().begin(), ind.dims().end() - 1));
  int64_t tuplesPerBatch = tuples / std::max<int64_t>(batch, 1);
  auto strides = rowMajorStrides(in.dims());
  std::vector<int64_t> indices = ind.toInts();
  bool bad = false;
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t bi = t / std::max<int64_t>(tuplesPerBatch, 1);
      int64_t off = bi * perBatchData;
      for (int64_t j = 0; j < k; ++j) {
        int64_t i = indices[size_t(t * k + j)];
        int64_t dim = in.dim(b + j);
        if (i < -dim || i >= dim) {
          bad = true;
          i = 0;
        }
        if (i < 0) i += dim;
        off += i * strides[size_t(b + j)];
      }
      std::copy(src + off, src + off + slice, dst + t * slice);
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> tileKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto r = ctx.requireTensor(1);
  if (!r) return r.error();
  const TensorValue& in = **x;
  std::vector<int64_t> repeats = (*r)->toInts();
  if (int64_t(repeats.size()) != in.rank())
    return ctx.error("repeats has " + std::to_string(repeats.size()) + " entries for " + in.describe(), 1);
  Dims outDims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (repeats[size_t(d)] < 0) return ctx.error("repeats must be non-negative", 1);
    outDims.push_back(in.dim(d) * repeats[size_t(d)]);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o, off = 0;
      for (int64_t d = in.rank() - 1; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)];
        rest /= outDims[size_t(d)];
        off += (i % in.dim(d)) * inStrides[size_t(d)];
      }
      dst[o] = src[off];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> padKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  std::vector<int64_t> pads;
  std::string mode = ctx.attrString("mode", "constant");
  double constant = 0;
  std::vector<int64_t> axes;
  if (ctx.opset() < 11) {
    pads = ctx.attrInts("pads").value_or(ctx.attrInts("paddings").value_or(std::vector<int64_t>{}));
    constant = ctx.attrFloat("value", 0);
  } else {
    pads = ctx.intsInput(1).value_or(std::vector<int64_t>{});
    if (ctx.hasInput(2) && ctx.input(2).count() > 0) constant = ctx.input(2).doubleAt(0);
    axes = ctx.intsInput(3).value_or(std::vector<int64_t>{});
  }
  std::vector<int64_t> before(size_t(rank), 0), after(static_cast<size_t>(rank), 0);
  if (axes.empty()) {
    if (int64_t(pads.size()) != 2 * rank)
      return ctx.error("pads has " + std::to_string(pads.size()) + " entries for " + in.describe(), 1);
    for (int64_t d = 0; d < rank; ++d) {
      before[size_t(d)] = pads[size_t(d)];
      after[size_t(d)] = pads[size_t(d + rank)];
    }
  } else {
    int64_t n = int64_t(axes.size());
    if (int64_t(pads.size()) != 2 * n) return ctx.error("pads does not match axes", 1);
    for (int64_t i = 0; i < n; ++i) {
      auto a = normalizeAxis(axes[size_t(i)], rank);
      if (!a) return ctx.error("axis out of range", 3);
      before[size_t(*a)] = pads[size_t(i)];
      after[size_t(*a)] = pads[size_t(i + n)];
    }
  }
  Dims outDims;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = in.dim(d) + before[size_t(d)] + after[size_t(d)];
    if (n < 0) return ctx.error("pads make a negative dim", 1);
    outDims.push_back(n);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  bool ok = dispatchType<kNumbers | kBool>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    T fill = fromCompute<T>(ComputeType<T>(constant));
    for (int64_t o = 0; o < (*y)->count(); ++o) {
      int64_t rest = o, off = 0;
      bool outside = false;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t i = rest % outDims[size_t(d)] - before[size_t(d)];
        rest /= outDims[size_t(d)];
        int64_t n = in.dim(d);
        if (i < 0 || i >= n) {
          if (mode == "constant" || n == 0) {
            outside = true;
          } else if (mode == "edge") {
            i = std::clamp<int64_t>(i, 0, n - 1);
          } else if (mode == "reflect") {
            int64_t period = std::max<int64_t>(2 * (n - 1), 1);
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          } else if (mode == "wrap") {
            i = ((i % n) + n) % n;
          }
        }
        off += i * inStrides[size_t(d)];
      }
      dst[o] = outside ? fill : src[off];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> triluKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() < 2) return ctx.error("needs rank >= 2, got " + in.describe(), 0);
  int64_t k = ctx.hasInput(1) ? ctx.input(1).intAt(0) : 0;
  bool upper = ctx.attrInt("upper", 1) != 0;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
  bool ok = bySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    // Row by row: the kept columns are one range, j - i >= k (upper) or j - i <= k (lower).
    const int64_t matrixRows = in.count() / std::max<int64_t>(cols, 1);
    for (int64_t r = 0; r < matrixRows; ++r) {
      const int64_t i = r % std::max<int64_t>(rows, 1);
      const int64_t from = upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
      const int64_t to = upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
      const T* in = src + r * cols;
      T* out = dst + r * cols;
      const int64_t end = std::max(from, to);
      for (int64_t j = 0; j < cols; ++j) out[j] = j >= from && j < end ? in[j] : T{};
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

template <class T>
T reduceScatter(T a, T b, const std::string& reduction) {
  using Cm = ComputeType<T>;
  if (reduction == "add") return fromCompute<T>(Cm(a) + Cm(b));
  if (reduction == "mul") return fromCompute<T>(Cm(a) * Cm(b));
  if (reduction == "max") return Cm(a) >= Cm(b) ? a : b;
  if (reduction == "min") return Cm(a) <= Cm(b) ? a : b;
  return b;
}

Expected<void> scatterNDKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  auto upd = ctx.requireTensor(2);
  if (!upd) return upd.error();
  const TensorValue& in = **x;
  std::string reduction = ctx.attrString("reduction", "none");
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  int64_t k = (*idx)->dims().back();
  if (k > in.rank()) return ctx.error("index depth exceeds the data rank", 1);
  int64_t slice = 1;
  for (int64_t d = k; d < in.rank(); ++d) slice *= in.dim(d);
  auto strides = rowMajorStrides(in.dims());
  std::vector<int64_t> indices = (*idx)->toInts();
  int64_t tuples = k ? int64_t(indices.size()) / k : 0;
  bool bad = false;
  bool ok = dispatchType<kNumbers | kBool | kString>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in.data<T>(), in.data<T>() + in.count(), (*y)->template data<T>());
    T* dst = (*y)->template data<T>();
    const T* u = (*upd)->template data<T>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t i = indices[size_t(t * k + j)], dim = in.dim(j);
        if (i < -dim || i >= dim) {
          bad = true;
          i = 0;
        }
        if (i < 0) i += dim;
        off += i * strides[size_t(j)];
      }
      for (int64_t s = 0; s < slice; ++s) {
        if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>)
          dst[off + s] = u[t * slice + s];
        else
          dst[off + s] = reduceScatter(dst[off + s], u[t * slice + s], reduction);
      }
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> scatterElementsKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  auto upd = ctx.requireTensor(2);
  if (!upd) return upd.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt;
  std::string reduction = ctx.attrString("reduction", "none");
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  auto strides = rowMajorStrides(in.dims());
  const Dims& id = (*idx)->dims();
  std::vector<int64_t> indices = (*idx)->toInts();
  int64_t len = in.dim(axis);
  bool bad = false;
  bool ok = dispatchType<kNumbers | kBool | kString>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in.data<T>(), in.data<T>() + in.count(), (*y)->template data<T>());
    T* dst = (*y)->template data<T>();
    const T* u = (*upd)->template data<T>();
    for (int64_t o = 0; o < int64_t(indices.size()); ++o) {
      int64_t off = elementOffsetAlongAxis(o, id, strides, axis, indices[size_t(o)], len, bad);
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>)
        dst[off] = u[o];
      else
        dst[off] = reduceScatter(dst[off], u[o], reduction);
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerMovementCpuKernels(KernelRegistry& r) {
  r.add(kernel("Transpose", transposeKernel, 1));
  r.add(kernel("Concat", concatKernel, 1));
  r.add(kernel("Split", splitKernel, 1));
  r.add(kernel("Slice", sliceKernel, 1));
  r.add(kernel("Gather", gatherKernel, 1));
  r.add(kernel("GatherElements", gatherElementsKernel, 11));
  r.add(kernel("GatherND", gatherNDKernel, 11));
  r.add(kernel("Tile", tileKernel, 6));
  r.add(kernel("Pad", padKernel, 1));
  r.add(kernel("Trilu", triluKernel, 14));
  r.add(kernel("ScatterND", scatterNDKernel, 11));
  r.add(kernel("ScatterElements", scatterElementsKernel, 11));
  r.add(kernel("Scatter", scatterElementsKernel, 9, 10));
}

}  // namespace onyx::exec
