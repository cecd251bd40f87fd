#pragma once
// ONYX_VECTOR_CLONES: compile a function of plain loops once per ISA (AVX-512, AVX2 + FMA, baseline x86-64)
// and pick the clone at load time, so GCC vectorises it 16 or 8 floats wide while the library still runs on
// any x86-64 (the engine's default target is the baseline, SSE2). Clang (the sanitizer and fuzz builds)
// clones for haswell and the baseline only, as exec/cpu/fast_math.cpp does. Other architectures: no clones.
#if defined(__x86_64__) && defined(__clang__)
#define ONYX_VECTOR_CLONES __attribute__((target_clones("arch=haswell", "default")))
#elif defined(__x86_64__) && defined(__GNUC__)
#define ONYX_VECTOR_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define ONYX_VECTOR_CLONES
#endif
