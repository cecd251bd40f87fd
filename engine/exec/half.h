#pragma once
// float16 and bfloat16 storage types. Kernels compute in float and round on store (round to nearest even).
#include <bit>
#include <cstdint>
#include <cstring>

namespace onyx::exec {

struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(fromFloat(f)) {}
  operator float() const { return toFloat(bits); }  // NOLINT: implicit widening like a builtin type

  static uint16_t fromFloat(float f);
  static float toFloat(uint16_t h);
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) {
    uint32_t u = std::bit_cast<uint32_t>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = uint16_t((u >> 16) | 0x40);  // quiet NaN
    } else {
      bits = uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
  }
  operator float() const { return std::bit_cast<float>(uint32_t(bits) << 16); }  // NOLINT
};

}  // namespace onyx::exec
