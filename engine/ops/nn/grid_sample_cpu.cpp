// GridSample (any number of spatial dims; nearest, linear, cubic; zeros, border, reflection padding) and
// AffineGrid, which builds the sampling grids GridSample reads.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

// A sampling position as an index: beyond +-2^40 (or NaN) it is far outside any image either way, and the
// conversion of such a double to int64 is undefined (fuzz_run: a grid value of 5.5e19 under UBSan).
int64_t farIndex(double position) {
  constexpr double kFar = double(int64_t(1) << 40);
  if (!(position > -kFar)) return -(int64_t(1) << 40);  // also NaN
  return int64_t(std::min(position, kFar));
}

enum class Sampling { Nearest, Linear, Cubic };
enum class Padding { Zeros, Border, Reflection };

// Reflects x into [low, high] by bouncing off the borders. In doubles throughout: a grid value of 1e30 bounces
// more times than an int64 counts (an undefined conversion), and infinity has no reflection (low).
double reflect(double x, double low, double high) {
  double range = high - low;
  if (range <= 0) return low;
  if (!(x < low) && !(x > high)) return x;  // inside, or NaN (the callers' farIndex handles it)
  if (std::isinf(x)) return low;
  const double distance = x < low ? low - x : x - high;
  const double rest = std::fmod(distance, range);
  const bool even = std::fmod(std::floor(distance / range), 2.0) == 0;
  if (x < low) return even ? low + rest : high - rest;
  return even ? high - rest : low + rest;
}

// Keys' cubic convolution weights (alpha -0.75, as PyTorch) for the taps at -1, 0, 1, 2 around t in [0, 1).
std::array<double, 4> cubicWeights(double t) {
  constexpr double a = -0.75;
  auto near = [](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

struct Tap {
  int64_t index;  // -1: outside with zero padding
  double weight;
};

Expected<void> gridSampleKernel(KernelContext& ctx) {
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  auto [inBound, gridBound] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  auto& in = inBound; auto& grid = gridBound;
  int64_t spatial = in.rank() - 2;
  if (spatial < 1) return ctx.error("X must be [N, C, spatial...], got " + in.describe(), 0);
  if (grid.rank() != in.rank() || grid.dim(0) != in.dim(0) || grid.dims().back() != spatial)
    return ctx.error(
        "grid must be [N, out spatial..., " + std::to_string(spatial) + "] for X " + in.describe(), 1);
  std::string modeName = ctx.attrString("mode", ctx.opset() >= 20 ? "linear" : "bilinear");
  Sampling mode;
  if (modeName == "nearest")
    mode = Sampling::Nearest;
  else if (modeName == "linear" || modeName == "bilinear")
    mode = Sampling::Linear;
  else if (modeName == "cubic" || modeName == "bicubic")
    mode = Sampling::Cubic;
  else
    return ctx.error("mode must be nearest, linear or cubic, got '" + modeName + "'");
  std::string paddingName = ctx.attrString("padding_mode", "zeros");
  Padding padding;
  if (paddingName == "zeros")
    padding = Padding::Zeros;
  else if (paddingName == "border")
    padding = Padding::Border;
  else if (paddingName == "reflection")
    padding = Padding::Reflection;
  else
    return ctx.error("padding_mode must be zeros, border or reflection, got '" + paddingName + "'");
  bool alignCorners = ctx.attrInt("align_corners", 0) != 0;

  int64_t batch = in.dim(0), channels = in.dim(1);
  Dims outDims{batch, channels};
  int64_t points = 1;
  for (int64_t d = 1; d < grid.rank() - 1; ++d) {
    outDims.push_back(grid.dim(d));
    points *= grid.dim(d);
  }
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  std::vector<int64_t> sizes(static_cast<size_t>(spatial)), strides(static_cast<size_t>(spatial));
  int64_t volume = 1;
  for (int64_t d = spatial - 1; d >= 0; --d) {
    sizes[size_t(d)] = in.dim(d + 2);
    strides[size_t(d)] = volume;
    volume *= sizes[size_t(d)];
  }
  // The continuous coordinate range a grid value of -1..1 covers.
  double lowEdge = alignCorners ? 0.0 : -0.5;
  auto high = [&](int64_t d) {
    return alignCorners ? double(sizes[size_t(d)] - 1) : double(sizes[size_t(d)]) - 0.5;
  };
  auto resolve = [&](int64_t d, int64_t i) -> int64_t {
    int64_t size = sizes[size_t(d)];
    if (size == 0) return -1;  // no sample to clamp to (std::clamp(i, 0, -1) is undefined)
    switch (padding) {
      case Padding::Zeros:
        return i >= 0 && i < size ? i : -1;
      case Padding::Border:
        return std::clamp<int64_t>(i, 0, size - 1);
      case Padding::Reflection:
        return std::clamp<int64_t>(int64_t(reflect(double(i), lowEdge, high(d))), 0, size - 1);
    }
    return -1;
  };
  // The grid has its own float type (T2), not always X's (fuzz_run: a float16 grid read as float past its end
  // under ASan).
  std::vector<double> gridData(size_t(grid.count()));
  for (int64_t i = 0; i < grid.count(); ++i) gridData[size_t(i)] = grid.doubleAt(i);
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.template data<T>();
    T* dst = (*y)->template data<T>();
    std::vector<std::vector<Tap>> taps(static_cast<size_t>(spatial));
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t p = 0; p < points; ++p) {
        const double* coords = gridData.data() + (n * points + p) * spatial;
        for (int64_t d = 0; d < spatial; ++d) {
          // The grid lists coordinates innermost dimension first (x, y, z).
          double normalized = coords[spatial - 1 - d];
          int64_t size = sizes[size_t(d)];
          double pos = alignCorners ? (normalized + 1) / 2 * double(size - 1)
                                    : ((normalized + 1) * double(size) - 1) / 2;
          if (mode == Sampling::Nearest)
            pos = std::nearbyint(pos);  // round half to even, as the reference's test data
          if (pos < lowEdge || pos > high(d)) {
            if (padding == Padding::Border)
              pos = std::clamp(pos, 0.0, double(std::max<int64_t>(size - 1, 0)));
            else if (padding == Padding::Reflection)
              pos = reflect(pos, lowEdge, high(d));
          }
          auto& dimTaps = taps[size_t(d)];
          dimTaps.clear();
          if (mode == Sampling::Nearest) {
            dimTaps.push_back({resolve(d, farIndex(pos)), 1.0});
          } else {
            double base = std::floor(pos), t = pos - base;
            auto first = farIndex(base);
            if (mode == Sampling::Linear) {
              dimTaps.push_back({resolve(d, first), 1 - t});
              dimTaps.push_back({resolve(d, first + 1), t});
            } else {
              auto w = cubicWeights(t);
              for (int64_t k = 0; k < 4; ++k) dimTaps.push_back({resolve(d, first - 1 + k), w[size_t(k)]});
            }
          }
        }
        // Every combination of one tap per dimension; a zero-padded tap contributes nothing.
        std::vector<size_t> choice(static_cast<size_t>(spatial), 0);
        for (int64_t c = 0; c < channels; ++c) {
          const T* plane = src + (n * channels + c) * volume;
          double sum = 0;
          std::fill(choice.begin(), choice.end(), 0);
          while (true) {
            double weight = 1;
            int64_t offset = 0;
            for (int64_t d = 0; d < spatial && offset >= 0; ++d) {
              const Tap& tap = taps[size_t(d)][choice[size_t(d)]];
              if (tap.index < 0)
                offset = -1;
              else
                offset += tap.index * strides[size_t(d)];
              weight *= tap.weight;
            }
            if (offset >= 0) sum += weight * double(ComputeType<T>(plane[offset]));
            int64_t d = spatial - 1;
            for (; d >= 0; --d) {
              if (++choice[size_t(d)] < taps[size_t(d)].size()) break;
              choice[size_t(d)] = 0;
            }
            if (d < 0) break;
          }
          dst[(n * channels + c) * points + p] = fromCompute<T>(ComputeType<T>(sum));
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// AffineGrid: grid[n, ..., :] = theta[n] @ [x, y, (z,) 1] over the normalized output coordinates.
Expected<void> affineGridKernel(KernelContext& ctx) {
  auto t = ctx.requireTensor(0);
  if (!t) return t.error();
  const TensorValue& theta = **t;
  auto size = ctx.intsInput(1);
  if (!size || (size->size() != 4 && size->size() != 5))
    return ctx.error("size must be [N, C, H, W] or [N, C, D, H, W]", 1);
  int64_t spatial = int64_t(size->size()) - 2;
  int64_t batch = (*size)[0];
  if (theta.rank() != 3 || theta.dim(0) != batch || theta.dim(1) != spatial || theta.dim(2) != spatial + 1)
    return ctx.error("theta must be [N, " + std::to_string(spatial) + ", " + std::to_string(spatial + 1) +
                         "] for size N = " + std::to_string(batch) + ", got " + theta.describe(),
                     0);
  bool alignCorners = ctx.attrInt("align_corners", 0) != 0;
  Dims outDims{batch};
  int64_t points = 1;
  for (int64_t d = 2; d < int64_t(size->size()); ++d) {
    if ((*size)[size_t(d)] < 0) return ctx.error("size entries must be non-negative", 1);
    outDims.push_back((*size)[size_t(d)]);
    points = checkedMul(points, (*size)[size_t(d)]).value_or(-1);
    if (points < 0) return ctx.error("size's spatial entries multiply past 2^63", 1);
  }
  outDims.push_back(spatial);
  auto y = ctx.allocateOutput(0, theta.dtype(), outDims);
  if (!y) return y.error();
  auto normalized = [&](int64_t i, int64_t length) {
    if (alignCorners) return length > 1 ? -1.0 + 2.0 * double(i) / double(length - 1) : 0.0;
    return (2.0 * double(i) + 1.0) / double(length) - 1.0;
  };
  bool ok = dispatchType<kFloats>(theta.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* th = theta.template data<T>();
    T* out = (*y)->template data<T>();
    std::vector<double> base(static_cast<size_t>(spatial) + 1);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t p = 0; p < points; ++p) {
        // base = [x (innermost), y, (z), 1]
        int64_t rest = p;
        for (int64_t d = spatial - 1; d >= 0; --d) {
          int64_t length = outDims[size_t(d + 1)];
          base[size_t(spatial - 1 - d)] = normalized(rest % length, length);
          rest /= length;
        }
        base[size_t(spatial)] = 1.0;
        for (int64_t r = 0; r < spatial; ++r) {
          double sum = 0;
          for (int64_t k = 0; k <= spatial; ++k)
            sum += double(ComputeType<T>(th[(n * spatial + r) * (spatial + 1) + k])) * base[size_t(k)];
          out[(n * points + p) * spatial + r] = fromCompute<T>(ComputeType<T>(sum));
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerGridSampleCpuKernels(KernelRegistry& r) {
  r.add(kernel("GridSample", gridSampleKernel, 16));
  r.add(kernel("AffineGrid", affineGridKernel, 20));
}

}  // namespace onyx::exec
