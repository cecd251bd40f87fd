// Element-wise math on one tensor: Abs, Neg, Exp, Log, Sqrt, trigonometry, rounding, Erf, Sign, Clip...
// Float32 Exp and Erf have fast vectorised kernels; the rest are plain loops the compiler vectorises.
#include <cmath>
#include <limits>
#include <type_traits>

#include "exec/cpu/fast_math.h"
#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"

namespace onyx::exec {
namespace {

template <unsigned Types, class Op>
Expected<void> mapUnary(KernelContext& ctx, Op op) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  bool ok = dispatchType<Types>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    ctx.parallelFor(in.count(), 32768, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dst[i] = fromCompute<T>(Cm(op(Cm(src[i]))));
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

#define ONYX_UNARY(NAME, TYPES, EXPR)        \
  Expected<void> NAME(KernelContext& ctx) {  \
    return mapUnary<TYPES>(ctx, [](auto v) { \
      using V = decltype(v);                 \
      (void)sizeof(V);                       \
      return EXPR;                           \
    });                                      \
  }

// The lowest int32/int64 is its own negation and absolute value (wrapping, as ONNX Runtime's kernels do).
ONYX_UNARY(absKernel, kNumbers, v < V(0) ? wrappingNeg(v) : v)
ONYX_UNARY(negKernel, kFloats | kSignedInts, wrappingNeg(v))
ONYX_UNARY(expKernel, kFloats, std::exp(v))
ONYX_UNARY(logKernel, kFloats, std::log(v))
ONYX_UNARY(sqrtKernel, kFloats, std::sqrt(v))
ONYX_UNARY(reciprocalKernel, kFloats, V(1) / v)
ONYX_UNARY(floorKernel, kFloats, std::floor(v))
ONYX_UNARY(ceilKernel, kFloats, std::ceil(v))
ONYX_UNARY(roundKernel, kFloats, std::nearbyint(v))
ONYX_UNARY(sinKernel, kFloats, std::sin(v))
ONYX_UNARY(cosKernel, kFloats, std::cos(v))
ONYX_UNARY(tanKernel, kFloats, std::tan(v))
ONYX_UNARY(asinKernel, kFloats, std::asin(v))
ONYX_UNARY(acosKernel, kFloats, std::acos(v))
ONYX_UNARY(atanKernel, kFloats, std::atan(v))
ONYX_UNARY(sinhKernel, kFloats, std::sinh(v))
ONYX_UNARY(coshKernel, kFloats, std::cosh(v))
ONYX_UNARY(asinhKernel, kFloats, std::asinh(v))
ONYX_UNARY(acoshKernel, kFloats, std::acosh(v))
ONYX_UNARY(atanhKernel, kFloats, std::atanh(v))
ONYX_UNARY(erfKernel, kFloats, std::erf(v))
ONYX_UNARY(signKernel, kNumbers, V(v > V(0) ? 1 : (v < V(0) ? -1 : 0)))
ONYX_UNARY(bitwiseNotKernel, kInts, V(~v))
#undef ONYX_UNARY

template <void (*Loop)(const float*, float*, int64_t, float, float), KernelFunction Reference>
Expected<void> fastFloat(KernelContext& ctx) {
  const TensorValue& in = ctx.input(0);
  if (in.dtype() != DataType::Float) return Reference(ctx);
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  const float* src = in.data<float>();
  float* dst = (*y)->template data<float>();
  ctx.parallelFor(in.count(), 16384, [&](int64_t b, int64_t e) { Loop(src + b, dst + b, e - b, 0, 0); });
  return {};
}

Expected<void> notKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  if ((*x)->dtype() != DataType::Bool) return ctx.unsupportedType(0);
  auto y = ctx.allocateOutput(0, DataType::Bool, (*x)->dims());
  if (!y) return y.error();
  for (int64_t i = 0; i < (*x)->count(); ++i)
    (*y)->template data<bool>()[i] = !(*x)->template data<bool>()[i];
  return {};
}

template <bool IsInf>
Expected<void> classifyKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto y = ctx.allocateOutput(0, DataType::Bool, (*x)->dims());
  if (!y) return y.error();
  bool detectPos = ctx.attrInt("detect_positive", 1) != 0, detectNeg = ctx.attrInt("detect_negative", 1) != 0;
  bool ok = dispatchType<kFloats>((*x)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = (*x)->template data<T>();
    bool* dst = (*y)->template data<bool>();
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      double v = double(ComputeType<T>(src[i]));
      if constexpr (IsInf)
        dst[i] = std::isinf(v) && ((v > 0 && detectPos) || (v < 0 && detectNeg));
      else
        dst[i] = std::isnan(v);
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Clip: bounds as attributes before opset 11, as optional inputs since.
Expected<void> clipKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    Cm lo = std::numeric_limits<Cm>::lowest(), hi = std::numeric_limits<Cm>::max();
    // A bound as the compute type: an integer type's range holds it first, NaN leaves the side unbounded
    // (fuzz_run: the opset-6 default min, -FLT_MAX, converted to int8 under UBSan). A bound of another type
    // than X is read as a double, not as X's type past its end.
    auto fromDouble = [](double v, Cm unbounded) -> Cm {
      if constexpr (std::is_integral_v<Cm>) {
        if (std::isnan(v)) return unbounded;
        if (v <= double(std::numeric_limits<Cm>::lowest())) return std::numeric_limits<Cm>::lowest();
        if (v >= double(std::numeric_limits<Cm>::max())) return std::numeric_limits<Cm>::max();
      }
      return Cm(v);
    };
    auto fromInput = [&](size_t i, Cm unbounded) -> Cm {
      const TensorValue& t = ctx.input(i);
      if (t.dtype() == in.dtype()) return Cm(ComputeType<T>(t.template data<T>()[0]));
      return fromDouble(t.doubleAt(0), unbounded);
    };
    if (ctx.opset() < 11) {
      lo = fromDouble(ctx.attrFloat("min", -std::numeric_limits<float>::max()), lo);
      hi = fromDouble(ctx.attrFloat("max", std::numeric_limits<float>::max()), hi);
    } else {
      if (ctx.hasInput(1) && ctx.input(1).count() > 0) lo = fromInput(1, lo);
      if (ctx.hasInput(2) && ctx.input(2).count() > 0) hi = fromInput(2, hi);
    }
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    if constexpr (std::is_same_v<T, float>) {
      ctx.parallelFor(in.count(), 16384,
                      [&](int64_t b, int64_t e) { fastClip(src + b, dst + b, e - b, lo, hi); });
    } else {
      for (int64_t i = 0; i < in.count(); ++i) {
        Cm v = Cm(src[i]);
        dst[i] = fromCompute<T>(v < lo ? lo : (v > hi ? hi : v));
      }
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

void add(KernelRegistry& r, const char* op, KernelFunction f, int since, bool inPlace = true) {
  KernelDef def = kernel(op, f, since);
  if (inPlace) def.inPlace = {{0, 0}};
  def.flops = [](const KernelContext& c) { return c.input(0).count(); };
  r.add(std::move(def));
}

}  // namespace

void registerUnaryCpuKernels(KernelRegistry& r) {
  add(r, "Abs", absKernel, 1);
  add(r, "Neg", negKernel, 1);
  add(r, "Exp", expKernel, 1);
  KernelDef fastExpDef = kernel("Exp", fastFloat<fastExp, expKernel>, 1);
  fastExpDef.variant = "fast";
  fastExpDef.isaDispatched = true;
  fastExpDef.priority = 10;
  fastExpDef.inPlace = {{0, 0}};
  r.add(fastExpDef);
  add(r, "Log", logKernel, 1);
  add(r, "Sqrt", sqrtKernel, 1);
  add(r, "Reciprocal", reciprocalKernel, 1);
  add(r, "Floor", floorKernel, 1);
  add(r, "Ceil", ceilKernel, 1);
  add(r, "Round", roundKernel, 11);
  add(r, "Sin", sinKernel, 7);
  add(r, "Cos", cosKernel, 7);
  add(r, "Tan", tanKernel, 7);
  add(r, "Asin", asinKernel, 7);
  add(r, "Acos", acosKernel, 7);
  add(r, "Atan", atanKernel, 7);
  add(r, "Sinh", sinhKernel, 9);
  add(r, "Cosh", coshKernel, 9);
  add(r, "Asinh", asinhKernel, 9);
  add(r, "Acosh", acoshKernel, 9);
  add(r, "Atanh", atanhKernel, 9);
  add(r, "Erf", erfKernel, 9);
  KernelDef fastErfDef = kernel("Erf", fastFloat<fastErf, erfKernel>, 9);
  fastErfDef.variant = "fast";
  fastErfDef.isaDispatched = true;
  fastErfDef.priority = 10;
  fastErfDef.inPlace = {{0, 0}};
  r.add(fastErfDef);
  add(r, "Sign", signKernel, 9);
  add(r, "BitwiseNot", bitwiseNotKernel, 18);
  add(r, "Not", notKernel, 1);
  add(r, "IsNaN", classifyKernel<false>, 9, false);
  add(r, "IsInf", classifyKernel<true>, 10, false);
  add(r, "Clip", clipKernel, 1);
}

}  // namespace onyx::exec
