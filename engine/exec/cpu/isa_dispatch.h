#pragma once
// ONYX_ISA_DISPATCHED(ret, name, (params), (args)) defines `ret name(params)`, which runs `name##Body` (plain
// loops, marked ONYX_ISA_BODY) compiled for the instruction set exec::cpuIsa() picks: AVX-512, AVX2 + FMA or
// the x86-64 baseline. The body is inlined into one copy per set, so GCC vectorises it 16 or 8 floats wide,
// and ONYX_CPU_ISA=avx2 takes the AVX2 copy on any machine (target_clones would pick by the CPU alone).
#include "exec/cpu/cpu_isa.h"

#define ONYX_ISA_BODY [[gnu::always_inline]] inline

// ONYX_ISA_TARGET_BEGIN("avx2,fma") ... ONYX_ISA_TARGET_END: every function between, inline helpers included,
// gets that target (GCC's target pragma; clang applies the attribute to each function instead), for files that
// compile one body several times (fast_math_kernels.inc, nbits_gemm_kernels.inc). Whole regions, so vector
// types never cross a target boundary (clang rejects that as an ABI mismatch).
#define ONYX_ISA_STRINGIFY(x) #x
#if defined(__clang__)
#define ONYX_ISA_TARGET_BEGIN(features) \
  _Pragma(ONYX_ISA_STRINGIFY(clang attribute push(__attribute__((target(features))), apply_to = function)))
#define ONYX_ISA_TARGET_END _Pragma("clang attribute pop")
#else
#define ONYX_ISA_TARGET_BEGIN(features) \
  _Pragma("GCC push_options") _Pragma(ONYX_ISA_STRINGIFY(GCC target(features)))
#define ONYX_ISA_TARGET_END _Pragma("GCC pop_options")
#endif

#if defined(__x86_64__)
#define ONYX_ISA_DISPATCHED(ret, name, params, args)                                          \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) ret name##Avx512 params { \
    return name##Body args;                                                                   \
  }                                                                                           \
  __attribute__((target("avx2,fma"))) ret name##Avx2 params { return name##Body args; }       \
  ret name params {                                                                           \
    switch (::onyx::exec::cpuIsa()) {                                                         \
      case ::onyx::exec::CpuIsa::Avx512:                                                      \
        return name##Avx512 args;                                                             \
      case ::onyx::exec::CpuIsa::Avx2:                                                        \
        return name##Avx2 args;                                                               \
      case ::onyx::exec::CpuIsa::Baseline:                                                    \
        break;                                                                                \
    }                                                                                         \
    return name##Body args;                                                                   \
  }
#else
#define ONYX_ISA_DISPATCHED(ret, name, params, args) \
  ret name params { return name##Body args; }
#endif
