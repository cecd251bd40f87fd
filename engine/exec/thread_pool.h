#pragma once
// Data-parallel loops inside kernels. Built on OpenMP so that our loops and oneDNN's share one set of
// threads (two runtimes spinning on two cores would steal from each other). Nested calls run serially.
#include <cstdint>
#include <functional>

namespace onyx::exec {

class ThreadPool {
 public:
  explicit ThreadPool(int threads = 2);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threadCount() const { return threads_; }
  // Calls body(begin, end) over disjoint chunks covering [0, count). Chunks have at least `grain` items;
  // with few items, or from inside another parallelFor, everything runs on the caller.
  void parallelFor(int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& body);
  // Runs body(thread, threads, barrier) once on each thread of the pool at the same time; barrier() returns
  // when every thread has called it. For loops whose iterations depend on each other (a recurrence): one
  // team and a barrier per iteration instead of a parallel loop per iteration. From inside another
  // parallel region the caller runs it alone (threads 1, barrier a no-op).
  void runTeam(const std::function<void(int, int, const std::function<void()>&)>& body);
  // Index of the calling thread within the running parallel loop (0 outside one).
  static int currentThreadIndex();

 private:
  int threads_;
};

}  // namespace onyx::exec
