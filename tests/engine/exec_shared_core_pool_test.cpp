// The shared-cores pool (exec/shared_core_pool.h): every task runs once per job whoever takes it, the caller
// finishes a job alone when its helpers do not come, nested jobs and exceptions, pinning for a run, a helper
// the caller waits for moved onto its CPU, and the thread pool's shared runs on top of it. Also built into the ThreadSanitizer binary (label threads).
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "exec/shared_core_pool.h"
#include "exec/thread_pool.h"

namespace onyx::exec {
namespace {

TEST(SharedCorePool, EveryTaskOfEveryJobRunsExactlyOnce) {
  for (int helpers : {1, 3}) {
    SharedCorePool pool(helpers);
    EXPECT_EQ(pool.threads(), helpers + 1);
    for (int job = 0; job < 2000; ++job) {
      const int64_t tasks = 1 + job % 37;
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      for (auto& r : runs) r.store(0);
      pool.run(tasks, [&](int64_t i) { runs[size_t(i)].fetch_add(1); });
      for (int64_t i = 0; i < tasks; ++i) ASSERT_EQ(runs[size_t(i)].load(), 1) << "job " << job << " task " << i;
    }
  }
}

TEST(SharedCorePool, HelpersTakeTasksAndKnowTheirIndex) {
  SharedCorePool pool(2);
  std::atomic<int> byHelpers{0};
  std::vector<std::atomic<int>> seenIndex(3);
  for (auto& s : seenIndex) s.store(0);
  // Tasks long enough that the helpers, spinning or woken, take some of them.
  for (int job = 0; job < 50 && byHelpers.load() == 0; ++job)
    pool.run(64, [&](int64_t) {
      const int index = SharedCorePool::currentThreadIndex();
      ASSERT_GE(index, 0);
      ASSERT_LT(index, 3);
      seenIndex[size_t(index)].fetch_add(1);
      if (index > 0) byHelpers.fetch_add(1);
      EXPECT_TRUE(SharedCorePool::insideTask());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
  EXPECT_GT(byHelpers.load(), 0);
  EXPECT_GT(seenIndex[0].load(), 0);  // the caller works too
  EXPECT_FALSE(SharedCorePool::insideTask());
  EXPECT_EQ(SharedCorePool::currentThreadIndex(), 0);
}

TEST(SharedCorePool, TheCallerFinishesAJobItsHelperDoesNotTake) {
  SharedCorePool pool(1);
  // The helper is held inside the first task of the first job; the caller must run the other 99 itself and
  // wait only for the held one.
  std::atomic<bool> release{false}, helperHeld{false};
  std::atomic<int> byCaller{0};
  std::thread releaser([&] {
    while (!helperHeld.load()) std::this_thread::yield();
    while (byCaller.load() < 99) std::this_thread::yield();
    release.store(true);
  });
  pool.run(100, [&](int64_t) {
    if (SharedCorePool::currentThreadIndex() == 1 && !helperHeld.exchange(true)) {
      while (!release.load()) std::this_thread::yield();
      return;
    }
    // The caller waits (once) for the helper to take a task, so that the test holds it for certain.
    if (SharedCorePool::currentThreadIndex() == 0 && byCaller.load() == 0)
      while (!helperHeld.load()) std::this_thread::yield();
    byCaller.fetch_add(1);
  });
  releaser.join();
  EXPECT_EQ(byCaller.load(), 99);
}

TEST(SharedCorePool, NestedJobsRunOnTheCallingThread) {
  SharedCorePool pool(2);
  std::atomic<int> inner{0}, mismatched{0};
  pool.run(8, [&](int64_t) {
    const std::thread::id outer = std::this_thread::get_id();
    pool.run(5, [&](int64_t) {
      inner.fetch_add(1);
      if (std::this_thread::get_id() != outer) mismatched.fetch_add(1);
    });
  });
  EXPECT_EQ(inner.load(), 40);
  EXPECT_EQ(mismatched.load(), 0);
}

TEST(SharedCorePool, AnExceptionFromATaskReachesTheCallerAndThePoolGoesOn) {
  SharedCorePool pool(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(32,
                        [&](int64_t i) {
                          ran.fetch_add(1);
                          if (i == 7) throw std::runtime_error("task 7");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 32);  // the other tasks still ran
  std::atomic<int> after{0};
  pool.run(16, [&](int64_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 16);
}

// Until the helper of a one-helper pool has run a task: it has started and said its thread id (on a busy
// machine it may start late), so that RunPinning pins it.
void waitForTheHelper(SharedCorePool& pool) {
  std::atomic<bool> helperRan{false};
  for (int job = 0; job < 1000 && !helperRan.load(); ++job)
    pool.run(8, [&](int64_t) {
      if (SharedCorePool::currentThreadIndex() == 1) helperRan.store(true);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
  ASSERT_TRUE(helperRan.load());
}

// A job of two tasks in which the helper takes one and runs `helperTask`; the caller waits for it to start.
void runWithTheHelper(SharedCorePool& pool, const std::function<void()>& helperTask) {
  std::atomic<bool> helperIn{false};
  pool.run(2, [&](int64_t) {
    if (SharedCorePool::currentThreadIndex() == 1) {
      helperIn.store(true);
      helperTask();
      return;
    }
    while (!helperIn.load()) std::this_thread::yield();
  });
}

TEST(SharedCorePool, PinningHoldsTheCallerToOneCpuForARun) {
  cpu_set_t before;
  CPU_ZERO(&before);
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "one CPU: nothing to pin";
  SharedCorePool pool(1);
  waitForTheHelper(pool);
  {
    SharedCorePool::RunPinning pinning(pool);
    cpu_set_t during;
    CPU_ZERO(&during);
    ASSERT_EQ(sched_getaffinity(0, sizeof(during), &during), 0);
    EXPECT_EQ(CPU_COUNT(&during), 1);
  }
  cpu_set_t after;
  CPU_ZERO(&after);
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(SharedCorePool, ACallerLeftWaitingMovesTheHelperOntoItsCpuUntilTheJobEnds) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU: nowhere to move";
  SharedCorePool pool(1);
  waitForTheHelper(pool);
  SharedCorePool::RunPinning pinning(pool);
  const int callerCpu = sched_getcpu();
  int startedOn = -1, endedOn = -1;
  // The helper's task lasts until it finds itself on the caller's CPU (a helper whose CPU the other program
  // holds would sit there for milliseconds): the caller, done with its own task, moves it there.
  runWithTheHelper(pool, [&] {
    startedOn = sched_getcpu();
    const auto start = std::chrono::steady_clock::now();
    while (sched_getcpu() != callerCpu && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    }
    endedOn = sched_getcpu();
  });
  EXPECT_NE(startedOn, callerCpu);
  EXPECT_EQ(endedOn, callerCpu);
  EXPECT_EQ(pool.rescues(), 1u);
  // Back on its own CPU for the next job; a task that ends in time is left where it is.
  int nextOn = -1;
  runWithTheHelper(pool, [&] { nextOn = sched_getcpu(); });
  EXPECT_EQ(nextOn, startedOn);
  EXPECT_EQ(pool.rescues(), 1u);
}

TEST(SharedCorePool, ThreadPoolSharedRunSplitsLoopsIntoTasksAndRunsTeamsAlone) {
  ThreadPool pool(2);
  pool.beginSharedRun(2);
  EXPECT_TRUE(pool.sharesCores());
  EXPECT_EQ(pool.threadCount(), 2);
  EXPECT_EQ(pool.dnnlThreads(), 1);
  std::vector<std::atomic<int>> covered(1000);
  for (auto& c : covered) c.store(0);
  std::atomic<int> chunks{0};
  pool.parallelFor(1000, 10, [&](int64_t begin, int64_t end) {
    chunks.fetch_add(1);
    for (int64_t i = begin; i < end; ++i) covered[size_t(i)].fetch_add(1);
  });
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(covered[size_t(i)].load(), 1) << i;
  EXPECT_EQ(chunks.load(), 16);  // 8 per thread, so the caller can take over a helper's
  int teamThreads = 0;
  pool.runTeam([&](int, int threads, const std::function<void()>& barrier) {
    teamThreads = threads;
    barrier();
  });
  EXPECT_EQ(teamThreads, 1);
  pool.endRun();
  EXPECT_FALSE(pool.sharesCores());
  EXPECT_EQ(pool.dnnlThreads(), 2);
}

}  // namespace
}  // namespace onyx::exec
