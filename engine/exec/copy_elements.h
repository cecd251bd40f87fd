#pragma once
// Copies a run of elements between tensors of one type: bytes for plain types, assignment for strings (a
// string tensor holds std::string objects, and copying their bytes shared and later double-freed their
// buffers: Scan's slices and ConcatFromSequence, found by reading the kernels for fuzzing).
#include <cstdint>
#include <cstring>
#include <string>

#include "exec/tensor_value.h"

namespace onyx::exec {

inline void copyElements(TensorValue& dst, int64_t dstAt, const TensorValue& src, int64_t srcAt, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DataType::String) {
    for (int64_t i = 0; i < count; ++i) dst.data<std::string>()[dstAt + i] = src.data<std::string>()[srcAt + i];
    return;
  }
  const size_t bytes = elementBytes(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw()) + size_t(dstAt) * bytes,
              static_cast<const char*>(src.raw()) + size_t(srcAt) * bytes, size_t(count) * bytes);
}

}  // namespace onyx::exec
