#include "exec/cpu/denormals.h"

#include <omp.h>

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define ONYX_HAS_MXCSR 1
#endif

namespace onyx::exec {
namespace {

#ifdef ONYX_HAS_MXCSR
constexpr unsigned kFlushBits = 0x8040;  // FTZ (bit 15) and DAZ (bit 6)
#endif

}  // namespace

bool flushDenormalsByDefault() {
  static const bool flush = [] {
    const char* keep = std::getenv("ONYX_KEEP_DENORMALS");
    return !(keep && std::strcmp(keep, "1") == 0);
  }();
  return flush;
}

void flushDenormalsOnThisThread() {
#ifdef ONYX_HAS_MXCSR
  _mm_setcsr(_mm_getcsr() | kFlushBits);
#endif
}

DenormalsFlushed::DenormalsFlushed(bool on, int threads) : on_(on) {
#ifdef ONYX_HAS_MXCSR
  if (!on_) return;
  saved_ = _mm_getcsr();
  flushDenormalsOnThisThread();
  // libgomp keeps a team of threads per thread that starts parallel regions; a team that grows gets new
  // threads. Each is set once, in a region of its own.
  thread_local int flushedTeam = 1;
  if (threads > flushedTeam) {
#pragma omp parallel num_threads(threads)
    flushDenormalsOnThisThread();
    flushedTeam = threads;
  }
#else
  (void)threads;
#endif
}

DenormalsFlushed::~DenormalsFlushed() {
#ifdef ONYX_HAS_MXCSR
  if (on_) _mm_setcsr(saved_);
#endif
}

}  // namespace onyx::exec
