// Instruction-set detection and the ONYX_CPU_ISA switch (cpu_isa.h).
#include "exec/cpu/cpu_isa.h"

#include <cpuid.h>

#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

namespace onyx::exec {

namespace {

// clang 14 (the sanitizer builds) does not know "f16c" for __builtin_cpu_supports: CPUID leaf 1, ECX bit 29.
bool hasF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
}

// Caps oneDNN at the same level; "native" leaves it (and ONEDNN_MAX_CPU_ISA, if the user set one) alone.
// Called before any oneDNN use: every oneDNN caller asks for the ISA first (dnnl_common.h, gemm.cpp).
void capOneDnn(CpuIsa isa) {
  const dnnl::cpu_isa cap = isa == CpuIsa::Avx512 ? dnnl::cpu_isa::avx512_core
                            : isa == CpuIsa::Avx2 ? dnnl::cpu_isa::avx2
                                                  : dnnl::cpu_isa::sse41;
  dnnl::set_max_cpu_isa(cap);
}

Expected<CpuIsa> readConfiguration() {
  const CpuIsa native = nativeCpuIsa();
  const char* value = std::getenv("ONYX_CPU_ISA");
  Expected<CpuIsa> isa = parseCpuIsa(value ? value : "", native);
  if (isa && *isa != native) capOneDnn(*isa);
  return isa;
}

}  // namespace

std::string_view cpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Avx512:
      return "avx512";
    case CpuIsa::Avx2:
      return "avx2";
    case CpuIsa::Baseline:
      break;
  }
  return "baseline";
}

CpuIsa nativeCpuIsa() {
  static const CpuIsa native = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && hasF16c();
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      return CpuIsa::Avx512;
    return avx2 ? CpuIsa::Avx2 : CpuIsa::Baseline;
  }();
  return native;
}

Expected<CpuIsa> parseCpuIsa(std::string_view value, CpuIsa native) {
  if (value.empty() || value == "native") return native;
  for (CpuIsa isa : {CpuIsa::Baseline, CpuIsa::Avx2, CpuIsa::Avx512}) {
    if (value != cpuIsaName(isa)) continue;
    if (int(isa) > int(native))
      return makeError("ONYX_CPU_ISA=" + std::string(value) + ": this CPU supports at most " +
                       std::string(cpuIsaName(native)));
    return isa;
  }
  return makeError("ONYX_CPU_ISA=" + std::string(value) +
                   ": unknown instruction set (expected native, avx512, avx2 or baseline)");
}

const Expected<CpuIsa>& configuredCpuIsa() {
  static const Expected<CpuIsa> configured = readConfiguration();
  return configured;
}

CpuIsa cpuIsa() {
  const Expected<CpuIsa>& configured = configuredCpuIsa();
  return configured ? *configured : nativeCpuIsa();
}

}  // namespace onyx::exec
