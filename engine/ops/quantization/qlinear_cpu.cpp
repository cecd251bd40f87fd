// Integer-quantized ops: DynamicQuantizeLinear (uint8 with a computed scale and zero point) and
// QLinearMatMul (8-bit matrix product with per-tensor, per-row or per-column scales).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "exec/kernel_util.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

// Round half to even, as QuantizeLinear does, then clamp to [lo, hi].
double roundAndClamp(double v, double lo, double hi) {
  return clampOrZero(std::nearbyint(v), lo, hi);
}

Expected<void> dynamicQuantizeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (!isFloatingPoint(in.dtype()) || elementBytes(in.dtype()) == 0) return ctx.unsupportedType(0);
  double lo = 0.0, hi = 0.0;  // the range always includes zero
  for (int64_t i = 0; i < in.count(); ++i) {
    double v = in.doubleAt(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  float scale = float((hi - lo) / 255.0);
  double zeroPoint = scale > 0 ? roundAndClamp(-lo / double(scale), 0.0, 255.0) : 0.0;
  auto y = ctx.allocateOutput(0, DataType::Uint8, in.dims());
  if (!y) return y.error();
  auto yScale = ctx.allocateOutput(1, DataType::Float, {});
  if (!yScale) return yScale.error();
  auto yZero = ctx.allocateOutput(2, DataType::Uint8, {});
  if (!yZero) return yZero.error();
  (*yScale)->data<float>()[0] = scale;
  (*yZero)->data<uint8_t>()[0] = uint8_t(zeroPoint);
  uint8_t* out = (*y)->data<uint8_t>();
  for (int64_t i = 0; i < in.count(); ++i) {
    double q = scale > 0 ? float(in.doubleAt(i)) / scale : 0.0;
    out[i] = uint8_t(roundAndClamp(std::nearbyint(q) + zeroPoint, 0.0, 255.0));
  }
  return {};
}

bool isEightBit(DataType dtype) {
  return dtype == DataType::Int8 || dtype == DataType::Uint8;
}

// A scale or zero point that is a scalar, or a vector along one matrix axis of length `axisLength`.
Expected<void> checkQuantParam(KernelContext& ctx, int index, int64_t axisLength) {
  const TensorValue& t = ctx.input(index);
  if (t.empty()) return ctx.error("is required", index);
  if (t.count() == 1 || t.count() == axisLength) return {};
  return ctx.error("must have one element or " + std::to_string(axisLength) + " (one per row or column)",
                   index);
}

double paramAt(const TensorValue& t, int64_t i) {
  return t.count() == 1 ? t.doubleAt(0) : t.doubleAt(i);
}

Expected<void> qlinearMatMulKernel(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(3);
  if (!b) return b.error();
  const TensorValue& A = **a;
  const TensorValue& B = **b;
  if (!isEightBit(A.dtype())) return ctx.unsupportedType(0);
  if (!isEightBit(B.dtype())) return ctx.unsupportedType(3);
  if (A.rank() < 2 || B.rank() < 2)
    return ctx.error("needs matrices of rank 2 or more, got " + A.describe() + " and " + B.describe());
  int64_t m = A.dim(A.rank() - 2), k = A.dim(A.rank() - 1), n = B.dim(B.rank() - 1);
  if (B.dim(B.rank() - 2) != k)
    return ctx.error("inner dimensions differ: " + A.describe() + " x " + B.describe(), 3);
  Dims batchA(A.dims().begin(), A.dims().end() - 2), batchB(B.dims().begin(), B.dims().end() - 2);
  auto batch = broadcastShapes({&batchA, &batchB});
  if (!batch) return ctx.error("batch dimensions do not broadcast: " + A.describe() + " x " + B.describe());
  for (int index : {1, 2}) {
    if (auto ok = checkQuantParam(ctx, index, m); !ok) return ok.error();
  }
  for (int index : {4, 5}) {
    if (auto ok = checkQuantParam(ctx, index, n); !ok) return ok.error();
  }
  for (int index : {6, 7}) {
    if (auto ok = checkQuantParam(ctx, index, 1); !ok) return ok.error();
  }
  const TensorValue &aScale = ctx.input(1), &aZero = ctx.input(2), &bScale = ctx.input(4),
                    &bZero = ctx.input(5), &yScale = ctx.input(6), &yZero = ctx.input(7);
  DataType outType = yZero.dtype();
  if (!isEightBit(outType)) return ctx.unsupportedType(7);
  double lo = outType == DataType::Uint8 ? 0.0 : -128.0, hi = outType == DataType::Uint8 ? 255.0 : 127.0;
  Dims outDims = *batch;
  outDims.push_back(m);
  outDims.push_back(n);
  auto y = ctx.allocateOutput(0, outType, outDims);
  if (!y) return y.error();
  std::array<std::vector<int64_t>, 2> strides{broadcastStrides(batchA, *batch),
                                              broadcastStrides(batchB, *batch)};
  int64_t batches = elementCount(*batch);
  double outScale = yScale.doubleAt(0), outZero = yZero.doubleAt(0);
  // a_scale * b_scale / y_scale in the scales' own precision (each step rounded), as the spec computes it.
  bool halfScales = aScale.dtype() == DataType::Float16;
  auto rescale = [&](double sa, double sb) {
    if (halfScales) return double(float(Half(float(Half(float(sa * sb))) / float(outScale))));
    return double(float(float(sa) * float(sb)) / float(outScale));
  };
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t offA = 0, offB = 0, rest = bi;
    for (int64_t d = int64_t(batch->size()) - 1; d >= 0; --d) {
      int64_t coord = rest % (*batch)[size_t(d)];
      rest /= (*batch)[size_t(d)];
      offA += coord * strides[0][size_t(d)];
      offB += coord * strides[1][size_t(d)];
    }
    offA *= m * k;
    offB *= k * n;
    for (int64_t r = 0; r < m; ++r) {
      double za = paramAt(aZero, r), sa = paramAt(aScale, r);
      for (int64_t c = 0; c < n; ++c) {
        double zb = paramAt(bZero, c), sb = paramAt(bScale, c);
        double acc = 0;
        for (int64_t i = 0; i < k; ++i)
          acc += (A.doubleAt(offA + r * k + i) - za) * (B.doubleAt(offB + i * n + c) - zb);
        double v = roundAndClamp(acc * rescale(sa, sb) + outZero, lo, hi);
        int64_t o = (bi * m + r) * n + c;
        if (outType == DataType::Uint8)
          (*y)->data<uint8_t>()[o] = uint8_t(v);
        else
          (*y)->data<int8_t>()[o] = int8_t(v);
      }
    }
  }
  return {};
}

}  // namespace

void registerQLinearCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("DynamicQuantizeLinear", dynamicQuantizeKernel, 11));
  registry.add(kernel("QLinearMatMul", qlinearMatMulKernel, 10));
}

}  // namespace onyx::exec
