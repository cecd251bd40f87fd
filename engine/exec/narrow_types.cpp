#include "exec/narrow_types.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "util/clamp_or_zero.h"

namespace onyx::exec {
namespace {

struct MiniFloat {
  int exponentBits;
  int mantissaBits;
  int bias;
  bool unsignedZeroNan;  // "fnuz": 0x80 is the only NaN, no negative zero, no infinity
  bool hasInfinity;      // e5m2 only
  bool allOnesIsNan;     // e4m3fn: S.1111.111 is NaN, the rest of the top exponent is finite
  bool hasNan;
};

MiniFloat formatOf(DataType dtype) {
  switch (dtype) {
    case DataType::Float8E4M3FN:
      return {4, 3, 7, false, false, true, true};
    case DataType::Float8E4M3FNUZ:
      return {4, 3, 8, true, false, false, true};
    case DataType::Float8E5M2:
      return {5, 2, 15, false, true, false, true};
    case DataType::Float8E5M2FNUZ:
      return {5, 2, 16, true, false, false, true};
    default:  // Float4E2M1: no infinity, no NaN
      return {2, 1, 1, false, false, false, false};
  }
}

int signBit(const MiniFloat& f) {
  return 1 + f.exponentBits + f.mantissaBits - 1;
}

double largestFinite(const MiniFloat& f) {
  int topExponent = (1 << f.exponentBits) - 1;
  int topMantissa = (1 << f.mantissaBits) - 1;
  if (f.hasInfinity) topExponent -= 1;   // e5m2: the top exponent holds inf and NaN
  if (f.allOnesIsNan) topMantissa -= 1;  // e4m3fn: 1111.111 is NaN
  return std::ldexp(1.0 + double(topMantissa) / double(1 << f.mantissaBits), topExponent - f.bias);
}

uint8_t nanOf(const MiniFloat& f, bool negative) {
  if (f.unsignedZeroNan) return 0x80;
  uint8_t magnitude = f.hasInfinity ? 0x7e : 0x7f;
  return uint8_t(magnitude | (negative ? 0x80 : 0));
}

double miniFloatToDouble(const MiniFloat& f, uint8_t stored) {
  int sign = (stored >> signBit(f)) & 1;
  int exponent = (stored >> f.mantissaBits) & ((1 << f.exponentBits) - 1);
  int mantissa = stored & ((1 << f.mantissaBits) - 1);
  int topExponent = (1 << f.exponentBits) - 1;
  if (f.unsignedZeroNan && stored == 0x80) return std::numeric_limits<double>::quiet_NaN();
  if (f.allOnesIsNan && exponent == topExponent && mantissa == (1 << f.mantissaBits) - 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (f.hasInfinity && exponent == topExponent) {
    if (mantissa != 0) return std::numeric_limits<double>::quiet_NaN();
    return sign ? -INFINITY : INFINITY;
  }
  double magnitude =
      exponent == 0 ? std::ldexp(double(mantissa), 1 - f.bias - f.mantissaBits)
                    : std::ldexp(1.0 + double(mantissa) / double(1 << f.mantissaBits), exponent - f.bias);
  return sign ? -magnitude : magnitude;
}

uint8_t doubleToMiniFloat(const MiniFloat& f, double value, bool saturate) {
  bool negative = std::signbit(value);
  uint8_t signMask = uint8_t(1 << signBit(f));
  if (std::isnan(value)) return f.hasNan ? nanOf(f, false) : signMask;
  double magnitude = std::fabs(value);
  double maxFinite = largestFinite(f);
  auto overflow = [&]() -> uint8_t {
    if (saturate || !f.hasNan) {
      return uint8_t(doubleToMiniFloat(f, maxFinite, true) | (negative ? signMask : 0));
    }
    if (f.hasInfinity) return uint8_t((negative ? 0x80 : 0) | 0x7c);
    return nanOf(f, negative);
  };
  if (std::isinf(magnitude)) return overflow();
  int minNormalExponent = 1 - f.bias;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  int unbiased = exponent - 1;
  int quantumExponent = (unbiased < minNormalExponent ? minNormalExponent : unbiased) - f.mantissaBits;
  double rounded = std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantumExponent)), quantumExponent);
  if (rounded > maxFinite) return overflow();
  uint8_t sign = negative ? signMask : 0;
  if (rounded == 0.0) return f.unsignedZeroNan ? 0 : sign;
  if (f.unsignedZeroNan && sign) sign = 0x80;
  std::frexp(rounded, &exponent);
  unbiased = exponent - 1;
  if (unbiased < minNormalExponent) {
    int mantissa = int(std::ldexp(rounded, f.mantissaBits - minNormalExponent));
    return uint8_t(sign | mantissa);
  }
  int mantissa = int(std::ldexp(rounded, f.mantissaBits - unbiased)) - (1 << f.mantissaBits);
  return uint8_t(sign | ((unbiased + f.bias) << f.mantissaBits) | mantissa);
}

// float8e8m0 holds 2^(stored - 127) for stored in [0, 254] and NaN as 0xff; it has no sign and no zero
// (values below 2^-127 become the smallest one).
uint8_t doubleToE8M0(double value, bool saturate, E8M0Rounding rounding) {
  if (std::isnan(value)) return 0xff;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return saturate ? 0xfe : 0xff;
  if (magnitude == 0.0) return 0x00;
  int exponent = 0;
  double fraction = 2.0 * std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^(exponent - 1)
  int unbiased = exponent - 1;
  if (rounding == E8M0Rounding::Up && fraction > 1.0) unbiased += 1;
  if (rounding == E8M0Rounding::Nearest && fraction >= 1.5) unbiased += 1;
  int stored = unbiased + 127;
  if (stored < 0) return 0x00;
  if (stored > 254) return saturate ? 0xfe : 0xff;
  return uint8_t(stored);
}

}  // namespace

bool parseE8M0Rounding(std::string_view text, E8M0Rounding& out) {
  if (text == "up")
    out = E8M0Rounding::Up;
  else if (text == "down")
    out = E8M0Rounding::Down;
  else if (text == "nearest")
    out = E8M0Rounding::Nearest;
  else
    return false;
  return true;
}

bool isNarrowType(DataType dtype) {
  switch (dtype) {
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Float4E2M1:
    case DataType::Int4:
    case DataType::Uint4:
    case DataType::Int2:
    case DataType::Uint2:
      return true;
    default:
      return false;
  }
}

double narrowToDouble(DataType dtype, uint8_t stored) {
  switch (dtype) {
    case DataType::Int4:
    case DataType::Int2:
      return double(int8_t(stored));
    case DataType::Uint4:
    case DataType::Uint2:
      return double(stored);
    case DataType::Float8E8M0:
      if (stored == 0xff) return std::numeric_limits<double>::quiet_NaN();
      return std::ldexp(1.0, int(stored) - 127);
    default:
      return miniFloatToDouble(formatOf(dtype), stored);
  }
}

uint8_t doubleToNarrow(DataType dtype, double value, bool saturate, E8M0Rounding rounding) {
  switch (dtype) {
    case DataType::Int4:
    case DataType::Uint4:
    case DataType::Int2:
    case DataType::Uint2: {
      int bits = dtype == DataType::Int4 || dtype == DataType::Uint4 ? 4 : 2;
      // Past int64 (1e30, or an int64 near its maximum read as 2^63) saturates before the low bits are kept.
      int64_t whole = std::isfinite(value) ? saturateToInteger<int64_t>(std::trunc(value)) : 0;
      uint8_t low = uint8_t(uint64_t(whole) & ((1u << bits) - 1));
      bool isSigned = dtype == DataType::Int4 || dtype == DataType::Int2;
      if (isSigned && (low & (1u << (bits - 1)))) low = uint8_t(low | (0xffu << bits));
      return low;
    }
    case DataType::Float8E8M0:
      return doubleToE8M0(value, saturate, rounding);
    default:
      return doubleToMiniFloat(formatOf(dtype), value, saturate);
  }
}

}  // namespace onyx::exec
