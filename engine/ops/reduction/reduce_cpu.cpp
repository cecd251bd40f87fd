// Reductions over axes (ReduceSum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare) and
// ArgMax/ArgMin. Axes come from the attribute (older opsets) or input 1 (ReduceSum 13+, others 18+).
// Of integers, Sum, Prod, L1 and SumSquare are the exact result wrapped to the type, as two's complement
// arithmetic (and numpy and ONNX Runtime in practice) gives it, instead of overflowing a signed type. Mean
// sums in 64 bits; L2, LogSum and LogSumExp compute in double and become integers with NaN as 0 and values
// past the type's range, -inf for log(0) included, saturated (fuzz_run under UBSan: int8 ReduceLogSum of
// nothing).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"
#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

enum class Reduce { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

struct ReducePlan {
  Dims outDims;                               // keepdims form
  int64_t outer = 1, reduced = 1, inner = 1;  // when axes are contiguous after transposition
  std::vector<bool> isReduced;
};

// The accumulator of reduction R over elements of type T: where it starts, how it takes an element, and the
// result it gives for a slice of `count` elements.
template <Reduce R, class T>
struct ReduceMath {
  static constexpr bool kInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  static constexpr bool kLog = R == Reduce::LogSum || R == Reduce::LogSumExp;
  // Floats sum in double, and so do integers where the result is not the sum's wrapped value: exp of an
  // integer is not one, and a root or log of a wrapped sum means nothing. An integer Mean sums in 64 bits, so
  // the mean of narrower integers is exact.
  static constexpr bool kDouble =
      std::is_floating_point_v<ComputeType<T>> || kLog || (kInteger && R == Reduce::L2);
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  using Own = std::conditional_t<kInteger && R == Reduce::Mean, Wide, ComputeType<T>>;
  using Acc = std::conditional_t<kDouble, double, Own>;
  static constexpr bool kWraps = kInteger && !kDouble;

  // Max/Min start from -inf/+inf for floating types (the spec's value for an empty set) so a slice of
  // only -inf (a fully masked attention row) reduces to -inf, not to the lowest finite value; types
  // without infinity start from their extremes.
  static Acc init() {
    using Limits = std::numeric_limits<ComputeType<T>>;
    if constexpr (R == Reduce::Max)
      return Limits::has_infinity ? Acc(-Limits::infinity()) : Acc(Limits::lowest());
    else if constexpr (R == Reduce::Min)
      return Limits::has_infinity ? Acc(Limits::infinity()) : Acc(Limits::max());
    else if constexpr (R == Reduce::Prod)
      return Acc(1);
    else
      return Acc(0);
  }

  // Integer accumulators (Sum, Mean, Prod, L1, SumSquare) wrap; the double ones keep their expressions.
  static Acc step(Acc acc, Acc v) {
    if constexpr (R == Reduce::Max)
      return v > acc || std::isnan(double(v)) ? v : acc;
    else if constexpr (R == Reduce::Min)
      return v < acc || std::isnan(double(v)) ? v : acc;
    else if constexpr (kWraps && R == Reduce::Prod)
      return wrappingMul(acc, v);
    else if constexpr (kWraps && R == Reduce::L1)
      return wrappingAdd(acc, v < 0 ? wrappingNeg(v) : v);
    else if constexpr (kWraps && R == Reduce::SumSquare)
      return wrappingAdd(acc, wrappingMul(v, v));
    else if constexpr (kWraps)
      return wrappingAdd(acc, v);
    else if constexpr (R == Reduce::Prod)
      return acc * v;
    else if constexpr (R == Reduce::L1)
      return acc + (v < 0 ? -v : v);
    else if constexpr (R == Reduce::L2 || R == Reduce::SumSquare)
      return acc + v * v;
    else if constexpr (R == Reduce::LogSumExp)
      return acc + Acc(std::exp(double(v)));
    else
      return acc + v;
  }

  static T finish(Acc acc, int64_t count) {
    if constexpr (R == Reduce::Mean && kInteger)  // within T's range; a count as T could be 0 (256 int8s)
      return T(count ? acc / Acc(count) : Acc(0));
    else if constexpr (R == Reduce::Mean)
      return fromCompute<T>(ComputeType<T>(count ? acc / Acc(count) : Acc(0)));
    else if constexpr (R == Reduce::L2)  // past the type's range: its max
      return fromDouble(std::sqrt(double(acc)));
    else if constexpr (kLog)  // log(0) = -inf: an integer's lowest
      return fromDouble(std::log(double(acc)));
    else
      return fromCompute<T>(ComputeType<T>(acc));
  }

  static T fromDouble(double v) {
    if constexpr (kInteger)
      return saturateToInteger<T>(v);
    else
      return fromCompute<T>(ComputeType<T>(v));
  }
};

template <Reduce R, int AxesInputOpset>
Expected<void> reduceKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  int64_t rank = in.rank();
  std::vector<int64_t> axes;
  bool fromInput = ctx.opset() >= AxesInputOpset;
  if (fromInput)
    axes = ctx.intsInput(1).value_or(std::vector<int64_t>{});
  else
    axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{});
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  bool noopWithEmpty = ctx.attrInt("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(size_t(rank), axes.empty() && !(fromInput && noopWithEmpty));
  for (int64_t a : axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis)
      return ctx.error("axis " + std::to_string(a) + " is out of range for " + in.describe(),
                       fromInput ? 1 : 0);
    reduced[size_t(*axis)] = true;
  }
  Dims keep, out;
  for (int64_t d = 0; d < rank; ++d) {
    keep.push_back(reduced[size_t(d)] ? 1 : in.dim(d));
    if (!reduced[size_t(d)])
      out.push_back(in.dim(d));
    else if (keepDims)
      out.push_back(1);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), out);
  if (!y) return y.error();
  int64_t outCount = elementCount(keep);
  auto inStrides = rowMajorStrides(in.dims());
  // For each output element, walk the reduced sub-box.
  Dims redDims;
  std::vector<int64_t> redStrides;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[size_t(d)]) {
      redDims.push_back(in.dim(d));
      redStrides.push_back(inStrides[size_t(d)]);
    }
  int64_t redCount = elementCount(redDims);
  // Max and Min are also defined on bool (any / all).
  constexpr unsigned kTypes = R == Reduce::Max || R == Reduce::Min ? kNumbers | kBool : kNumbers;
  bool ok = dispatchType<kTypes>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Math = ReduceMath<R, T>;
    using Acc = typename Math::Acc;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    // Fast path: reducing only the innermost contiguous dims.
    bool innerOnly = true;
    {
      bool seenReduced = false;
      for (int64_t d = 0; d < rank; ++d) {
        if (reduced[size_t(d)])
          seenReduced = true;
        else if (seenReduced && in.dim(d) != 1)
          innerOnly = false;
      }
    }
    if (innerOnly) {
      ctx.parallelFor(outCount, std::max<int64_t>(1, 8192 / std::max<int64_t>(redCount, 1)),
                      [&](int64_t b, int64_t e) {
                        for (int64_t o = b; o < e; ++o) {
                          Acc acc = Math::init();
                          const T* p = src + o * redCount;
                          for (int64_t i = 0; i < redCount; ++i) acc = Math::step(acc, Acc(ComputeType<T>(p[i])));
                          dst[o] = Math::finish(acc, redCount);
                        }
                      });
      return;
    }
    for (int64_t o = 0; o < outCount; ++o) {
      int64_t base = 0, rest = o;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t i = rest % keep[size_t(d)];
        rest /= keep[size_t(d)];
        base += i * inStrides[size_t(d)];
      }
      Acc acc = Math::init();
      for (int64_t r = 0; r < redCount; ++r) {
        int64_t off = base, rr = r;
        for (int64_t d = int64_t(redDims.size()) - 1; d >= 0; --d) {
          off += (rr % redDims[size_t(d)]) * redStrides[size_t(d)];
          rr /= redDims[size_t(d)];
        }
        acc = Math::step(acc, Acc(ComputeType<T>(src[off])));
      }
      dst[o] = Math::finish(acc, redCount);
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

template <bool IsMax>
Expected<void> argKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + in.describe(), 0);
  int64_t axis = *axisOpt;
  bool keepDims = ctx.attrInt("keepdims", 1) != 0;
  bool lastIndex = ctx.attrInt("select_last_index", 0) != 0;
  Dims out;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (d != axis)
      out.push_back(in.dim(d));
    else if (keepDims)
      out.push_back(1);
  }
  auto y = ctx.allocateOutput(0, DataType::Int64, out);
  if (!y) return y.error();
  const auto [outerBound, lenBound, innerBound] = axisSplit(in.dims(), axis);
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& outer = outerBound; const auto& len = lenBound; const auto& inner = innerBound;
  // An empty axis has no index to give (fuzz_run: ArgMax of float16[0, 2] along axis 0 read element 0).
  if (len == 0 && (*y)->count() > 0)
    return ctx.error("axis " + std::to_string(axis) + " of " + in.describe() +
                         " is empty: there is no index to return",
                     0);
  bool ok = dispatchType<kNumbers>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    const T* src = in.data<T>();
    int64_t* dst = (*y)->template data<int64_t>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t best = 0;
        Cm bestValue = Cm(src[o * len * inner + i]);
        for (int64_t k = 1; k < len; ++k) {
          Cm v = Cm(src[(o * len + k) * inner + i]);
          bool better = IsMax ? (lastIndex ? v >= bestValue : v > bestValue)
                              : (lastIndex ? v <= bestValue : v < bestValue);
          if (better) {
            best = k;
            bestValue = v;
          }
        }
        dst[o * inner + i] = best;
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerReduceCpuKernels(KernelRegistry& r) {
  r.add(kernel("ReduceSum", reduceKernel<Reduce::Sum, 13>, 1));
  r.add(kernel("ReduceMean", reduceKernel<Reduce::Mean, 18>, 1));
  r.add(kernel("ReduceMax", reduceKernel<Reduce::Max, 18>, 1));
  r.add(kernel("ReduceMin", reduceKernel<Reduce::Min, 18>, 1));
  r.add(kernel("ReduceProd", reduceKernel<Reduce::Prod, 18>, 1));
  r.add(kernel("ReduceL1", reduceKernel<Reduce::L1, 18>, 1));
  r.add(kernel("ReduceL2", reduceKernel<Reduce::L2, 18>, 1));
  r.add(kernel("ReduceLogSum", reduceKernel<Reduce::LogSum, 18>, 1));
  r.add(kernel("ReduceLogSumExp", reduceKernel<Reduce::LogSumExp, 18>, 1));
  r.add(kernel("ReduceSumSquare", reduceKernel<Reduce::SumSquare, 18>, 1));
  r.add(kernel("ArgMax", argKernel<true>, 1));
  r.add(kernel("ArgMin", argKernel<false>, 1));
}

}  // namespace onyx::exec
