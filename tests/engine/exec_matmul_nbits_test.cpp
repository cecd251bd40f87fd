// MatMulNBits' panel product (ops/contrib/nbits_gemm.h) against a product of weights dequantized here from
// the ONNX layout, in double: every instruction set the CPU has (AVX-512, AVX2, the x86-64 baseline), with
// 2, 4 and 8 bits, zero points absent or given, g_idx, bias, and sizes that leave partial register tiles,
// partial panels and a partial last block. Then the executor's "panels" kernel against the reference one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "exec/half.h"
#include "exec/thread_pool.h"
#include "exec_kernel_test_util.h"
#include "ops/contrib/nbits_gemm.h"

namespace onyx::exec {
namespace {

using contrib::NBitsIsa;
using contrib::NBitsShape;

struct NBitsCase {
  int64_t m, k, n, bits, blockSize;
  bool zeros, groups, bias;
};

struct NBitsWeights {
  std::vector<uint8_t> b;  // n x blocks x blockSize * bits / 8, low bits first
  std::vector<float> scales, zeros;
  std::vector<int32_t> groups;
  std::vector<double> dequantized;  // n x k
};

NBitsWeights makeWeights(const NBitsCase& c, std::mt19937& rng) {
  const NBitsShape shape{c.k, c.n, c.bits, c.blockSize};
  const int64_t blocks = shape.blocks(), blob = c.blockSize * c.bits / 8, maxCode = (1 << c.bits) - 1;
  std::uniform_int_distribution<int> code(0, int(maxCode));
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  NBitsWeights w;
  w.b.assign(size_t(c.n * blocks * blob), 0);
  for (int64_t i = 0; i < c.n * blocks; ++i) w.scales.push_back(0.01f + 0.1f * unit(rng));
  if (c.zeros)
    for (int64_t i = 0; i < c.n * blocks; ++i) w.zeros.push_back(float(code(rng)) + unit(rng) - 0.5f);
  if (c.groups)
    for (int64_t r = 0; r < c.k; ++r) w.groups.push_back(int32_t((r * 7 + 3) % blocks));
  w.dequantized.resize(size_t(c.n * c.k));
  for (int64_t col = 0; col < c.n; ++col)
    for (int64_t r = 0; r < c.k; ++r) {
      const int q = code(rng);
      const int64_t at = (col * blocks + r / c.blockSize) * blob * 8 + (r % c.blockSize) * c.bits;
      w.b[size_t(at / 8)] = uint8_t(w.b[size_t(at / 8)] | (q << (at % 8)));
      const int64_t block = c.groups ? w.groups[size_t(r)] : r / c.blockSize;
      const double zero = c.zeros ? w.zeros[size_t(col * blocks + block)] : double(1 << (c.bits - 1));
      w.dequantized[size_t(col * c.k + r)] = (q - zero) * w.scales[size_t(col * blocks + block)];
    }
  return w;
}

std::vector<NBitsIsa> supportedIsas() {
  std::vector<NBitsIsa> isas{NBitsIsa::Baseline};
  if (contrib::nativeNBitsIsa() != NBitsIsa::Baseline) isas.push_back(NBitsIsa::Avx2);
  if (contrib::nativeNBitsIsa() == NBitsIsa::Avx512) isas.push_back(NBitsIsa::Avx512);
  return isas;
}

TEST(NBitsGemm, EveryInstructionSetMatchesTheDequantizedProduct) {
  const std::vector<NBitsCase> cases = {
      {1, 64, 32, 4, 32, false, false, false},   {13, 45, 33, 4, 16, false, false, true},
      {12, 256, 64, 4, 32, true, false, false},  {25, 300, 70, 4, 256, false, false, true},
      {7, 100, 5, 8, 32, true, false, false},    {30, 128, 96, 8, 128, false, false, true},
      {5, 70, 40, 2, 64, true, false, false},    {9, 48, 31, 2, 16, false, false, false},
      {11, 96, 45, 4, 32, true, true, true},     {3, 40, 64, 4, 16, false, true, false},
      {300, 64, 35, 4, 32, false, false, true},  {6, 1, 3, 4, 16, false, false, false},
  };
  ThreadPool pool(2);
  std::mt19937 rng(22);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (const NBitsCase& c : cases) {
    const NBitsWeights w = makeWeights(c, rng);
    const contrib::NBitsWeights weights{{c.k, c.n, c.bits, c.blockSize}, w.b.data(), w.scales.data(),
                                        c.zeros ? w.zeros.data() : nullptr, c.groups ? w.groups.data() : nullptr};
    std::vector<float> a(size_t(c.m * c.k)), bias(size_t(c.n));
    for (float& v : a) v = value(rng);
    for (float& v : bias) v = value(rng);
    for (NBitsIsa isa : supportedIsas()) {
      const int64_t ldy = c.n + 3;  // a leading dimension wider than the row: nothing past n is written
      std::vector<float> y(size_t(c.m * ldy), 123.0f);
      contrib::nbitsGemm(pool, a.data(), c.m, c.k, weights, c.bias ? bias.data() : nullptr, y.data(), ldy, isa);
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < c.n; ++j) {
          double expected = c.bias ? bias[size_t(j)] : 0.0, magnitude = std::fabs(expected);
          for (int64_t r = 0; r < c.k; ++r) {
            const double term = double(a[size_t(i * c.k + r)]) * w.dequantized[size_t(j * c.k + r)];
            expected += term;
            magnitude += std::fabs(term);
          }
          ASSERT_NEAR(y[size_t(i * ldy + j)], expected, 1e-5 * magnitude + 1e-6)
              << "isa " << int(isa) << " m " << c.m << " k " << c.k << " n " << c.n << " bits " << c.bits << " row " << i
              << " column " << j;
        }
        for (int64_t j = c.n; j < ldy; ++j) ASSERT_EQ(y[size_t(i * ldy + j)], 123.0f) << "column " << j << " past n";
      }
    }
  }
}

// Float16 weights [k, n] through the same micro-kernel (halfWeightsGemm): every instruction set against
// the product in double of the widened weights; partial panels, two row chunks, a bias, and k = 0.
TEST(NBitsGemm, HalfWeightsMatchTheirProductOnEveryInstructionSet) {
  ThreadPool pool(2);
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto [m, k, n, withBias] : {std::tuple<int64_t, int64_t, int64_t, bool>{1, 64, 32, false},
                                   {13, 45, 33, true}, {300, 70, 100, true}, {7, 0, 40, true}, {5, 17, 7, false}}) {
    std::vector<float> a(static_cast<size_t>(m * k)), bias(static_cast<size_t>(n));
    std::vector<uint16_t> w(static_cast<size_t>(k * n));
    for (float& v : a) v = value(rng);
    for (float& v : bias) v = value(rng);
    for (uint16_t& h : w) h = Half::fromFloat(value(rng));
    for (NBitsIsa isa : supportedIsas()) {
      const int64_t ldy = n + 3;
      std::vector<float> y(size_t(m * ldy), 123.0f);
      contrib::halfWeightsGemm(pool, a.data(), m, k, w.data(), k, n, withBias ? bias.data() : nullptr, y.data(), ldy, isa);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double expected = withBias ? bias[size_t(j)] : 0.0, magnitude = std::fabs(expected);
          for (int64_t r = 0; r < k; ++r) {
            const double term = double(a[size_t(i * k + r)]) * Half::toFloat(w[size_t(r * n + j)]);
            expected += term;
            magnitude += std::fabs(term);
          }
          ASSERT_NEAR(y[size_t(i * ldy + j)], expected, 1e-5 * magnitude + 1e-6)
              << "isa " << int(isa) << " m " << m << " k " << k << " n " << n << " row " << i << " column " << j;
        }
        for (int64_t j = n; j < ldy; ++j) ASSERT_EQ(y[size_t(i * ldy + j)], 123.0f) << "column " << j << " past n";
      }
    }
  }
}

// Float32 weights packed once (packPanels: row-major or transposed, scaled) and multiplied on the calling
// thread (multiplyPacked), as attention's heads do: every instruction set against the product in double.
TEST(NBitsGemm, PackedWeightsMatchTheirProductOnEveryInstructionSet) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto [m, k, n, transposed] : {std::tuple<int64_t, int64_t, int64_t, bool>{128, 64, 128, true}, {13, 45, 33, false},
                                     {5, 70, 7, true}, {1, 16, 64, false}}) {
    const int64_t ldw = (transposed ? k : n) + 5;  // rows wider than the weights, as a head's in Q, K, V
    std::vector<float> a(static_cast<size_t>(m * k)), w(static_cast<size_t>((transposed ? n : k) * ldw));
    for (float& v : a) v = value(rng);
    for (float& v : w) v = value(rng);
    const float scale = transposed ? 0.125f : 1.0f;
    std::vector<float> panels(static_cast<size_t>((n + 31) / 32 * k * 32), 99.0f);
    contrib::packPanels(w.data(), ldw, k, n, transposed, panels.data(), scale);
    for (NBitsIsa isa : supportedIsas()) {
      const int64_t ldy = n + 3;
      std::vector<float> y(static_cast<size_t>(m * ldy), 123.0f);
      contrib::multiplyPacked(a.data(), k, m, panels.data(), k, n, y.data(), ldy, isa);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double expected = 0, magnitude = 0;
          for (int64_t r = 0; r < k; ++r) {
            const double weight = double(scale) * (transposed ? w[size_t(j * ldw + r)] : w[size_t(r * ldw + j)]);
            expected += double(a[size_t(i * k + r)]) * weight;
            magnitude += std::fabs(double(a[size_t(i * k + r)]) * weight);
          }
          ASSERT_NEAR(y[size_t(i * ldy + j)], expected, 1e-5 * magnitude + 1e-6)
              << "isa " << int(isa) << " m " << m << " k " << k << " n " << n << " row " << i << " column " << j;
        }
        for (int64_t j = n; j < ldy; ++j) ASSERT_EQ(y[size_t(i * ldy + j)], 123.0f) << "column " << j << " past n";
      }
    }
  }
}

Expected<std::vector<RunValue>> runMicrosoftNode(const testing::NodeCase& c, const std::vector<TensorValue>& inputs,
                                                 const std::string& variant) {
  return testing::runNode(c, inputs, variant);
}

TEST(NBitsGemm, PanelKernelMatchesTheReferenceKernel) {
  std::mt19937 rng(5);
  for (const NBitsCase& c : {NBitsCase{37, 200, 70, 4, 32, true, false, true}, NBitsCase{4, 64, 33, 8, 16, false, false, false}}) {
    const NBitsWeights w = makeWeights(c, rng);
    const int64_t blocks = NBitsShape{c.k, c.n, c.bits, c.blockSize}.blocks(), blob = c.blockSize * c.bits / 8;
    TensorValue b = TensorValue::allocate(DataType::Uint8, {c.n, blocks, blob});
    std::copy(w.b.begin(), w.b.end(), b.data<uint8_t>());
    TensorValue scales = TensorValue::allocate(DataType::Float, {c.n * blocks});
    std::copy(w.scales.begin(), w.scales.end(), scales.data<float>());
    TensorValue zeros;
    if (c.zeros) {
      zeros = TensorValue::allocate(DataType::Float, {c.n * blocks});
      std::copy(w.zeros.begin(), w.zeros.end(), zeros.data<float>());
    }
    std::vector<TensorValue> inputs{testing::randomTensor(DataType::Float, {1, c.m, c.k}, 3), b, scales, zeros};
    if (c.bias) inputs.insert(inputs.end(), {TensorValue(), testing::randomTensor(DataType::Float, {c.n}, 4)});
    testing::NodeCase node{"MatMulNBits", {Attribute::ofInt("K", c.k), Attribute::ofInt("N", c.n), Attribute::ofInt("bits", c.bits),
                                           Attribute::ofInt("block_size", c.blockSize)}};
    node.domain = "com.microsoft";
    auto panels = runMicrosoftNode(node, inputs, "panels");
    auto reference = runMicrosoftNode(node, inputs, "reference");
    ASSERT_TRUE(panels) << panels.error().toString();
    ASSERT_TRUE(reference) << reference.error().toString();
    const TensorValue& fast = std::get<TensorValue>((*panels)[0]);
    const TensorValue& slow = std::get<TensorValue>((*reference)[0]);
    ASSERT_EQ(fast.dims(), (Dims{1, c.m, c.n}));
    EXPECT_TRUE(testing::closeTensors(fast, slow, 1e-4, 1e-5));
  }
}

}  // namespace
}  // namespace onyx::exec
