// What slabs share (slabs.h).
#include "exec/cpu/slabs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace onyx::exec {

int64_t slabsForWork(int64_t flops, int64_t units, int threads) {
  const int64_t byWork = std::max<int64_t>(1, flops / kFlopsPerSlab);
  return std::clamp<int64_t>(std::min(byWork, 8 * int64_t(threads)), 1, units);
}

std::vector<SlabRange> blockRanges(int64_t total, int64_t block, int64_t count) {
  const int64_t blocks = (total + block - 1) / block;
  std::vector<SlabRange> ranges;
  int64_t next = 0;  // block
  for (int64_t i = 0; i < count; ++i) {
    const int64_t begin = next * block;
    next += blocks / count + (i < blocks % count ? 1 : 0);
    ranges.push_back({begin, std::min(total, next * block) - begin});
  }
  return ranges;
}

float* slabThreadBuffer(SlabBuffer use, size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffers[kSlabBufferUses];
  Buffer& buffer = buffers[use];
  if (bytes > buffer.size) {
    std::free(buffer.data);
    buffer.size = (bytes + 4095) / 4096 * 4096;
    buffer.data = std::aligned_alloc(4096, buffer.size);
    if (!buffer.data) {
      buffer.size = 0;
      throw std::bad_alloc();
    }
  }
  return static_cast<float*>(buffer.data);
}

void copyRows(const float* from, int64_t fromStride, float* to, int64_t toStride, int64_t rows, int64_t columns) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(to + r * toStride, from + r * fromStride, size_t(columns) * sizeof(float));
}

}  // namespace onyx::exec
