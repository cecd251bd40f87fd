// Broadcasting arithmetic: Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean, PRelu, bit ops. The reference
// walks every output index; the fast kernel collapses shapes into vectorisable runs (exec/elementwise.h).
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "exec/elementwise.h"
#include "exec/wrapping_arithmetic.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

template <class T>
using C = ComputeType<T>;

struct AddOp {
  template <class T>
  T operator()(T a, T b) const {
    return wrappingAdd(a, b);
  }
};
struct SubOp {
  template <class T>
  T operator()(T a, T b) const {
    return wrappingSub(a, b);
  }
};
struct MulOp {
  template <class T>
  T operator()(T a, T b) const {
    return wrappingMul(a, b);
  }
};
struct DivOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return T(0);  // integer division by zero: 0 rather than a crash
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return wrappingNeg(a);  // the lowest value over -1 does not fit
      }
      return T(a / b);
    } else {
      return fromCompute<T>(C<T>(a) / C<T>(b));
    }
  }
};
struct MaxOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<C<T>>) {
      if (std::isnan(C<T>(a)) || std::isnan(C<T>(b)))
        return fromCompute<T>(std::numeric_limits<C<T>>::quiet_NaN());
    }
    return C<T>(a) >= C<T>(b) ? a : b;
  }
};
struct MinOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<C<T>>) {
      if (std::isnan(C<T>(a)) || std::isnan(C<T>(b)))
        return fromCompute<T>(std::numeric_limits<C<T>>::quiet_NaN());
    }
    return C<T>(a) <= C<T>(b) ? a : b;
  }
};
struct PReluOp {
  template <class T>
  T operator()(T x, T slope) const {
    return C<T>(x) < C<T>(0) ? wrappingMul(x, slope) : x;
  }
};
struct BitAndOp {
  template <class T>
  T operator()(T a, T b) const {
    return T(a & b);
  }
};
struct BitOrOp {
  template <class T>
  T operator()(T a, T b) const {
    return T(a | b);
  }
};
struct BitXorOp {
  template <class T>
  T operator()(T a, T b) const {
    return T(a ^ b);
  }
};

template <class T>
T modOp(T a, T b, bool fmod) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);
      T r = T(a % b);
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
      return r;
    } else {
      return T(a % b);
    }
  } else {
    C<T> x = C<T>(a), y = C<T>(b);
    C<T> r = std::fmod(x, y);
    if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
    return fromCompute<T>(r);
  }
}

// PRelu's slope of C values for an [N, C, ...] input means one slope per channel: ONNX Runtime and
// PyTorch exports (test_PReLU_*_multiparam) rely on it although it does not broadcast numpy-style.
Expected<const TensorValue*> channelSlope(const KernelContext& ctx, const TensorValue& x,
                                          const TensorValue* slope, TensorValue& storage) {
  if (ctx.node().opType() != "PRelu" || slope->rank() != 1 || x.rank() < 2 || slope->dim(0) != x.dim(1) ||
      broadcastShapes({&x.dims(), &slope->dims()}))
    return slope;
  Dims dims(static_cast<size_t>(x.rank() - 1), 1);
  dims[0] = slope->dim(0);
  storage = slope->reshaped(dims);
  return &storage;
}

// Both kernels' inputs: present tensors of one element type, PRelu's per-channel slope reshaped (into
// `storage`) to broadcast.
Expected<std::pair<const TensorValue*, const TensorValue*>> binaryOperands(const KernelContext& ctx,
                                                                           TensorValue& storage) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b0 = ctx.requireTensor(1);
  if (!b0) return b0.error();
  auto b = channelSlope(ctx, **a, *b0, storage);
  if (!b) return b.error();
  if ((*a)->dtype() != (*b)->dtype())
    return ctx.error("inputs have different element types (" + (*a)->describe() + ", " + (*b)->describe() + ")", 1);
  return std::pair{*a, *b};
}

// The same with their broadcast as the fast loops walk it (exec/elementwise.h).
struct BroadcastOperands {
  const TensorValue* a;
  const TensorValue* b;
  BinaryLayout layout;
};
Expected<BroadcastOperands> broadcastOperands(const KernelContext& ctx, TensorValue& storage) {
  auto operands = binaryOperands(ctx, storage);
  if (!operands) return operands.error();
  const auto [a, b] = *operands;
  auto layout = binaryLayout(a->dims(), b->dims());
  if (!layout) return ctx.error("cannot broadcast " + a->describe() + " with " + b->describe(), 1);
  return BroadcastOperands{a, b, std::move(*layout)};
}

// The ops with a vectorised float loop (fastArithRows).
template <class Op>
constexpr std::optional<Arith> kArith = std::nullopt;
template <>
constexpr std::optional<Arith> kArith<AddOp> = Arith::Add;
template <>
constexpr std::optional<Arith> kArith<SubOp> = Arith::Sub;
template <>
constexpr std::optional<Arith> kArith<MulOp> = Arith::Mul;
template <>
constexpr std::optional<Arith> kArith<DivOp> = Arith::Div;

template <class Op, unsigned Types>
Expected<void> binaryKernel(KernelContext& ctx) {
  TensorValue slopeStorage;
  auto operands = broadcastOperands(ctx, slopeStorage);
  if (!operands) return operands.error();
  const TensorValue *a = operands->a, *b = operands->b;  // not a structured binding: the lambdas capture them
  const BinaryLayout& layout = operands->layout;
  auto y = ctx.allocateOutput(0, a->dtype(), layout.outDims);
  if (!y) return y.error();
  Op op;
  if constexpr ((Types & kFloats) != 0) {
    if (a->dtype() == DataType::Float16) {
      throughFloats(*a, *b, **y, [&](const float* fa, const float* fb, float* fy) {
        if constexpr (kArith<Op>.has_value())
          arithLoop(ctx, layout, *kArith<Op>, fa, fb, fy);
        else
          binaryLoop(ctx, layout, fa, fb, fy, [&](float x, float z) { return op(x, z); });
      });
      return {};
    }
  }
  if constexpr (kArith<Op>.has_value()) {
    if (a->dtype() == DataType::Float) {
      arithLoop(ctx, layout, *kArith<Op>, a->template data<float>(), b->template data<float>(),
                (*y)->template data<float>());
      return {};
    }
  }
  bool ok = dispatchType<Types>(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    binaryLoop(ctx, layout, a->template data<T>(), b->template data<T>(), (*y)->template data<T>(),
               [&](T x, T z) { return op(x, z); });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// The oracle: one output index at a time through broadcast strides.
template <class Op, unsigned Types>
Expected<void> binaryReference(KernelContext& ctx) {
  TensorValue slopeStorage;
  auto operands = binaryOperands(ctx, slopeStorage);
  if (!operands) return operands.error();
  const TensorValue *a = operands->first, *b = operands->second;  // the lambda below captures them
  auto out = broadcastShapes({&a->dims(), &b->dims()});
  if (!out) return ctx.error("cannot broadcast " + a->describe() + " with " + b->describe(), 1);
  auto y = ctx.allocateOutput(0, a->dtype(), *out);
  if (!y) return y.error();
  std::array<std::vector<int64_t>, 2> strides{broadcastStrides(a->dims(), *out),
                                              broadcastStrides(b->dims(), *out)};
  Op op;
  bool ok = dispatchType<Types>(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a->template data<T>();
    const T* pb = b->template data<T>();
    T* py = (*y)->template data<T>();
    forEachBroadcast<2>(*out, strides, [&](int64_t o, const std::array<int64_t, 2>& off) {
      py[o] = op(pa[off[0]], pb[off[1]]);
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> modKernel(KernelContext& ctx) {
  TensorValue unused;  // no slope: not PRelu
  auto operands = broadcastOperands(ctx, unused);
  if (!operands) return operands.error();
  const TensorValue *a = operands->a, *b = operands->b;  // not a structured binding: the lambdas capture them
  const BinaryLayout& layout = operands->layout;
  bool fmod = ctx.attrInt("fmod", 0) != 0;
  if (!fmod && isFloatingPoint(a->dtype())) return ctx.error("needs fmod=1 for floating-point inputs", 0);
  auto y = ctx.allocateOutput(0, a->dtype(), layout.outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    binaryLoop(ctx, layout, a->template data<T>(), b->template data<T>(), (*y)->template data<T>(),
               [&](T x, T z) { return modOp(x, z, fmod); });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

template <class T>
double powValue(T base, double exponent) {
  return std::pow(double(C<T>(base)), exponent);
}

// An integer power past int64, or NaN (a negative base to a fractional exponent), converted without
// undefined behaviour: saturated, NaN as 0 (found by fuzz_run under UBSan: int64 ** float of random inputs).
int64_t saturatedInt64(double r) {
  if (std::isnan(r)) return 0;
  if (r >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (r < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return int64_t(r);
}

Expected<void> powKernel(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(1);
  if (!b) return b.error();
  auto layout = binaryLayout((*a)->dims(), (*b)->dims());
  if (!layout) return ctx.error("cannot broadcast " + (*a)->describe() + " with " + (*b)->describe(), 1);
  auto y = ctx.allocateOutput(0, (*a)->dtype(), layout->outDims);
  if (!y) return y.error();
  const TensorValue& base = **a;
  const TensorValue& exponent = **b;
  if (base.dtype() == DataType::Float && exponent.dtype() == DataType::Float) {
    binaryLoop(ctx, *layout, base.data<float>(), exponent.data<float>(), (*y)->template data<float>(),
               [](float x, float e) { return e == 2.0f ? x * x : std::pow(x, e); });
    return {};
  }
  // Mixed types: read the exponent as double.
  std::vector<double> e(size_t(exponent.count()));
  for (int64_t i = 0; i < exponent.count(); ++i) e[size_t(i)] = exponent.doubleAt(i);
  bool ok = dispatchType<kNumbers>(base.dtype(), [&](auto tag) {
    using T = decltype(tag);
    binaryLoop(ctx, *layout, base.data<T>(), e.data(), (*y)->template data<T>(), [](T x, double p) {
      double r = powValue(x, p);
      if constexpr (std::is_integral_v<T>)
        return T(saturatedInt64(r));
      else
        return fromCompute<T>(C<T>(r));
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Variadic Sum/Max/Min/Mean: folds pairwise with broadcasting.
template <class Op, bool IsMean>
Expected<void> variadicKernel(KernelContext& ctx) {
  size_t n = ctx.inputCount();
  if (n == 0 || !ctx.hasInput(0)) return ctx.error("needs at least one input");
  TensorValue acc = ctx.input(0);
  for (size_t i = 1; i < n; ++i) {
    auto x = ctx.requireTensor(i);
    if (!x) return x.error();
    if ((*x)->dtype() != acc.dtype()) return ctx.error("inputs have different element types", int(i));
    auto layout = binaryLayout(acc.dims(), (*x)->dims());
    if (!layout) return ctx.error("cannot broadcast " + acc.describe() + " with " + (*x)->describe(), int(i));
    // The running result is a temporary, not an output: check its broadcast size here before allocating.
    auto size = checkTensorSize(layout->outDims, int64_t(elementBytes(acc.dtype())), "broadcast result", "");
    if (!size) return ctx.error(size.error().message, int(i));
    TensorValue next = TensorValue::allocate(acc.dtype(), layout->outDims);
    Op op;
    bool ok = dispatchType<kNumbers>(acc.dtype(), [&](auto tag) {
      using T = decltype(tag);
      binaryLoop(ctx, *layout, acc.data<T>(), (*x)->template data<T>(), next.data<T>(),
                 [&](T p, T q) { return op(p, q); });
    });
    if (!ok) return ctx.unsupportedType(int(i));
    acc = std::move(next);
  }
  auto y = ctx.allocateOutput(0, acc.dtype(), acc.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(acc.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = acc.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < acc.count(); ++i) {
      if constexpr (IsMean && std::is_integral_v<T>)  // 256 int8 inputs: n is no int8, and the mean is 0
        dst[i] = n > uint64_t(std::numeric_limits<T>::max()) ? T(0) : T(src[i] / T(n));
      else if constexpr (IsMean)
        dst[i] = fromCompute<T>(C<T>(src[i]) / C<T>(n));
      else
        dst[i] = src[i];
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> bitShiftKernel(KernelContext& ctx) {
  // One element type: the shifts are read as X's (fuzz_run, ASan: uint16 X with shifts of another type read past them).
  TensorValue unused;  // no slope: not PRelu
  auto operands = broadcastOperands(ctx, unused);
  if (!operands) return operands.error();
  const TensorValue *a = operands->a, *b = operands->b;  // not a structured binding: the lambdas capture them
  const BinaryLayout& layout = operands->layout;
  bool left = ctx.attrString("direction", "") == "LEFT";
  auto y = ctx.allocateOutput(0, a->dtype(), layout.outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kUnsignedInts>(a->dtype(), [&](auto tag) {
    using T = decltype(tag);
    binaryLoop(ctx, layout, a->template data<T>(), b->template data<T>(), (*y)->template data<T>(),
               [&](T x, T s) {
                 if (s >= T(sizeof(T) * 8)) return T(0);
                 return left ? T(x << s) : T(x >> s);
               });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

int64_t outputCount(const KernelContext& c) {
  auto out = broadcastShapes({&c.input(0).dims(), &c.input(1).dims()});
  return out ? elementCount(*out) : 0;
}

template <class Op, unsigned Types>
void addBinary(KernelRegistry& r, const char* op, int since) {
  KernelDef ref = kernel(op, binaryReference<Op, Types>, since);
  ref.flops = outputCount;
  r.add(ref);
  KernelDef fast = kernel(op, binaryKernel<Op, Types>, since);
  fast.variant = "fast";
  fast.isaDispatched = kArith<Op>.has_value();  // the float loops: profiles name the set ("fast:avx2")
  fast.priority = 10;
  fast.inPlace = {{0, 0}, {0, 1}};
  fast.flops = outputCount;
  r.add(std::move(fast));
}

}  // namespace

void registerBinaryCpuKernels(KernelRegistry& r) {
  addBinary<AddOp, kNumbers>(r, "Add", 1);
  addBinary<SubOp, kNumbers>(r, "Sub", 1);
  addBinary<MulOp, kNumbers>(r, "Mul", 1);
  addBinary<DivOp, kNumbers>(r, "Div", 1);
  addBinary<PReluOp, kNumbers>(r, "PRelu", 1);
  addBinary<BitAndOp, kInts>(r, "BitwiseAnd", 18);
  addBinary<BitOrOp, kInts>(r, "BitwiseOr", 18);
  addBinary<BitXorOp, kInts>(r, "BitwiseXor", 18);
  r.add(kernel("Mod", modKernel, 10));
  r.add(kernel("Pow", powKernel, 1));
  r.add(kernel("BitShift", bitShiftKernel, 11));
  r.add(kernel("Sum", variadicKernel<AddOp, false>, 1));
  r.add(kernel("Mean", variadicKernel<AddOp, true>, 1));
  r.add(kernel("Max", variadicKernel<MaxOp, false>, 1));
  r.add(kernel("Min", variadicKernel<MinOp, false>, 1));
}

}  // namespace onyx::exec
