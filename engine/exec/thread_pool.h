#pragma once
// Data-parallel loops inside kernels. Built on OpenMP so that our loops and oneDNN's share one set of
// threads (two runtimes spinning on two cores would steal from each other). Nested calls run serially.
//
// Each node runs under a thread budget sized to its work (threadsForWork, NodeBudget): our loops and
// oneDNN's OpenMP teams (oneDNN sizes them by omp_get_max_threads) use at most that many threads, so a
// small node stays on one thread and pays no fork and join (opt-in: ONYX_THREAD_BUDGET). Unless the
// environment says otherwise, OpenMP threads spin GOMP_SPINCOUNT=100000 iterations, then sleep
// (thread_pool.cpp): runs on busy cores do not use the OpenMP team (beginSharedRun), so the spin costs
// other programs nothing and saves quiet runs the wake-ups.
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace onyx::exec {

class SharedCorePool;

class ThreadPool {
 public:
  explicit ThreadPool(int threads = 2);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads the running node may use (its budget; the run's threads outside a node).
  int threadCount() const { return budget_; }
  // Threads the current run may use: the pool's size, or fewer while other processes keep cores busy.
  int maxThreads() const { return threads_; }
  // Sets the threads of the run about to start on the calling thread (at most the pool's size), for our
  // loops and for oneDNN, whose teams follow the calling thread's OpenMP setting.
  void beginRun(int threads);
  // Starts a run on cores other processes keep busy (shared_core_pool.h): `threads` threads, the caller and
  // helpers pinned one per CPU, our loops split into tasks the caller takes over from a descheduled helper,
  // oneDNN's primitives on one thread each (a Conv splits itself into row slabs: sharesCores). endRun unpins.
  void beginSharedRun(int threads);
  void endRun();
  // Whether the running run is a shared one.
  bool sharesCores() const { return shared_ != nullptr && sharedRun_; }
  // Jobs a shared run has offered its helpers so far (SharedCorePool::jobs): a node that offered none ran on
  // the caller alone.
  uint64_t sharedJobs() const;
  // Threads oneDNN's primitives get (a primitive fixes its team size when it is made: part of their keys).
  int dnnlThreads() const { return sharesCores() ? 1 : budget_; }
  // Calls task(i) for every i in [0, tasks) in a shared run's tasks; on the caller otherwise.
  void runTasks(int64_t tasks, const std::function<void(int64_t)>& task);
  // Threads a node of this much work is worth: one per kFlopsPerThread operations or kBytesPerThread bytes
  // read and written, whichever asks for more, between 1 and the pool's size.
  int threadsForWork(int64_t flops, int64_t bytes) const;
  // Whether nodes run under a budget at all (ONYX_THREAD_BUDGET=all or loops; off by default).
  static bool sizesNodes();
  // Tests: "all", "loops" or "off" for this process, whatever ONYX_THREAD_BUDGET says.
  static void setNodeSizingForTests(std::string_view mode);
  // Calls body(begin, end) over disjoint chunks covering [0, count). Chunks have at least `grain` items;
  // with few items, or from inside another parallelFor, everything runs on the caller.
  void parallelFor(int64_t count, int64_t grain, const std::function<void(int64_t, int64_t)>& body);
  // Runs body(thread, threads, barrier) once on each thread of the pool at the same time; barrier() returns
  // when every thread has called it. For loops whose iterations depend on each other (a recurrence): one
  // team and a barrier per iteration instead of a parallel loop per iteration. From inside another
  // parallel region the caller runs it alone (threads 1, barrier a no-op).
  // With `participants`, body runs on that many of the team's threads at most (threads in body); the others
  // wait for the region's end, and barrier() waits for the participants only. The region keeps the run's
  // whole team either way (a smaller OpenMP team would end threads that the next node makes again).
  void runTeam(const std::function<void(int, int, const std::function<void()>&)>& body);
  void runTeam(int participants, const std::function<void(int, int, const std::function<void()>&)>& body);
  // Index of the calling thread within the running parallel loop (0 outside one).
  static int currentThreadIndex();

  // The physical cores this process may run on: CPUs in its affinity mask, SMT siblings counted once.
  static int physicalCoreCount();

  // About 20-40 microseconds of one core's work: below it, waking another thread costs more than it saves.
  static constexpr int64_t kFlopsPerThread = int64_t(2) << 20;
  static constexpr int64_t kBytesPerThread = int64_t(256) << 10;

  // While alive, the calling thread's loops and oneDNN primitives run on at most `threads` threads; the
  // previous budget comes back when it ends (a body's nodes inside a Loop node nest).
  class NodeBudget {
   public:
    NodeBudget(ThreadPool& pool, int threads);
    ~NodeBudget();
    NodeBudget(const NodeBudget&) = delete;
    NodeBudget& operator=(const NodeBudget&) = delete;

   private:
    ThreadPool& pool_;
    int previous_;
  };

 private:
  void applyBudget(int threads);

  int size_;     // threads asked for
  int threads_;  // this run's
  int budget_;
  bool sharedRun_ = false;
  std::unique_ptr<SharedCorePool> shared_;  // made by the first shared run
  struct Pinning;
  std::unique_ptr<Pinning> pinning_;
};

}  // namespace onyx::exec
