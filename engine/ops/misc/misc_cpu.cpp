// Assorted ops: Dropout (inference), Shrink, Swish, CumSum, CumProd, EyeLike, OneHot, DepthToSpace,
// SpaceToDepth, Compress, QuantizeLinear, DequantizeLinear.
#include <cmath>
#include <cstring>

#include "exec/kernel_util.h"
#include "exec/narrow_types.h"

namespace onyx::exec {
namespace {

Expected<void> dropoutKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  bool training = ctx.hasInput(2) && ctx.input(2).count() && ctx.input(2).intAt(0) != 0;
  double ratio =
      ctx.hasInput(1) && ctx.input(1).count() ? ctx.input(1).doubleAt(0) : ctx.attrFloat("ratio", 0.5f);
  if (training && ratio > 0)
    return ctx.error("training-mode dropout is random; run it with training_mode false", 2);
  ctx.setOutput(0, **x);
  if (ctx.wantsOutput(1)) {
    auto mask = ctx.allocateOutput(1, DataType::Bool, (*x)->dims());
    if (!mask) return mask.error();
    std::memset((*mask)->raw(), 1, (*mask)->byteSize());
  }
  return {};
}

template <class F>
Expected<void> mapFloat(KernelContext& ctx, F f) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto y = ctx.allocateOutput(0, (*x)->dtype(), (*x)->dims());
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>((*x)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      double v = f(double(ComputeType<T>((*x)->template data<T>()[i])));
      if constexpr (std::is_integral_v<T>)
        (*y)->template data<T>()[i] = T(v);
      else
        (*y)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(v));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> shrinkKernel(KernelContext& ctx) {
  double lambd = ctx.attrFloat("lambd", 0.5f), bias = ctx.attrFloat("bias", 0.0f);
  return mapFloat(ctx, [=](double v) { return v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0); });
}

Expected<void> swishKernel(KernelContext& ctx) {
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return mapFloat(ctx, [=](double v) { return v / (1.0 + std::exp(-alpha * v)); });
}

// CumSum and CumProd share the scan; `product` picks the combining operation and its identity.
Expected<void> cumulativeKernel(KernelContext& ctx, bool product) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto axisT = ctx.requireTensor(1);
  if (!axisT) return axisT.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis((*axisT)->intAt(0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range", 1);
  bool exclusive = ctx.attrInt("exclusive", 0) != 0, reverse = ctx.attrInt("reverse", 0) != 0;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  int64_t axis = *axisOpt, len = in.dim(axis), outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in.dim(d);
  for (int64_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);
  bool ok = dispatchType<kNumbers>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        Cm acc = product ? Cm(1) : Cm(0);
        auto combine = [&](Cm a, Cm b) { return product ? Cm(a * b) : Cm(a + b); };
        for (int64_t s = 0; s < len; ++s) {
          int64_t k = reverse ? len - 1 - s : s;
          int64_t at = (o * len + k) * inner + i;
          if (exclusive) {
            dst[at] = fromCompute<T>(acc);
            acc = combine(acc, Cm(src[at]));
          } else {
            acc = combine(acc, Cm(src[at]));
            dst[at] = fromCompute<T>(acc);
          }
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> cumSumKernel(KernelContext& ctx) {
  return cumulativeKernel(ctx, false);
}
Expected<void> cumProdKernel(KernelContext& ctx) {
  return cumulativeKernel(ctx, true);
}

Expected<void> eyeLikeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  if ((*x)->rank() != 2) return ctx.error("needs a 2-D input, got " + (*x)->describe(), 0);
  DataType dtype = ctx.hasAttr("dtype") ? static_cast<DataType>(ctx.attrInt("dtype", 1)) : (*x)->dtype();
  int64_t k = ctx.attrInt("k", 0);
  auto y = ctx.allocateOutput(0, dtype, (*x)->dims());
  if (!y) return y.error();
  int64_t rows = (*x)->dim(0), cols = (*x)->dim(1);
  bool ok = dispatchType<kNumbers | kBool>(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        dst[i * cols + j] = fromCompute<T>(ComputeType<T>(j - i == k ? 1 : 0));
  });
  return ok ? Expected<void>()
            : ctx.error("does not support output type " + std::string(dataTypeName(dtype)));
}

Expected<void> oneHotKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& indices = ctx.input(0);
  int64_t depth = int64_t(ctx.input(1).doubleAt(0));
  const TensorValue& values = ctx.input(2);
  if (depth <= 0 || values.count() != 2) return ctx.error("needs a positive depth and two values", 1);
  int64_t rank = indices.rank() + 1;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt;
  Dims outDims = indices.dims();
  outDims.insert(outDims.begin() + axis, depth);
  auto y = ctx.allocateOutput(0, values.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= indices.dim(d);
  for (int64_t d = axis; d < indices.rank(); ++d) inner *= indices.dim(d);
  bool ok = dispatchBySize(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = values.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t d = 0; d < depth; ++d)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t idx = int64_t(indices.doubleAt(o * inner + i));
          if (idx < 0) idx += depth;
          dst[(o * depth + d) * inner + i] = idx == d ? v[1] : v[0];
        }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(2);
}

template <bool ToSpace>
Expected<void> spaceDepthKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() != 4) return ctx.error("needs a 4-D input, got " + in.describe(), 0);
  int64_t b = ctx.attrInt("blocksize", 0);
  if (b <= 0) return ctx.error("blocksize must be positive");
  int64_t n = in.dim(0), c = in.dim(1), h = in.dim(2), w = in.dim(3);
  bool crd = ctx.attrString("mode", "DCR") == "CRD";
  Dims outDims = ToSpace ? Dims{n, c / (b * b), h * b, w * b} : Dims{n, c * b * b, h / b, w / b};
  if ((ToSpace && c % (b * b)) || (!ToSpace && (h % b || w % b)))
    return ctx.error("dims are not divisible by the block size", 0);
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t oc = outDims[1], oh = outDims[2], ow = outDims[3];
    for (int64_t ni = 0; ni < n; ++ni)
      for (int64_t ci = 0; ci < oc; ++ci)
        for (int64_t hi = 0; hi < oh; ++hi)
          for (int64_t wi = 0; wi < ow; ++wi) {
            int64_t srcIndex;
            if constexpr (ToSpace) {
              int64_t bh = hi % b, bw = wi % b;
              int64_t sc = crd ? ci * b * b + bh * b + bw : (bh * b + bw) * oc + ci;
              srcIndex = ((ni * c + sc) * h + hi / b) * w + wi / b;
            } else {
              int64_t blocks = b * b, cIn = ci % c, block = ci / c;
              int64_t bh = block / b, bw = block % b;
              srcIndex = ((ni * c + cIn) * h + hi * b + bh) * w + wi * b + bw;
              (void)blocks;
            }
            dst[((ni * oc + ci) * oh + hi) * ow + wi] = src[srcIndex];
          }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> compressKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto c = ctx.requireTensor(1);
  if (!c) return c.error();
  const TensorValue& in = **x;
  TensorValue flat = in;
  int64_t axis;
  if (ctx.hasAttr("axis")) {
    auto a = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
    if (!a) return ctx.error("axis is out of range", 0);
    axis = *a;
  } else {
    flat = in.reshaped({in.count()});
    axis = 0;
  }
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < std::min((*c)->count(), flat.dim(axis)); ++i)
    if ((*c)->intAt(i)) keep.push_back(i);
  Dims outDims = flat.dims();
  outDims[size_t(axis)] = int64_t(keep.size());
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1, inner = 1, len = flat.dim(axis);
  for (int64_t d = 0; d < axis; ++d) outer *= flat.dim(d);
  for (int64_t d = axis + 1; d < flat.rank(); ++d) inner *= flat.dim(d);
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = flat.data<T>();
    T* dst = (*y)->template data<T>();
    int64_t k = int64_t(keep.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i)
          dst[(o * k + j) * inner + i] = src[(o * len + keep[size_t(j)]) * inner + i];
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Element i of an integer or floating tensor as double, narrow types (int4, float8, ...) included.
double quantValueAt(const TensorValue& t, int64_t i) {
  return isNarrowType(t.dtype()) ? narrowToDouble(t.dtype(), t.data<uint8_t>()[i]) : t.doubleAt(i);
}

// Per-tensor, per-axis or (from opset 21) blocked scale/zero-point lookup for element i. Blocked: the
// scale has x's shape with the axis shortened to ceil(axisLen / block).
struct QuantParams {
  const TensorValue* scale;
  const TensorValue* zero;
  int64_t axisLen = 1, inner = 1, block = 0;
  int64_t index(int64_t i) const {
    if (scale->count() == 1) return 0;
    int64_t a = (i / inner) % axisLen;
    if (block <= 0) return a;
    int64_t blocks = (axisLen + block - 1) / block;
    int64_t outer = i / (inner * axisLen);
    return (outer * blocks + a / block) * inner + i % inner;
  }
  double zeroAt(int64_t k) const { return zero && zero->count() ? quantValueAt(*zero, k) : 0.0; }
};

Expected<QuantParams> quantParams(KernelContext& ctx, const TensorValue& x) {
  QuantParams q{&ctx.input(1), ctx.hasInput(2) ? &ctx.input(2) : nullptr};
  if (q.scale->count() > 1 || q.scale->rank() > 0) {
    if (q.scale->count() == 1 && ctx.attrInt("block_size", 0) <= 0) return q;
    auto axis = normalizeAxis(ctx.attrInt("axis", 1), x.rank());
    if (!axis) return ctx.error("axis is out of range", 0);
    q.axisLen = x.dim(*axis);
    for (int64_t d = *axis + 1; d < x.rank(); ++d) q.inner *= x.dim(d);
    q.block = ctx.attrInt("block_size", 0);
    int64_t expected = q.axisLen;
    if (q.block > 0) {
      int64_t blocks = (q.axisLen + q.block - 1) / q.block;
      expected = x.count() / std::max<int64_t>(q.axisLen, 1) * blocks;
    }
    if (q.scale->count() != expected)
      return ctx.error("has " + std::to_string(q.scale->count()) + " elements, expected " +
                           std::to_string(expected) + " for axis " + std::to_string(*axis) +
                           (q.block > 0 ? " and block_size " + std::to_string(q.block) : std::string()),
                       1);
    if (q.zero && q.zero->count() != q.scale->count())
      return ctx.error("must have as many elements as the scale", 2);
  }
  return q;
}

// x / scale rounded to x's precision, as the spec computes it (a double quotient can land on the other side
// of a rounding tie).
double quantQuotient(const TensorValue& x, int64_t i, double scale) {
  double q = x.doubleAt(i) / scale;
  if (x.dtype() == DataType::Double) return q;
  if (x.dtype() == DataType::Float16) return double(float(Half(float(x.doubleAt(i)) / float(scale))));
  return double(float(x.doubleAt(i)) / float(scale));
}

// Integer range of the 2- and 4-bit types, whose values quantization clamps to.
std::pair<double, double> narrowIntRange(DataType dtype) {
  switch (dtype) {
    case DataType::Int4:
      return {-8.0, 7.0};
    case DataType::Uint4:
      return {0.0, 15.0};
    case DataType::Int2:
      return {-2.0, 1.0};
    default:
      return {0.0, 3.0};
  }
}

Expected<void> quantizeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto s = ctx.requireTensor(1);
  if (!s) return s.error();
  auto q = quantParams(ctx, **x);
  if (!q) return q.error();
  DataType out = q->zero ? q->zero->dtype()
                         : static_cast<DataType>(ctx.attrInt("output_dtype", int64_t(DataType::Uint8)));
  if (out == DataType::Undefined) out = DataType::Uint8;
  auto y = ctx.allocateOutput(0, out, (*x)->dims());
  if (!y) return y.error();
  if (isNarrowType(out)) {
    bool isInt =
        out == DataType::Int4 || out == DataType::Uint4 || out == DataType::Int2 || out == DataType::Uint2;
    bool saturate = ctx.attrInt("saturate", 1) != 0;
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      int64_t k = q->index(i);
      double v = quantQuotient(**x, i, q->scale->doubleAt(k));
      if (isInt) {
        auto [lo, hi] = narrowIntRange(out);
        v = std::clamp(std::nearbyint(v) + q->zeroAt(k), lo, hi);
      } else {
        v += q->zeroAt(k);
      }
      (*y)->data<uint8_t>()[i] = doubleToNarrow(out, v, saturate);
    }
    return {};
  }
  bool ok = dispatchType<kInts>(out, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      int64_t k = q->index(i);
      double scale = q->scale->doubleAt(k);
      double zero = q->zeroAt(k);
      double v = std::nearbyint(quantQuotient(**x, i, scale)) + zero;
      v = std::clamp(v, double(std::numeric_limits<T>::lowest()), double(std::numeric_limits<T>::max()));
      (*y)->template data<T>()[i] = T(v);
    }
  });
  return ok ? Expected<void>() : ctx.error("does not support output type " + std::string(dataTypeName(out)));
}

Expected<void> dequantizeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto s = ctx.requireTensor(1);
  if (!s) return s.error();
  auto q = quantParams(ctx, **x);
  if (!q) return q.error();
  if (!isInteger((*x)->dtype()) && !isNarrowType((*x)->dtype())) return ctx.unsupportedType(0);
  DataType out = (*s)->dtype();
  if (ctx.attrInt("output_dtype", 0) != 0) out = static_cast<DataType>(ctx.attrInt("output_dtype", 0));
  auto y = ctx.allocateOutput(0, out, (*x)->dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(out, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      int64_t k = q->index(i);
      double zero = q->zeroAt(k);
      (*y)->template data<T>()[i] =
          fromCompute<T>(ComputeType<T>((quantValueAt(**x, i) - zero) * q->scale->doubleAt(k)));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(1);
}

}  // namespace

void registerMiscCpuKernels(KernelRegistry& r) {
  r.add(kernel("Dropout", dropoutKernel, 1));
  r.add(kernel("Shrink", shrinkKernel, 9));
  r.add(kernel("Swish", swishKernel, 24));
  r.add(kernel("CumSum", cumSumKernel, 11));
  r.add(kernel("CumProd", cumProdKernel, 26));
  r.add(kernel("EyeLike", eyeLikeKernel, 9));
  r.add(kernel("OneHot", oneHotKernel, 9));
  r.add(kernel("DepthToSpace", spaceDepthKernel<true>, 1));
  r.add(kernel("SpaceToDepth", spaceDepthKernel<false>, 1));
  r.add(kernel("Compress", compressKernel, 9));
  r.add(kernel("QuantizeLinear", quantizeKernel, 10));
  r.add(kernel("DequantizeLinear", dequantizeKernel, 10));
}

}  // namespace onyx::exec
