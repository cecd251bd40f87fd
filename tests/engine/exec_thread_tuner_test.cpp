// Runs asked for many threads time all of them against half in their first runs and keep half unless all
// were faster (exec/thread_tuner.h): the tuner's decisions, and an executor's runs following them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "exec/busy_cores.h"
#include "exec/executor.h"
#include "exec/run_threads.h"
#include "exec/thread_tuner.h"
#include "onnx/onnx_io.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

// Runs the tuner through `runs` runs for dims `dims`, each taking allMs or halfMs by its count; returns
// the counts threadsFor gave. The first run at each count takes `firstMs` (primitives made): not counted.
std::vector<int> tune(ThreadTuner& tuner, uint64_t dims, int asked, int runs, double allMs, double halfMs,
                      double firstMs = 1000) {
  std::vector<int> counts;
  bool firstAll = true, firstHalf = true;
  for (int r = 0; r < runs; ++r) {
    const int threads = tuner.threadsFor(dims, asked);
    counts.push_back(threads);
    bool& first = threads == asked ? firstAll : firstHalf;
    tuner.record(threads, first ? firstMs : threads == asked ? allMs : halfMs);
    first = false;
  }
  return counts;
}

TEST(ExecThreadTuner, AlternatesThenKeepsHalfWhereAllWereNotFaster) {
  ThreadTuner tuner(8);
  const auto counts = tune(tuner, 1, 16, 14, 10.0, 10.2);
  // Two uncounted runs, then four of each: the decision after the tenth run.
  const std::vector<int> expected = {16, 8, 16, 8, 16, 8, 16, 8, 16, 8, 8, 8, 8, 8};
  EXPECT_EQ(counts, expected);
  ASSERT_TRUE(tuner.decision());
  EXPECT_EQ(tuner.decision()->all, 16);
  EXPECT_EQ(tuner.decision()->half, 8);
  EXPECT_DOUBLE_EQ(tuner.decision()->allMs, 10.0);  // the 1000 ms first runs are not in the medians
  EXPECT_DOUBLE_EQ(tuner.decision()->halfMs, 10.2);
  EXPECT_EQ(tuner.decision()->chosen, 8);
}

TEST(ExecThreadTuner, KeepsAllWhereTheyWereFasterByTheMargin) {
  ThreadTuner faster(8), notByEnough(8);
  tune(faster, 1, 16, 10, 9.0, 10.0);
  tune(notByEnough, 1, 16, 10, 9.6, 10.0);  // 4% faster: half leaves cores to other programs
  ASSERT_TRUE(faster.decision() && notByEnough.decision());
  EXPECT_EQ(faster.decision()->chosen, 16);
  EXPECT_EQ(faster.threadsFor(1, 16), 16);
  EXPECT_EQ(notByEnough.decision()->chosen, 8);
}

TEST(ExecThreadTuner, MediansNotMeans) {
  // One slow run of all the threads (a preempted thread) does not decide for half.
  ThreadTuner tuner(8);
  std::vector<double> allRuns = {500, 9.0, 9.0, 60.0, 9.0};  // the first uncounted
  for (int r = 0, a = 0; r < 10; ++r) {
    const int threads = tuner.threadsFor(7, 16);
    tuner.record(threads, threads == 16 ? allRuns[size_t(a++)] : (r == 1 ? 500.0 : 12.0));
  }
  ASSERT_TRUE(tuner.decision());
  EXPECT_EQ(tuner.decision()->chosen, 16);
}

TEST(ExecThreadTuner, OtherDimsTuneAgain) {
  ThreadTuner tuner(8);
  tune(tuner, 1, 16, 10, 10.0, 5.0);
  ASSERT_TRUE(tuner.decision());
  EXPECT_EQ(tuner.threadsFor(1, 16), 8);
  EXPECT_EQ(tuner.threadsFor(2, 16), 16);  // new dims: all the threads first again
  EXPECT_FALSE(tuner.decision());
  const auto counts = tune(tuner, 2, 16, 11, 5.0, 10.0);
  EXPECT_EQ(counts.back(), 16);
}

TEST(ExecThreadTuner, FewThreadsAndOffAreNotTuned) {
  ThreadTuner from8(8), off(0);
  EXPECT_EQ(tune(from8, 1, 4, 12, 10.0, 1.0), std::vector<int>(12, 4));
  EXPECT_FALSE(from8.decision());
  EXPECT_EQ(tune(off, 1, 16, 12, 10.0, 1.0), std::vector<int>(12, 16));
  EXPECT_FALSE(off.decision());
  ThreadTuner tuner(8);
  tuner.threadsFor(1, 16);
  tuner.record(5, 1.0);  // a count it did not give (a busy machine's run): ignored
  EXPECT_EQ(tuner.threadsFor(1, 16), 16);
}

TEST(ExecThreadTuner, EnvironmentSetsWhereTuningStarts) {
  const std::vector<std::pair<const char*, int>> cases = {{"0", 0}, {"4", 4}, {"many", 8}, {nullptr, 8}};
  for (const auto& [value, from] : cases) {
    const ScopedEnv env("ONYX_TUNE_THREADS", value);
    EXPECT_EQ(ThreadTuner::fromEnvironment(), from) << (value ? value : "unset");
  }
}

TEST(ExecThreadTuner, RunThreadsInWords) {
  RunReport report;
  report.threads = 16;
  EXPECT_EQ(describeRunThreads(16, true, report), "16 threads");
  report.threadChoice = ThreadTuner::Decision{16, 8, 39.4, 30.3, 8};
  report.threads = 8;
  EXPECT_EQ(describeRunThreads(16, true, report),
            "16 threads, 8 used: the first runs took 30.300 ms on 8 against 39.400 ms on 16 "
            "(ONYX_TUNE_THREADS=0 keeps them all)");
  report.threads = 5;  // busy cores after the decision: those are why
  report.othersBusy = 11.0;
  EXPECT_EQ(describeRunThreads(16, true, report), "16 threads, 5 in the last run: other processes kept 11.0 cores busy");
  report.othersBusy.reset();
  report.threadChoice.reset();
  report.threadsOnTrial = true;  // a run timing half before the decision: not other processes' doing
  report.threads = 8;
  EXPECT_EQ(describeRunThreads(16, true, report),
            "16 threads, 8 in the last run: the first runs time all of them against half "
            "(ONYX_TUNE_THREADS=0 keeps them all)");
  report.threadsOnTrial = false;
  report.threadChoice = ThreadTuner::Decision{16, 8, 20.0, 30.3, 16};
  report.threads = 16;
  EXPECT_EQ(describeRunThreads(16, true, report), "16 threads");  // all of them kept: nothing to explain
  report.sharedCores = true;
  report.threads = 2;
  report.othersBusy = 1.0;
  EXPECT_EQ(describeRunThreads(2, true, report),
            "2 threads, the last run on one free core and one shared: other processes kept 1.0 cores busy");
  EXPECT_EQ(describeRunThreads(2, false, report),
            "2 threads, the last run sharing busy cores in tasks: other processes kept 1.0 cores busy");
}

const char* kTwoNodes = R"(
<ir_version: 8, opset_import: ["" : 17]>
two (float[64, 256] x, float[256, 256] w) => (float[64, 256] y) {
  m = MatMul(x, w)
  y = Relu(m)
}
)";

struct ExecutorRuns {
  std::vector<int> threads;
  std::vector<bool> onTrial;
  std::vector<RunValue> last;
  std::optional<ThreadTuner::Decision> choice;
};

ExecutorRuns runExecutor(int tuneFrom, bool adapt, int runs) {
  auto model = parseModelText(kTwoNodes);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  // A sensor that never sees other processes: the runs below are quiet whatever this machine runs.
  BusyCores quiet([]() -> std::optional<CpuTimes> { return std::nullopt; });
  ExecutorOptions options;
  options.threads = 4;
  options.adaptThreads = adapt;
  options.tuneThreadsFrom = tuneFrom;
  options.busyCores = &quiet;
  options.sharedCores = ExecutorOptions::SharedCores::Never;
  auto executor = Executor::create(**model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  NamedValues inputs = {{"x", randomTensor(DataType::Float, {64, 256}, 1)},
                        {"w", randomTensor(DataType::Float, {256, 256}, 2)}};
  ExecutorRuns result;
  for (int r = 0; r < runs; ++r) {
    auto out = (*executor)->run(inputs);
    EXPECT_TRUE(out.ok()) << out.error().toString();
    if (out.ok()) result.last = std::move(*out);
    result.threads.push_back((*executor)->lastRunReport().threads);
    result.onTrial.push_back((*executor)->lastRunReport().threadsOnTrial);
    result.choice = (*executor)->lastRunReport().threadChoice;
  }
  return result;
}

TEST(ExecThreadTuner, ExecutorRunsFollowTheTuner) {
  const ExecutorRuns tuned = runExecutor(2, true, 13);
  const std::vector<int> exploring = {4, 2, 4, 2, 4, 2, 4, 2, 4, 2};
  EXPECT_EQ(std::vector<int>(tuned.threads.begin(), tuned.threads.begin() + 10), exploring);
  ASSERT_TRUE(tuned.choice);
  EXPECT_EQ(tuned.choice->all, 4);
  EXPECT_EQ(tuned.choice->half, 2);
  EXPECT_GT(tuned.choice->allMs, 0);
  EXPECT_GT(tuned.choice->halfMs, 0);
  for (size_t r = 10; r < tuned.threads.size(); ++r) EXPECT_EQ(tuned.threads[r], tuned.choice->chosen) << "run " << r;
  EXPECT_EQ(tuned.onTrial, std::vector<bool>({true, true, true, true, true, true, true, true, true, true, false,
                                              false, false}));

  // Fixed threads, or tuning off: every run on all four, no decision; and the same outputs as the tuned runs.
  for (const ExecutorRuns& plain : {runExecutor(2, false, 4), runExecutor(0, true, 12)}) {
    EXPECT_EQ(plain.threads, std::vector<int>(plain.threads.size(), 4));
    EXPECT_FALSE(plain.choice);
    EXPECT_EQ(plain.onTrial, std::vector<bool>(plain.onTrial.size(), false));
    const auto& a = std::get<TensorValue>(plain.last[0]);
    const auto& b = std::get<TensorValue>(tuned.last[0]);
    ASSERT_EQ(a.dims(), b.dims());
    for (int64_t i = 0; i < a.count(); ++i)
      ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-4f * (1 + std::fabs(a.data<float>()[i]))) << i;
  }
}

}  // namespace
}  // namespace onyx::exec::testing
