#pragma once
// Where a Conv's trailing SiLU runs: in oneDNN's output pass as its swish post-op, or as our own pass over
// the output after the convolution (fastSilu). Which is faster depends on the CPU. On an AMD EPYC (Zen 4),
// 2 threads, a 1x1 Conv of 16 -> 96 channels on 112 x 112 took 196 us bare, 541 with the post-op and 441
// with the pass, and efficientnet_b0 took 0.88x the time with the pass; on a Sapphire Rapids Xeon, where
// oneDNN's swish costs about 14 cycles per 16 floats, the pass made efficientnet_b0 slower (6.4 against
// 5.9 ms, README). So each Conv times both in its first runs, alternating, and keeps the faster: the least
// of kRunsEach runs each, which a preempted run does not move. Only runs on as many threads as the first
// count: the ThreadTuner alternates the thread count of runs of 8 or more threads too, in step with this.
#include <algorithm>
#include <limits>

namespace onyx::exec {

class SiluPlacement {
 public:
  static constexpr int kRunsEach = 3;

  // Whether this run puts the SiLU into oneDNN's post-ops; while trying, alternately.
  bool postOp() const { return decided_ ? postOp_ : runs_ % 2 == 0; }
  bool decided() const { return decided_; }
  // The time of a run made with postOp()'s answer on `threads` threads; after kRunsEach of each, the faster
  // is kept. A run on another count than the first recorded one is left out.
  void record(double seconds, int threads) {
    if (decided_) return;
    if (threads_ == 0) threads_ = threads;
    if (threads != threads_) return;
    double& best = fastest_[postOp() ? 1 : 0];
    best = std::min(best, seconds);
    if (++runs_ < 2 * kRunsEach) return;
    decided_ = true;
    postOp_ = fastest_[1] < fastest_[0];
  }
  void reset() { *this = SiluPlacement(); }  // a new epilogue

 private:
  double fastest_[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  int runs_ = 0;
  int threads_ = 0;  // of the runs recorded
  bool decided_ = false;
  bool postOp_ = false;
};

}  // namespace onyx::exec
