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
  const int64_t panelBytes = k * kGemvPanel * int64_t(sizeof(float));
  // Fewer than 4 panels also split their inputs, in parts of about 64 KiB, summed in order afterwards
  // (decided by the sizes alone: the same rounding on any thread count). EfficientNet-B0's late excitation
  // fc1 (1152 inputs, 48 outputs: one 295 KB panel) took 20 us a run on one thread, streaming its weights at
  // about 15 GB/s.
  constexpr int64_t kPartBytes = int64_t(64) << 10;
  const int64_t parts = panels >= 4 ? 1 : std::clamp<int64_t>((panelBytes + kPartBytes - 1) / kPartBytes, 1, k);
  if (parts == 1) {
    // Two panels or more split between threads when each thread streams at least 128 KiB of weights.
    const int64_t grain = std::max<int64_t>(1, (int64_t(128) << 10) / panelBytes);
    ctx.parallelFor(panels, grain, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t first = p * kGemvPanel, count = std::min(kGemvPanel, n - first);
        fastGemvPanels(panels_.data() + p * k * kGemvPanel, x, k, count, y + first);
      }
    });
    return;
  }
  const int64_t partK = (k + parts - 1) / parts;
  const int64_t used = (k + partK - 1) / partK;
  std::vector<float> partial(size_t(used * n));
  ctx.parallelFor(panels * used, 1, [&](int64_t begin, int64_t end) {
    for (int64_t job = begin; job < end; ++job) {
      const int64_t p = job / used, part = job % used;
      const int64_t first = p * kGemvPanel, count = std::min(kGemvPanel, n - first);
      const int64_t from = part * partK, length = std::min(partK, k - from);
      fastGemvPanels(panels_.data() + (p * k + from) * kGemvPanel, x + from, length, count,
                     partial.data() + part * n + first);
    }
  });
  std::copy(partial.begin(), partial.begin() + n, y);
  for (int64_t part = 1; part < used; ++part) fastAddInto(y, partial.data() + part * n, n);
}

}  // namespace onyx::exec
