// fast_math's clones give the same results: they run the same operations in the same order, sums on sixteen
// lanes whatever the register width. The AVX2 and AVX-512 clones agree bit for bit; the baseline's differs in
// the last bits, as it has no fused multiply-add to contract a * b + c into. Lengths around and between the
// register widths, NaN rows included.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "exec/cpu/cpu_isa.h"
#include "exec/cpu/fast_math_sets.h"

namespace onyx::exec {
namespace {

struct Clone {
  std::string name;
  void (*geluErf)(const float*, float*, int64_t, float, float);
  void (*sumPixels)(const float*, int64_t, int64_t, float*);
  void (*poolRowMax)(const PoolRow&);
  void (*poolRowSum)(const PoolRow&);
  float (*layerNormRow)(const float*, float*, int64_t, const float*, const float*, float, float*);
  void (*softmaxRows)(const float*, float*, int64_t, int64_t, bool);
};

#define ONYX_CLONE(set)                                                                                   \
  Clone {                                                                                                 \
    #set, &set::fastGeluErf, &set::fastSumPixels, &set::fastPoolRowMax, &set::fastPoolRowSum,             \
        &set::fastLayerNormRow, &set::fastSoftmaxRows                                                     \
  }

// The clones this CPU runs, baseline first.
std::vector<Clone> runnableClones() {
  std::vector<Clone> clones = {ONYX_CLONE(baseline)};
  if (nativeCpuIsa() >= CpuIsa::Avx2) clones.push_back(ONYX_CLONE(avx2));
  if (nativeCpuIsa() >= CpuIsa::Avx512) clones.push_back(ONYX_CLONE(avx512));
  return clones;
}

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

// Runs `compute` (writing into its argument) on every clone: the AVX-512 clone's bits equal the AVX2
// clone's, and the AVX2 clone's are close to the baseline's.
void expectSameBits(const std::string& what, size_t size, const std::function<void(const Clone&, std::vector<float>&)>& compute) {
  std::vector<Clone> clones = runnableClones();
  std::vector<std::vector<float>> results(clones.size(), std::vector<float>(size));
  for (size_t c = 0; c < clones.size(); ++c) compute(clones[c], results[c]);
  for (size_t c = 1; c < clones.size(); ++c) {
    const std::vector<float>& want = results[c == 1 ? 0 : 1];
    const std::vector<float>& got = results[c];
    for (size_t i = 0; i < size; ++i) {
      SCOPED_TRACE(what + ", " + clones[c].name + " against " + clones[c == 1 ? 0 : 1].name + ", element " +
                   std::to_string(i));
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(got[i]));
      } else if (c == 1) {
        ASSERT_NEAR(got[i], want[i], 1e-5 * std::fabs(want[i]) + 1e-6);
      } else {
        ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << got[i] << " against " << want[i];
      }
    }
  }
}

TEST(FastMathSets, AvxClonesAgreeBitForBitAndWithTheBaseline) {
  if (runnableClones().size() < 2) GTEST_SKIP() << "this CPU runs only the baseline clone";
  for (int64_t n : {1, 7, 8, 15, 16, 17, 24, 33, 77, 128, 1000}) {
    const std::string at = "n " + std::to_string(n);
    std::vector<float> x = randomFloats(size_t(3 * n), uint32_t(n), -30.0f, 30.0f);
    x[size_t(n + n / 2)] = NAN;  // the second row
    expectSameBits("softmax, " + at, x.size(), [&](const Clone& c, std::vector<float>& y) {
      c.softmaxRows(x.data(), y.data(), 3, n, false);
    });
    expectSameBits("log-softmax, " + at, x.size(), [&](const Clone& c, std::vector<float>& y) {
      c.softmaxRows(x.data(), y.data(), 3, n, true);
    });
    std::vector<float> row = randomFloats(size_t(n), 7, 90.0f, 110.0f);  // far from zero: the correction pass
    std::vector<float> scale = randomFloats(size_t(n), 8, 0.5f, 2.0f), bias = randomFloats(size_t(n), 9, -1.0f, 1.0f);
    expectSameBits("layer norm, " + at, size_t(n + 2), [&](const Clone& c, std::vector<float>& y) {
      y[size_t(n)] = c.layerNormRow(row.data(), y.data(), n, scale.data(), bias.data(), 1e-5f, &y[size_t(n) + 1]);
    });
    expectSameBits("GELU, " + at, x.size(), [&](const Clone& c, std::vector<float>& y) {
      c.geluErf(x.data(), y.data(), int64_t(x.size()), 0, 0);
    });
    // n channels over 37 pixels, summed per channel.
    std::vector<float> pixels = randomFloats(size_t(37 * n), 10, -1.0f, 1.0f);
    expectSameBits("pixel sums, " + at, size_t(n), [&](const Clone& c, std::vector<float>& y) {
      c.sumPixels(pixels.data(), 37, n, y.data());
    });
    // A 3 x 3 stride-2 pooling row over 3 rows of 9 pixels of n channels, padded by one on the left.
    const int64_t width = 9, outWidth = 5;
    std::vector<float> image = randomFloats(size_t(3 * width * n), 11, -5.0f, 5.0f);
    image[size_t(width * n + 2)] = NAN;
    const float* rows[3] = {image.data(), image.data() + width * n, image.data() + 2 * width * n};
    std::vector<int64_t> start, count, taps = {0, n, 2 * n};
    for (int64_t ow = 0; ow < outWidth; ++ow) {
      const int64_t first = std::max<int64_t>(0, ow * 2 - 1), last = std::min<int64_t>(width, ow * 2 + 2);
      start.push_back(first * n);
      count.push_back(last - first);
    }
    std::vector<float> scratch(size_t(width * n));
    for (bool isMax : {true, false})
      expectSameBits(std::string(isMax ? "max" : "sum") + " pool row, " + at, size_t(outWidth * n),
                     [&](const Clone& c, std::vector<float>& y) {
                       const PoolRow pass{rows, 3, width * n, scratch.data(), start.data(), count.data(), taps.data(),
                                          outWidth, n, y.data(), n};
                       (isMax ? c.poolRowMax : c.poolRowSum)(pass);
                     });
  }
}

}  // namespace
}  // namespace onyx::exec
