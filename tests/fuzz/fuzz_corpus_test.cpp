// The fuzz entry over a seeded corpus of mutated models, so every build (gcc included) exercises it:
// bit flips, byte edits, cut and duplicated ranges and splices of valid models, a few thousand in all.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace onyx {
namespace {

const char* const kSeedTexts[] = {
    R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x, bool c) => (float[N, 4] y) {
  t = Relu(x)
  y = If(c) <then_branch = a () => (float[N, 4] z) { z = Add(t, x) }, else_branch = b () => (float[N, 4] w) { w = Neg(t) }>
})",
    R"(<ir_version: 8, opset_import: ["" : 17]>
loop (int64 n, bool go, float[4] v) => (float[4] out) {
  out = Loop(n, go, v) <body = body (int64 i, bool cond, float[4] acc) => (bool keep, float[4] next) {
    keep = Identity(cond)
    next = Mul(acc, acc)
  }>
})",
    R"(<ir_version: 8, opset_import: ["" : 17]>
conv (float[1, 3, 8, 8] x, float[4, 3, 3, 3] w) => (float[1, 4, 6, 6] y) {
  c = Conv <kernel_shape = [3, 3], strides = [1, 1], pads = [0, 0, 0, 0]> (x, w)
  s = Constant <value = float[2] {1.5, -2.0}> ()
  y = Relu(c)
})",
};

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  for (const char* text : kSeedTexts) {
    auto model = parseModelText(text);
    EXPECT_TRUE(model.ok());
    if (!model) continue;
    auto bytes = serializeModel(**model);
    EXPECT_TRUE(bytes.ok());
    if (bytes) out.push_back(*bytes);
  }
  return out;
}

std::string mutate(std::string bytes, const std::vector<std::string>& pool, std::mt19937& random) {
  auto pick = [&random](size_t bound) { return bound == 0 ? size_t(0) : size_t(random() % bound); };
  int edits = 1 + int(random() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (random() % 7) {
      case 0:
        if (!bytes.empty()) bytes[pick(bytes.size())] ^= char(1u << (random() % 8));
        break;
      case 1:
        if (!bytes.empty()) bytes[pick(bytes.size())] = char(random());
        break;
      case 2:
        bytes.insert(bytes.begin() + long(pick(bytes.size() + 1)), char(random()));
        break;
      case 3:
        if (!bytes.empty()) {
          size_t at = pick(bytes.size());
          bytes.erase(at, 1 + pick(std::min<size_t>(16, bytes.size() - at)));
        }
        break;
      case 4:
        bytes.resize(pick(bytes.size() + 1));
        break;
      case 5:
        if (!bytes.empty()) {
          size_t at = pick(bytes.size());
          bytes.insert(at, bytes.substr(at, 1 + pick(32)));
        }
        break;
      default: {
        const std::string& other = pool[pick(pool.size())];
        bytes = bytes.substr(0, pick(bytes.size() + 1)) + other.substr(pick(other.size() + 1));
        break;
      }
    }
  }
  return bytes;
}

TEST(FuzzLoad, SeededMutationsNeverCrash) {
  std::vector<std::string> pool = seeds();
  ASSERT_EQ(pool.size(), std::size(kSeedTexts));
  std::mt19937 random(12345);
  size_t loaded = 0;
  const int iterations = 5000;
  for (int i = 0; i < iterations; ++i) {
    std::string input = mutate(pool[random() % pool.size()], pool, random);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    loaded += parseModel(input, {}, "mutant").ok();
  }
  std::cout << "[ fuzz corpus ] " << iterations << " mutants, " << loaded << " of them loaded\n";
  // Both paths must be exercised: some mutants load (and go through save/reload), some are rejected.
  EXPECT_GT(loaded, size_t(iterations / 50));
  EXPECT_LT(loaded, size_t(iterations));
}

}  // namespace
}  // namespace onyx
