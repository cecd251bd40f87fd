#pragma once
// A float's bits as an unsigned integer that orders as the floats do: negative values below positive ones
// (all bits flipped), positive ones above (the sign bit set), NaN above infinity. Adding +0 makes -0 (and,
// while runs flush denormals, a denormal) +0, equal as the floats compare. Without branches: selecting or
// sorting scores on these keys (TopK, NonMaxSuppression) compares integers, and a branch per element on
// random signs cost more than the selection.
#include <bit>
#include <cmath>
#include <cstdint>

namespace onyx {

inline uint32_t orderedFloatBits(float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v + 0.0f);
  const uint32_t key = bits ^ (uint32_t(int32_t(bits) >> 31) | 0x80000000u);
  return std::isnan(v) ? 0xFFFFFFFFu : key;
}

// One integer per candidate that sorts as (score, position) with ties to the lower position: the score's
// ordered bits over the position, reversed where the keys sort descending (the largest first), so that the
// lower position still comes first among equal scores. Positions below 2^32.
inline uint64_t scoreRankKey(float score, uint32_t position, bool descending) {
  return uint64_t(orderedFloatBits(score)) << 32 | (descending ? 0xFFFFFFFFu - position : position);
}

// The position a scoreRankKey holds.
inline uint32_t scoreRankPosition(uint64_t key, bool descending) {
  const uint32_t low = uint32_t(key);
  return descending ? 0xFFFFFFFFu - low : low;
}

}  // namespace onyx
