#pragma once
// What the oneDNN kernels share: the CPU engine and the tags of plain row-major layouts.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <optional>
#include <vector>

#include "exec/cpu/cpu_isa.h"
#include "exec/tensor_value.h"
#include "ir/tensor.h"

namespace onyx::exec {

using dnnl::memory;
using Tag = memory::format_tag;

inline dnnl::engine& cpuEngine() {
  // The ISA first: ONYX_CPU_ISA caps oneDNN before its first primitive.
  static dnnl::engine engine((cpuIsa(), dnnl::engine::kind::cpu), 0);
  return engine;
}

// ONNX dilations (1: dense) as oneDNN counts them (0: dense).
inline dnnl::memory::dims oneDnnDilations(const std::vector<int64_t>& onnx) {
  dnnl::memory::dims out;
  for (int64_t d : onnx) out.push_back(d - 1);
  return out;
}

inline Tag plainTag(size_t rank) {
  switch (rank) {
    case 1:
      return Tag::a;
    case 2:
      return Tag::ab;
    case 3:
      return Tag::abc;
    case 4:
      return Tag::abcd;
    case 5:
      return Tag::abcde;
    case 6:
      return Tag::abcdef;
    default:
      return Tag::undef;
  }
}

// oneDNN 2.6 gives a second eltwise post-op of one algorithm the first one's parameters (seen for Conv and
// MatMul): true when the last of `ops` (anything with an `algorithm`, undef for sums and binaries) would be
// such a second one, and an epilogue chain must stop before it.
template <class PostOpT>
bool repeatsAlgorithm(const std::vector<PostOpT>& ops) {
  const dnnl::algorithm last = ops.back().algorithm;
  if (last == dnnl::algorithm::undef) return false;
  for (size_t k = 0; k + 1 < ops.size(); ++k)
    if (ops[k].algorithm == last) return true;
  return false;
}

}  // namespace onyx::exec
