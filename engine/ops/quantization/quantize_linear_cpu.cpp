// QuantizeLinear and DequantizeLinear: per-tensor, per-axis and blocked scales and zero points, the 8-, 4-
// and 2-bit integer and float8 types included.
#include <cmath>

#include "exec/kernel_util.h"
#include "util/clamp_or_zero.h"
#include "exec/narrow_types.h"

namespace onyx::exec {
namespace {

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
    int64_t blocks = axisLen == 0 ? 0 : (axisLen - 1) / block + 1;  // axisLen + block - 1 overflows
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
      int64_t blocks = q.axisLen == 0 ? 0 : (q.axisLen - 1) / q.block + 1;  // a block_size of INT64_MAX
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
        v = clampOrZero(std::nearbyint(v) + q->zeroAt(k), lo, hi);
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
      v = clampOrZero(v, double(std::numeric_limits<T>::lowest()), double(std::numeric_limits<T>::max()));
      // A 64-bit maximum is 2^63 - 1 or 2^64 - 1, which rounds up in double: converting that is undefined
      // (fuzz_run, UBSan: 9.22337e+18 to int64).
      (*y)->template data<T>()[i] =
          v >= double(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max() : T(v);
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

void registerQuantizeLinearCpuKernels(KernelRegistry& r) {
  r.add(kernel("QuantizeLinear", quantizeKernel, 10));
  r.add(kernel("DequantizeLinear", dequantizeKernel, 10));
}

}  // namespace onyx::exec
