#pragma once
// What the oneDNN kernels share: the CPU engine and the tags of plain row-major layouts.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>

namespace onyx::exec {

using dnnl::memory;
using Tag = memory::format_tag;

inline dnnl::engine& cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
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

}  // namespace onyx::exec
