#pragma once
// Denormal floats flushed to zero during runs (x86's MXCSR FTZ and DAZ bits), as inference runtimes do: on
// Intel CPUs every arithmetic instruction that meets or makes a denormal takes a microcode assist of a
// hundred cycles or more. Attention's softmax leaves probabilities of 1e-40 and less, and on a Sapphire
// Rapids Xeon bert_small's scores-by-values products ran at 5 GFLOP/s instead of 90 (one thread 14.5 ms,
// 8.4 ms flushed). The values lost are below 1.2e-38. MXCSR belongs to a thread: the run's caller gets it
// for the run and back after; the OpenMP threads that run our loops and oneDNN's primitives, and the shared
// runs' helpers, keep it (they compute only for runs). ONYX_KEEP_DENORMALS=1 turns it off (A/B).
namespace onyx::exec {

// Whether runs flush denormals: true unless ONYX_KEEP_DENORMALS is set to 1 (read once).
bool flushDenormalsByDefault();

// Sets FTZ and DAZ on the calling thread.
void flushDenormalsOnThisThread();

// The calling thread flushes while this lives; its previous mode comes back after. Also makes sure the
// OpenMP team of up to `threads` this thread starts flushes (once per thread and team size).
class DenormalsFlushed {
 public:
  DenormalsFlushed(bool on, int threads);
  ~DenormalsFlushed();
  DenormalsFlushed(const DenormalsFlushed&) = delete;
  DenormalsFlushed& operator=(const DenormalsFlushed&) = delete;

 private:
  bool on_ = false;
  unsigned saved_ = 0;
};

}  // namespace onyx::exec
