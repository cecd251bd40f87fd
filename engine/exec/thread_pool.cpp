#include "exec/thread_pool.h"

#include <omp.h>

#include <algorithm>
#include <atomic>

namespace onyx::exec {

ThreadPool::ThreadPool(int threads) : threads_(std::max(1, threads)) {
  omp_set_num_threads(threads_);
}

int ThreadPool::currentThreadIndex() {
  return omp_get_thread_num();
}

void ThreadPool::runTeam(const std::function<void(int, int, const std::function<void()>&)>& body) {
  const std::function<void()> alone = [] {};
  if (threads_ == 1 || omp_in_parallel()) {
    body(0, 1, alone);
    return;
  }
  // An orphaned barrier binds to the innermost enclosing parallel region: this one.
  const std::function<void()> barrier = [] {
#pragma omp barrier
  };
#pragma omp parallel num_threads(threads_)
  {
    const int threads = omp_get_num_threads();
    body(omp_get_thread_num(), threads, threads > 1 ? barrier : alone);
  }
}

void ThreadPool::parallelFor(int64_t count, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (threads_ == 1 || omp_in_parallel() || count <= grain) {
    body(0, count);
    return;
  }
  int64_t chunk = std::max(grain, (count + threads_ * 4 - 1) / (threads_ * 4));
  int64_t chunks = (count + chunk - 1) / chunk;
  int threads = int(std::min<int64_t>(threads_, chunks));
  std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(threads)
  {
    for (;;) {
      int64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= count) break;
      body(begin, std::min(count, begin + chunk));
    }
  }
}

}  // namespace onyx::exec
