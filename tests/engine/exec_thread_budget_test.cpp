// Threads sized to the work: each node runs under a budget from its flops and bytes (small nodes on one
// thread, large ones on all), the profile records it, the default thread count is the physical cores, and
// libgomp's waiting threads spin a bounded time.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "exec/thread_pool.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"
#include "profile/profile_run.h"
#include "profile/profile_summary.h"
#include "profile/profile.h"

namespace onyx::exec::testing {
namespace {

// A tiny Add next to a 384x384x384 MatMul (113 MFLOP).
const char* kSmallAndLarge = R"(
<ir_version: 8, opset_import: ["" : 17]>
mixed (float[4] a, float[4] b, float[384, 384] x, float[384, 384] w) => (float[4] s, float[384, 384] y) {
  s = Add(a, b)
  y = MatMul(x, w)
}
)";

// Cores counted another way than the engine does: distinct SMT sibling sets of the CPUs we may run on.
int coresFromSiblingLists() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 1;
  std::set<std::string> siblingSets;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    std::string siblings;
    std::ifstream("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list") >>
        siblings;
    if (siblings.empty()) return CPU_COUNT(&allowed);  // no topology: every CPU is a core
    siblingSets.insert(siblings);
  }
  return int(siblingSets.size());
}

struct MixedRun {
  std::vector<ProfileEvent> events;
  std::vector<RunValue> outputs;
  std::string trace;
};

MixedRun runMixed(int threads) {
  auto model = parseModelText(kSmallAndLarge);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.threads = threads;
  options.adaptThreads = false;  // the counts below, whatever else the machine runs
  options.sharedCores = ExecutorOptions::SharedCores::Never;
  options.profile = true;
  auto executor = Executor::create(**model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  NamedValues inputs = {{"a", randomTensor(DataType::Float, {4}, 1)},
                        {"b", randomTensor(DataType::Float, {4}, 2)},
                        {"x", randomTensor(DataType::Float, {384, 384}, 3)},
                        {"w", randomTensor(DataType::Float, {384, 384}, 4)}};
  MixedRun run;
  for (int i = 0; i < 2; ++i) {
    auto out = (*executor)->run(inputs);
    EXPECT_TRUE(out.ok()) << out.error().toString();
    if (out.ok()) run.outputs = std::move(*out);
  }
  run.events = (*executor)->profiler().events();
  run.trace = (*executor)->profiler().chromeTraceJson();
  return run;
}

const ProfileEvent* eventOf(const std::vector<ProfileEvent>& events, std::string_view op, int iteration) {
  for (const ProfileEvent& e : events)
    if (e.opType == op && e.iteration == iteration) return &e;
  return nullptr;
}

TEST(ExecThreadBudget, WorkDecidesTheThreads) {
  ThreadPool pool(8);
  EXPECT_EQ(pool.threadsForWork(0, 0), 1);
  EXPECT_EQ(pool.threadsForWork(100, 4096), 1);
  EXPECT_EQ(pool.threadsForWork(3 * ThreadPool::kFlopsPerThread, 0), 3);
  EXPECT_EQ(pool.threadsForWork(0, 5 * ThreadPool::kBytesPerThread), 5);
  EXPECT_EQ(pool.threadsForWork(2 * ThreadPool::kFlopsPerThread, 4 * ThreadPool::kBytesPerThread), 4);
  EXPECT_EQ(pool.threadsForWork(int64_t(1) << 40, 0), 8);  // never more than the pool
}

// Node sizing is opt-in (ONYX_THREAD_BUDGET=all); these tests turn it on for their own process.
struct SizingOn {
  SizingOn() { ThreadPool::setNodeSizingForTests("all"); }
  ~SizingOn() { ThreadPool::setNodeSizingForTests("off"); }
};

TEST(ExecThreadBudget, BudgetNestsAndComesBack) {
  SizingOn sizing;
  ThreadPool pool(6);
  EXPECT_EQ(pool.threadCount(), 6);
  {
    ThreadPool::NodeBudget outer(pool, 3);
    EXPECT_EQ(pool.threadCount(), 3);
    {
      ThreadPool::NodeBudget inner(pool, 1);
      EXPECT_EQ(pool.threadCount(), 1);
      int calls = 0;
      pool.parallelFor(1000, 1, [&](int64_t begin, int64_t end) {
        ++calls;  // one thread: one call over everything
        EXPECT_EQ(begin, 0);
        EXPECT_EQ(end, 1000);
      });
      EXPECT_EQ(calls, 1);
    }
    EXPECT_EQ(pool.threadCount(), 3);
  }
  EXPECT_EQ(pool.threadCount(), 6);
  EXPECT_EQ(pool.maxThreads(), 6);
}

// The threads of the run's OpenMP team, by kernel thread id.
std::set<pid_t> teamThreads(ThreadPool& pool) {
  std::set<pid_t> ids;
  std::mutex mutex;
  pool.runTeam([&](int, int, const std::function<void()>& barrier) {
    {
      std::lock_guard lock(mutex);
      ids.insert(gettid());
    }
    barrier();
  });
  return ids;
}

// libgomp ends the threads that a smaller team leaves out and makes new ones for the next larger team: a
// loop of fewer chunks than threads must not shrink the team (at 16 threads, bert_small made 128 threads a
// run that way).
TEST(ExecThreadBudget, SmallLoopsKeepTheTeamsThreads) {
  ThreadPool pool(4);
  pool.beginRun(4);
  const std::set<pid_t> before = teamThreads(pool);
  EXPECT_EQ(before.size(), 4u);
  std::atomic<int> items{0};
  for (int64_t chunks : {1, 2, 3})
    pool.parallelFor(chunks * 64, 64, [&](int64_t begin, int64_t end) { items += int(end - begin); });
  EXPECT_EQ(items.load(), (1 + 2 + 3) * 64);
  EXPECT_EQ(teamThreads(pool), before);
  pool.endRun();
}

// A recurrence on fewer threads than the team: body runs on exactly that many, their barrier holds each step
// until all of them wrote it, and the team keeps its threads.
TEST(ExecThreadBudget, TeamOfFewerParticipantsKeepsTheTeamsThreads) {
  ThreadPool pool(4);
  pool.beginRun(4);
  const std::set<pid_t> before = teamThreads(pool);
  constexpr int kSteps = 200;
  std::vector<std::atomic<int>> reached(3);
  std::atomic<int> calls{0}, behind{0}, widths{0};
  pool.runTeam(3, [&](int thread, int threads, const std::function<void()>& barrier) {
    ++calls;
    widths += threads;
    for (int step = 1; step <= kSteps; ++step) {
      reached[size_t(thread)].store(step);
      barrier();
      for (const std::atomic<int>& other : reached)
        if (other.load() < step) ++behind;  // a peer had not finished this step
      barrier();
    }
  });
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(widths.load(), 3 * 3);
  EXPECT_EQ(behind.load(), 0);
  EXPECT_EQ(teamThreads(pool), before);
  pool.endRun();
}

TEST(ExecThreadBudget, WithoutSizingEveryNodeGetsEveryThread) {
  MixedRun run = runMixed(4);
  for (const char* op : {"Add", "MatMul"}) {
    const ProfileEvent* event = eventOf(run.events, op, 1);
    ASSERT_TRUE(event) << op;
    EXPECT_EQ(event->threads, 4) << op;
  }
}

TEST(ExecThreadBudget, SmallNodeRunsOnOneThreadLargeOnAll) {
  SizingOn sizing;
  MixedRun run = runMixed(4);
  for (int iteration = 0; iteration < 2; ++iteration) {
    const ProfileEvent* add = eventOf(run.events, "Add", iteration);
    const ProfileEvent* matmul = eventOf(run.events, "MatMul", iteration);
    ASSERT_TRUE(add && matmul);
    EXPECT_EQ(add->threads, 1) << "iteration " << iteration;
    EXPECT_EQ(matmul->threads, 4) << "iteration " << iteration;
  }
  // The Chrome trace carries it, and reading the trace back gives it again.
  EXPECT_NE(run.trace.find("\"threads\":4"), std::string::npos);
  auto profile = profile::parseTrace(run.trace, "test trace");
  ASSERT_TRUE(profile.ok()) << profile.error().toString();
  const ProfileEvent* matmul = eventOf(profile->events, "MatMul", 1);
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul->threads, 4);
  auto rows = profile::summarize(run.events, profile::SummaryKey::OpType);
  for (const profile::SummaryRow& row : rows) EXPECT_EQ(row.threads, row.opType == "MatMul" ? 4 : 1) << row.key;
  EXPECT_NE(profile::summaryCsv(rows).find(",threads\n"), std::string::npos);
}

TEST(ExecThreadBudget, ResultsDoNotDependOnTheThreadCount) {
  MixedRun one = runMixed(1), four = runMixed(4);
  ASSERT_EQ(one.outputs.size(), 2u);
  ASSERT_EQ(four.outputs.size(), 2u);
  for (size_t o = 0; o < 2; ++o) {
    const auto& a = std::get<TensorValue>(one.outputs[o]);
    const auto& b = std::get<TensorValue>(four.outputs[o]);
    ASSERT_EQ(a.dims(), b.dims());
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    for (int64_t i = 0; i < a.count(); ++i)
      ASSERT_NEAR(pa[i], pb[i], 1e-4f * (1.0f + std::fabs(pa[i]))) << "output " << o << " element " << i;
  }
}

TEST(ExecThreadBudget, DefaultIsThePhysicalCores) {
  const int cores = coresFromSiblingLists();
  EXPECT_EQ(ThreadPool::physicalCoreCount(), cores);
  EXPECT_EQ(ExecutorOptions{}.threads, cores);
  EXPECT_EQ(profile::RunRequest{}.threads, cores);
}

TEST(ExecThreadBudget, OpenMpWaitsABoundedTime) {
  // thread_pool.cpp's getenv answers libgomp (cli.openmp_spin_bounded checks what libgomp took).
  if (environ) {
    for (char** entry = environ; *entry; ++entry) {
      const std::string_view var(*entry);
      if (var.starts_with("OMP_WAIT_POLICY=") || var.starts_with("GOMP_SPINCOUNT="))
        GTEST_SKIP() << "the environment chose a policy: " << var;
    }
  }
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  ASSERT_NE(spin, nullptr);
  EXPECT_STREQ(spin, "100000");  // libgomp's own default is 300,000, or unbounded with a core per thread
  EXPECT_EQ(std::getenv("ONYX_THREAD_BUDGET_TEST_UNSET_VARIABLE"), nullptr);
  EXPECT_NE(std::getenv("PATH"), nullptr);  // everything else comes from the environment
}

}  // namespace
}  // namespace onyx::exec::testing
