#pragma once
// ONYX_ISA_DISPATCHED(ret, name, (params), (args)) defines `ret name(params)`, which runs `name##Body` (plain
// loops, marked ONYX_ISA_BODY) compiled for the instruction set exec::cpuIsa() picks: AVX-512, AVX2 + FMA or
// the x86-64 baseline. The body is inlined into one copy per set, so GCC vectorises it 16 or 8 floats wide,
// and ONYX_CPU_ISA=avx2 takes the AVX2 copy on any machine (target_clones would pick by the CPU alone).
#include "exec/cpu/cpu_isa.h"

#define ONYX_ISA_BODY [[gnu::always_inline]] inline

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
