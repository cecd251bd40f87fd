// Buffers of the calling thread for slabs (slab_buffers.h).
#include "exec/cpu/slab_buffers.h"

#include <cstdlib>
#include <new>

namespace onyx::exec {

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

}  // namespace onyx::exec
