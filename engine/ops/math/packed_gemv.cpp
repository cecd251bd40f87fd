#include "ops/math/packed_gemv.h"

#include <algorithm>

#include "exec/cpu/fast_math.h"

namespace onyx::exec {

void PackedGemv::pack(const float* w, int64_t k, int64_t n, int64_t outputStride, int64_t inputStride) {
  if (packedFrom_ == w && k_ == k && n_ == n && outputStride_ == outputStride && inputStride_ == inputStride)
    return;
  panels_.assign(size_t(gemvPanelsSize(k, n)), 0.0f);
  std::vector<float> column(size_t(inputStride == 1 ? 0 : k));
  for (int64_t o = 0; o < n; ++o) {
    const float* first = w + o * outputStride;
    if (inputStride != 1)
      for (int64_t i = 0; i < k; ++i) column[size_t(i)] = first[i * inputStride];
    packGemvColumn(panels_.data(), k, o, inputStride == 1 ? first : column.data());
  }
  packedFrom_ = w;
  k_ = k;
  n_ = n;
  outputStride_ = outputStride;
  inputStride_ = inputStride;
}

void PackedGemv::run(const KernelContext& ctx, const float* x, float* y) const {
  const int64_t k = k_, n = n_;
  const int64_t panels = (n + kGemvPanel - 1) / kGemvPanel;
  // Two panels or more split between threads when each thread streams at least 128 KiB of weights.
  const int64_t grain = std::max<int64_t>(1, (int64_t(128) << 10) / (k * kGemvPanel * int64_t(sizeof(float))));
  ctx.parallelFor(panels, grain, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t first = p * kGemvPanel, count = std::min(kGemvPanel, n - first);
      fastGemvPanels(panels_.data() + p * k * kGemvPanel, x, k, count, y + first);
    }
  });
}

}  // namespace onyx::exec
