#pragma once
// The instruction set the fast CPU kernels run on. Detected once from the CPU (AVX-512: avx512f, bw, dq and
// vl; AVX2: avx2, fma and f16c; else the x86-64 baseline), or forced lower by ONYX_CPU_ISA (native, avx512,
// avx2, baseline) so that tests and benchmarks run the AVX2 paths on an AVX-512 machine. The same level caps
// oneDNN (dnnl::set_max_cpu_isa) before its first primitive, so its convolutions and products follow.
#include <string_view>

#include "util/expected.h"

namespace onyx::exec {

enum class CpuIsa { Baseline, Avx2, Avx512 };

std::string_view cpuIsaName(CpuIsa isa);  // "baseline", "avx2", "avx512"
CpuIsa nativeCpuIsa();
// ONYX_CPU_ISA's meaning for a CPU whose best is `native`: "" and "native" keep it; a named ISA the CPU
// lacks, or an unknown name, is an error that says what the variable accepts.
Expected<CpuIsa> parseCpuIsa(std::string_view value, CpuIsa native);
// ONYX_CPU_ISA as read the first time any kernel or the executor asks (oneDNN is capped then); the error of
// an invalid value, which Executor::create reports.
const Expected<CpuIsa>& configuredCpuIsa();
// What kernels dispatch on: the configured ISA, the native one while the variable is invalid (no executor
// is created then, so nothing runs on it).
CpuIsa cpuIsa();

}  // namespace onyx::exec
