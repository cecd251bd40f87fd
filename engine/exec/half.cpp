#include "exec/half.h"

namespace onyx::exec {

uint16_t Half::fromFloat(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN
  if (absx >= 0x47800000u) return uint16_t(sign | 0x7c00u);  // overflow to inf (65520 rounds up)
  if (absx < 0x38800000u) {                                  // subnormal or zero half
    if (absx < 0x33000000u) return uint16_t(sign);           // below half the smallest subnormal
    uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    // A half subnormal counts units of 2^-24: mant * 2^(e - 150) / 2^-24 = mant >> (126 - e).
    uint32_t rshift = uint32_t(126 - int(absx >> 23));
    uint32_t shifted = mant >> rshift;
    uint32_t rem = mant & ((1u << rshift) - 1);
    uint32_t halfway = 1u << (rshift - 1);
    if (rem > halfway || (rem == halfway && (shifted & 1u))) ++shifted;
    return uint16_t(sign | shifted);
  }
  uint32_t rounded = absx + 0xfffu + ((absx >> 13) & 1u);  // round to nearest even
  rounded -= 0x38000000u;                                  // rebias exponent 127 -> 15
  uint32_t h = rounded >> 13;
  if (h >= 0x7c00u) h = 0x7c00u;
  return uint16_t(sign | h);
}

float Half::toFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      bits = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

}  // namespace onyx::exec
