// Pooling: MaxPool (with Indices), AveragePool, GlobalAveragePool, GlobalMaxPool, LpPool, any spatial rank.
#include <cmath>
#include <type_traits>

#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

enum class Pool { Max, Average, Lp };

template <Pool P>
Expected<void> poolKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  if (x.rank() < 3) return ctx.error("needs rank >= 3, got " + x.describe(), 0);
  // LpPool is defined on floats (T: float16, float, double); on integers its p-th root overflowed to inf and
  // was converted to int8 (fuzz_run, UBSan).
  if (P == Pool::Lp && !isFloatingPoint(x.dtype())) return ctx.unsupportedType(0);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  auto kernelShape = ctx.attrInts("kernel_shape");
  if (!kernelShape) return ctx.error("has no kernel_shape");
  auto g = windowGeometry(ctx, spatial, *kernelShape, ctx.attrInt("ceil_mode", 0) != 0);
  if (!g) return g.error();
  bool countPad = ctx.attrInt("count_include_pad", 0) != 0;
  int64_t lp = ctx.attrInt("p", 2);
  int64_t storageOrder = ctx.attrInt("storage_order", 0);
  Dims outDims = {x.dim(0), x.dim(1)};
  for (int64_t o : g->outSize) outDims.push_back(o);
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  TensorValue* indices = nullptr;
  if (P == Pool::Max && ctx.wantsOutput(1)) {
    auto idx = ctx.allocateOutput(1, DataType::Int64, outDims);
    if (!idx) return idx.error();
    indices = *idx;
  }
  size_t sr = spatial.size();
  int64_t planes = x.dim(0) * x.dim(1), inSpatial = elementCount(spatial),
          outSpatial = elementCount(g->outSize);
  int64_t kernelSize = elementCount(*kernelShape);
  bool ok = dispatchType<kFloats | kInts>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    // An integer average of values near int64's maximum is 2^63 as a double; saturated, not an overflow.
    auto fromDouble = [](double v) {
      if constexpr (std::is_integral_v<Cm>)
        return fromCompute<T>(saturateToInteger<Cm>(v));
      else
        return fromCompute<T>(Cm(v));
    };
    const T* px = x.data<T>();
    T* py = (*y)->template data<T>();
    ctx.parallelFor(planes, 1, [&](int64_t pb, int64_t pe) {
      std::vector<int64_t> opos(sr), kpos(sr), ipos(sr);
      for (int64_t plane = pb; plane < pe; ++plane) {
        const T* src = px + plane * inSpatial;
        for (int64_t o = 0; o < outSpatial; ++o) {
          int64_t rest = o;
          for (size_t d = sr; d-- > 0;) {
            opos[d] = rest % g->outSize[d];
            rest /= g->outSize[d];
          }
          double acc = P == Pool::Max ? -INFINITY : 0.0;
          Cm best = std::numeric_limits<Cm>::lowest();
          int64_t bestIndex = -1, count = 0;
          for (int64_t k = 0; k < kernelSize; ++k) {
            int64_t kr = k;
            for (size_t d = sr; d-- > 0;) {
              kpos[d] = kr % (*kernelShape)[d];
              kr /= (*kernelShape)[d];
            }
            bool inside = true, inPadded = true;
            int64_t off = 0;
            for (size_t d = 0; d < sr; ++d) {
              int64_t i = opos[d] * g->strides[d] - g->padsBegin[d] + kpos[d] * g->dilations[d];
              ipos[d] = i;
              if (i < 0 || i >= spatial[d]) inside = false;
              if (i < -g->padsBegin[d] || i >= spatial[d] + g->padsEnd[d]) inPadded = false;
              off = off * spatial[d] + i;
            }
            if (!inside) {
              if (countPad && inPadded) ++count;
              continue;
            }
            ++count;
            Cm v = Cm(src[off]);
            if constexpr (P == Pool::Max) {
              if (bestIndex < 0 || v > best) {
                best = v;
                if (storageOrder == 0) {
                  bestIndex = off;
                } else {  // column-major index
                  int64_t cm = 0, stride = 1;
                  for (size_t d = 0; d < sr; ++d) {
                    cm += ipos[d] * stride;
                    stride *= spatial[d];
                  }
                  bestIndex = cm;
                }
              }
            } else if constexpr (P == Pool::Average) {
              acc += double(v);
            } else {
              acc += std::pow(std::abs(double(v)), double(lp));
            }
          }
          T* dst = py + plane * outSpatial + o;
          if constexpr (P == Pool::Max) {
            *dst = bestIndex >= 0 ? fromCompute<T>(best) : T{};
            if (indices) indices->data<int64_t>()[plane * outSpatial + o] = bestIndex + plane * inSpatial;
          } else if constexpr (P == Pool::Average) {
            *dst = fromDouble(count ? acc / double(count) : 0.0);
          } else {
            *dst = fromDouble(std::pow(acc, 1.0 / double(lp)));
          }
        }
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

template <bool IsMax>
Expected<void> globalPoolKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  if (x.rank() < 2) return ctx.error("needs rank >= 2, got " + x.describe(), 0);
  Dims outDims = {x.dim(0), x.dim(1)};
  for (int64_t d = 2; d < x.rank(); ++d) outDims.push_back(1);
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  int64_t planes = x.dim(0) * x.dim(1), inner = x.count() / std::max<int64_t>(planes, 1);
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = (*y)->template data<T>();
    ctx.parallelFor(planes, 16, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        const T* s = px + p * inner;
        if constexpr (IsMax) {
          float m = -INFINITY;
          for (int64_t i = 0; i < inner; ++i) m = std::max(m, float(s[i]));
          py[p] = fromCompute<T>(ComputeType<T>(m));
        } else {
          float sum = 0;
          for (int64_t i = 0; i < inner; ++i) sum += float(s[i]);
          py[p] = fromCompute<T>(ComputeType<T>(inner ? sum / float(inner) : 0.0f));
        }
      }
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

// The reference kernels, for the fast 2-D variant (pool2d_cpu.cpp) to hand other inputs to.
Expected<void> maxPoolReference(KernelContext& ctx) {
  return poolKernel<Pool::Max>(ctx);
}
Expected<void> averagePoolReference(KernelContext& ctx) {
  return poolKernel<Pool::Average>(ctx);
}

void addPool2dCpuKernels(KernelRegistry& r);  // pool2d_cpu.cpp: the fast 2-D float32 variant

void registerPoolCpuKernels(KernelRegistry& r) {
  addPool2dCpuKernels(r);
  r.add(kernel("MaxPool", poolKernel<Pool::Max>, 1));
  r.add(kernel("AveragePool", poolKernel<Pool::Average>, 1));
  r.add(kernel("LpPool", poolKernel<Pool::Lp>, 1));
  r.add(kernel("GlobalAveragePool", globalPoolKernel<false>, 1));
  r.add(kernel("GlobalMaxPool", globalPoolKernel<true>, 1));
}

}  // namespace onyx::exec
