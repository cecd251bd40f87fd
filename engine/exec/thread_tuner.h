#pragma once
// Whether a model runs faster on half the threads asked for. On a 16-core Xeon some models ran slower with
// every core than with half: ssdlite320 took 39.4 ms at 16 threads against 30.3 at 8 (70% of its time is
// detection post-processing on one thread, while the team's threads wait), rnn_lstm_gru 5.1-5.9 against
// 4.5-4.8 in another run of that machine. So the first runs of a model with many threads alternate between
// all of them and half. The first run at each count is not counted (it makes that count's oneDNN primitives);
// after kSamples counted runs at each, later runs take half unless all the threads were at least kMargin
// faster (fewer threads for the same time leave cores to the user's other programs). Runs with other input
// dims tune again. Off with ONYX_TUNE_THREADS=0 or ExecutorOptions::tuneThreadsFrom = 0.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace onyx::exec {

class ThreadTuner {
 public:
  static constexpr int kSamples = 4;
  static constexpr double kMargin = 0.05;

  struct Decision {
    int all = 0;       // threads asked for
    int half = 0;
    double allMs = 0;  // median of the counted runs at each count
    double halfMs = 0;
    int chosen = 0;
  };

  // `from`: the fewest threads asked for that are tuned (0: none).
  explicit ThreadTuner(int from) : from_(from) {}

  // Whether runs asked for this many threads are tuned at all.
  bool tunes(int asked) const { return from_ > 0 && asked >= std::max(from_, 2); }
  // Threads for the next run with inputs of `dims` (a signature of their dims) when `asked` threads may run.
  int threadsFor(uint64_t dims, int asked);
  // The run just made with the count threadsFor gave, and its wall time.
  void record(int threads, double ms);
  // The decision for the current dims, once made.
  const std::optional<Decision>& decision() const { return decision_; }

  // ONYX_TUNE_THREADS: "0" turns tuning off; a number N tunes runs asked for N threads or more (default 8).
  static int fromEnvironment();

 private:
  int from_;
  uint64_t dims_ = 0;
  int asked_ = 0;
  bool seenAll_ = false, seenHalf_ = false;  // the uncounted first run at each count
  std::vector<double> allMs_, halfMs_;
  int runs_ = 0;  // alternates all, half, all, ...
  std::optional<Decision> decision_;
};

}  // namespace onyx::exec
