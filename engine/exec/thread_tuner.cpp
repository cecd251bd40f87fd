#include "exec/thread_tuner.h"

#include <algorithm>
#include <cstdlib>

namespace onyx::exec {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int ThreadTuner::fromEnvironment() {
  const char* value = std::getenv("ONYX_TUNE_THREADS");
  if (!value || !*value) return 8;
  char* end = nullptr;
  const long from = std::strtol(value, &end, 10);
  return *end || from < 0 ? 8 : int(std::min<long>(from, 1 << 20));
}

int ThreadTuner::threadsFor(uint64_t dims, int asked) {
  if (!tunes(asked)) return asked;
  if (dims != dims_ || asked != asked_) {
    *this = ThreadTuner(from_);
    dims_ = dims;
    asked_ = asked;
  }
  if (decision_) return decision_->chosen;
  return runs_ % 2 == 0 ? asked : asked / 2;
}

void ThreadTuner::record(int threads, double ms) {
  if (decision_ || asked_ == 0) return;
  const int half = asked_ / 2;
  if (threads != asked_ && threads != half) return;  // not a run threadsFor chose
  const bool all = threads == asked_;
  ++runs_;
  bool& seen = all ? seenAll_ : seenHalf_;
  if (!seen) {
    seen = true;
    return;
  }
  (all ? allMs_ : halfMs_).push_back(ms);
  if (int(allMs_.size()) < kSamples || int(halfMs_.size()) < kSamples) return;
  Decision d;
  d.all = asked_;
  d.half = half;
  d.allMs = median(allMs_);
  d.halfMs = median(halfMs_);
  d.chosen = d.allMs < d.halfMs * (1 - kMargin) ? asked_ : half;
  decision_ = d;
}

}  // namespace onyx::exec
