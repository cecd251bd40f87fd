// Signal processing: DFT, STFT, the Hann/Hamming/Blackman windows and MelWeightMatrix. The transforms are
// direct O(n^2) sums in double precision: they are the reference kernels, exact for any length.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

using Complex = std::complex<double>;

// sum_j x[j] * exp(sign * 2 pi i j k / n) for k in [0, count).
std::vector<Complex> directDft(const std::vector<Complex>& x, int64_t count, double sign) {
  int64_t n = int64_t(x.size());
  std::vector<Complex> out(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    Complex sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      // Reduce j*k modulo n first: the angle stays small, so large lengths keep their precision.
      double angle = sign * 2.0 * std::numbers::pi * double((j * k) % n) / double(n);
      sum += x[size_t(j)] * Complex(std::cos(angle), std::sin(angle));
    }
    out[size_t(k)] = sum;
  }
  return out;
}

Expected<void> dftKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() < 2 || (in.dims().back() != 1 && in.dims().back() != 2))
    return ctx.error("input must end in a dimension of 1 (real) or 2 (complex), got " + in.describe(), 0);
  int64_t axisValue = ctx.opset() >= 20 ? -2 : ctx.attrInt("axis", 1);
  if (ctx.opset() >= 20 && ctx.hasInput(2)) {
    auto axes = ctx.intsInput(2);
    if (!axes || axes->size() != 1) return ctx.error("axis must be a scalar integer", 2);
    axisValue = (*axes)[0];
  }
  auto axis = normalizeAxis(axisValue, in.rank());
  if (!axis || *axis == in.rank() - 1)
    return ctx.error("axis " + std::to_string(axisValue) + " must name a signal dimension of " +
                     in.describe());
  bool inverse = ctx.attrInt("inverse", 0) != 0, onesided = ctx.attrInt("onesided", 0) != 0;
  int64_t inLength = in.dim(*axis);
  // The transform length; an inverse one-sided input holds n/2 + 1 bins of an n-point spectrum.
  int64_t n = inverse && onesided ? 2 * (inLength - 1) : inLength;
  if (ctx.hasInput(1)) {
    auto length = ctx.intsInput(1);
    if (!length || length->size() != 1 || (*length)[0] < 1)
      return ctx.error("dft_length must be a positive scalar integer", 1);
    n = (*length)[0];
  }
  if (n < 1) return ctx.error("the transform length must be positive");
  int64_t outLength = onesided && !inverse ? n / 2 + 1 : n;
  bool realOutput = inverse && onesided;
  Dims outDims = in.dims();
  outDims[size_t(*axis)] = outLength;
  outDims.back() = realOutput ? 1 : 2;
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t outer = 1, inner = 1, parts = in.dims().back();
  for (int64_t d = 0; d < *axis; ++d) outer *= in.dim(d);
  for (int64_t d = *axis + 1; d < in.rank() - 1; ++d) inner *= in.dim(d);
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.template data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        auto read = [&](int64_t k) {
          const T* at = src + ((o * inLength + k) * inner + i) * parts;
          return Complex(double(at[0]), parts == 2 ? double(at[1]) : 0.0);
        };
        std::vector<Complex> signal(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k) {
          if (inverse && onesided && k > n / 2) {
            int64_t mirror = n - k;  // Hermitian symmetry of a real signal's spectrum
            if (mirror < inLength) signal[size_t(k)] = std::conj(read(mirror));
          } else if (k < inLength) {
            signal[size_t(k)] = read(k);
          }
        }
        std::vector<Complex> result = directDft(signal, outLength, inverse ? 1.0 : -1.0);
        for (int64_t k = 0; k < outLength; ++k) {
          Complex v = inverse ? result[size_t(k)] / double(n) : result[size_t(k)];
          T* at = dst + ((o * outLength + k) * inner + i) * outDims.back();
          at[0] = fromCompute<T>(ComputeType<T>(v.real()));
          if (!realOutput) at[1] = fromCompute<T>(ComputeType<T>(v.imag()));
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> stftKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() != 3 || (in.dim(2) != 1 && in.dim(2) != 2))
    return ctx.error("signal must be [batch, length, 1 or 2], got " + in.describe(), 0);
  auto step = ctx.intsInput(1);
  if (!step || step->size() != 1 || (*step)[0] < 1)
    return ctx.error("frame_step must be a positive scalar", 1);
  const TensorValue& window = ctx.input(2);
  int64_t frameLength = window.empty() ? 0 : window.count();
  if (ctx.hasInput(3)) {
    auto length = ctx.intsInput(3);
    if (!length || length->size() != 1 || (*length)[0] < 1)
      return ctx.error("frame_length must be a positive scalar", 3);
    if (!window.empty() && (*length)[0] != frameLength)
      return ctx.error("frame_length differs from the window's length", 3);
    frameLength = (*length)[0];
  }
  if (frameLength < 1) return ctx.error("needs a window or a frame_length");
  int64_t length = in.dim(1), parts = in.dim(2);
  if (frameLength > length) return ctx.error("frame_length is longer than the signal", 3);
  int64_t frames = (length - frameLength) / (*step)[0] + 1;
  bool onesided = ctx.attrInt("onesided", 1) != 0;
  int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;
  auto y = ctx.allocateOutput(0, in.dtype(), {in.dim(0), frames, bins, 2});
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.template data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t b = 0; b < in.dim(0); ++b)
      for (int64_t f = 0; f < frames; ++f) {
        std::vector<Complex> frame(static_cast<size_t>(frameLength));
        for (int64_t j = 0; j < frameLength; ++j) {
          const T* at = src + (b * length + f * (*step)[0] + j) * parts;
          double w = window.empty() ? 1.0 : window.doubleAt(j);
          frame[size_t(j)] = Complex(double(at[0]), parts == 2 ? double(at[1]) : 0.0) * w;
        }
        std::vector<Complex> spectrum = directDft(frame, bins, -1.0);
        for (int64_t k = 0; k < bins; ++k) {
          T* at = dst + ((b * frames + f) * bins + k) * 2;
          at[0] = fromCompute<T>(ComputeType<T>(spectrum[size_t(k)].real()));
          at[1] = fromCompute<T>(ComputeType<T>(spectrum[size_t(k)].imag()));
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Writes `values` as output 0 in the type named by the output_datatype attribute (float by default).
Expected<void> writeTyped(KernelContext& ctx, const std::vector<double>& values, Dims dims) {
  auto dtype = static_cast<DataType>(ctx.attrInt("output_datatype", int64_t(DataType::Float)));
  auto y = ctx.allocateOutput(0, dtype, std::move(dims));
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < values.size(); ++i)
      (*y)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(values[i]));
  });
  return ok ? Expected<void>()
            : ctx.error("output_datatype " + std::to_string(int(dtype)) + " is not supported");
}

// Generalised cosine window: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), with N = size (periodic) or
// size - 1 (symmetric).
Expected<void> cosineWindow(KernelContext& ctx, double a0, double a1, double a2) {
  auto size = ctx.intsInput(0);
  if (!size || size->size() != 1 || (*size)[0] < 0) return ctx.error("size must be a non-negative scalar", 0);
  int64_t count = (*size)[0];
  // The size is data: checked before the doubles are allocated, not only when the output is.
  if (auto checked = checkTensorSize(Dims{count}, int64_t(sizeof(double)), "window of size " + std::to_string(count),
                                     ctx.node().describe());
      !checked)
    return checked.error();
  double period = ctx.attrInt("periodic", 1) != 0 ? double(count) : double(count - 1);
  std::vector<double> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    double phase = period > 0 ? 2.0 * std::numbers::pi * double(i) / period : 0.0;
    values[size_t(i)] = a0 - a1 * std::cos(phase) + a2 * std::cos(2.0 * phase);
  }
  return writeTyped(ctx, values, {count});
}

Expected<void> hannWindowKernel(KernelContext& ctx) {
  return cosineWindow(ctx, 0.5, 0.5, 0.0);
}
Expected<void> hammingWindowKernel(KernelContext& ctx) {
  return cosineWindow(ctx, 25.0 / 46.0, 21.0 / 46.0, 0.0);
}
Expected<void> blackmanWindowKernel(KernelContext& ctx) {
  return cosineWindow(ctx, 0.42, 0.5, 0.08);
}

// Triangular filters spaced evenly on the mel scale, as [dft_length / 2 + 1, num_mel_bins].
Expected<void> melWeightMatrixKernel(KernelContext& ctx) {
  std::vector<double> scalars;
  for (size_t i = 0; i < 5; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if ((*t)->count() != 1) return ctx.error("must be a scalar", int(i));
    scalars.push_back((*t)->doubleAt(0));
  }
  // Checked as doubles before any becomes an integer (fuzz_run: a NaN edge converted to int64 under UBSan).
  for (size_t i = 0; i < 5; ++i)
    if (!std::isfinite(scalars[i])) return ctx.error("must be finite, got " + std::to_string(scalars[i]), int(i));
  if (scalars[0] < 1 || scalars[1] < 1 || scalars[0] > double(int64_t(1) << 32) || scalars[1] > double(int64_t(1) << 32) ||
      scalars[2] <= 0)
    return ctx.error("num_mel_bins and dft_length must be positive counts (at most 2^32), sample_rate positive");
  auto melBins = int64_t(scalars[0]), dftLength = int64_t(scalars[1]);
  double sampleRate = scalars[2], lower = scalars[3], upper = scalars[4];
  if (lower <= -700.0 || upper <= -700.0)
    return ctx.error("lower_edge_hertz and upper_edge_hertz must be above -700 Hz, where the mel scale ends");
  int64_t spectrumBins = dftLength / 2 + 1;
  const std::vector<int64_t> outDims = {spectrumBins, melBins};
  if (auto size = checkTensorSize(outDims, int64_t(sizeof(double)), "output 0", ctx.node().describe()); !size)
    return size.error();
  auto toMel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double lowMel = toMel(lower), melStep = (toMel(upper) - lowMel) / double(melBins + 2);
  std::vector<int64_t> edges(static_cast<size_t>(melBins + 2));
  for (int64_t i = 0; i < melBins + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (double(i) * melStep + lowMel) / 2595.0) - 1.0);
    // Past the spectrum on either side an edge only bounds loops that set nothing: held to one bin beyond.
    const double bin = std::floor(double(dftLength + 1) * hz / sampleRate);
    edges[size_t(i)] = int64_t(std::clamp(bin, -1.0, double(spectrumBins + 1)));
  }
  std::vector<double> values(static_cast<size_t>(spectrumBins * melBins), 0.0);
  auto set = [&](int64_t bin, int64_t mel, double v) {
    if (bin >= 0 && bin < spectrumBins) values[size_t(bin * melBins + mel)] = v;
  };
  for (int64_t m = 0; m < melBins; ++m) {
    int64_t left = edges[size_t(m)], centre = edges[size_t(m + 1)], right = edges[size_t(m + 2)];
    if (centre == left)
      set(centre, m, 1.0);
    else
      for (int64_t j = left; j <= centre; ++j) set(j, m, double(j - left) / double(centre - left));
    for (int64_t j = centre; j < right; ++j) set(j, m, double(right - j) / double(right - centre));
  }
  return writeTyped(ctx, values, {spectrumBins, melBins});
}

}  // namespace

void registerSignalCpuKernels(KernelRegistry& r) {
  r.add(kernel("DFT", dftKernel, 17));
  r.add(kernel("STFT", stftKernel, 17));
  r.add(kernel("HannWindow", hannWindowKernel, 17));
  r.add(kernel("HammingWindow", hammingWindowKernel, 17));
  r.add(kernel("BlackmanWindow", blackmanWindowKernel, 17));
  r.add(kernel("MelWeightMatrix", melWeightMatrixKernel, 17));
}

}  // namespace onyx::exec
