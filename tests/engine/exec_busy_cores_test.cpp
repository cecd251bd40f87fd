// Fewer threads while other processes keep cores busy (exec/busy_cores.h): the estimate of their load from
// made-up /proc/stat readings, the decision with its hysteresis, and the real reading of this machine.
#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <deque>
#include <optional>

#include "exec/busy_cores.h"

namespace onyx::exec::testing {
namespace {

using namespace std::chrono_literals;

// Readings of a made-up machine: each step adds `wall` of time in which this process used `own` cores and
// others `others`. They lie in the past so that BusyCores never waits for its read interval.
class FakeMachine {
 public:
  explicit FakeMachine(int cpus) : cpus_(cpus) { now_.at = std::chrono::steady_clock::now() - 1000s; }

  void step(std::chrono::milliseconds wall, double own, double others) {
    const double seconds = std::chrono::duration<double>(wall).count();
    now_.at += wall;
    now_.ownSeconds += own * seconds;
    now_.busySeconds += (own + others) * seconds;
    pending_.push_back(now_);
  }

  BusyCores::Reader reader() {
    return [this]() -> std::optional<CpuTimes> {
      if (pending_.empty()) return std::nullopt;
      CpuTimes t = pending_.front();
      t.cpus = cpus_;
      pending_.pop_front();
      return t;
    };
  }

 private:
  int cpus_;
  CpuTimes now_;
  std::deque<CpuTimes> pending_;
};

TEST(BusyCores, QuietMachineRunsWhatWasAsked) {
  FakeMachine machine(2);
  machine.step(0ms, 0, 0);  // the first window starts
  BusyCores sensor(machine.reader());
  machine.step(100ms, 2.0, 0.05);
  EXPECT_EQ(sensor.threadsFor(2), 2);
  ASSERT_TRUE(sensor.othersBusy());
  EXPECT_NEAR(*sensor.othersBusy(), 0.05, 1e-9);
  machine.step(100ms, 2.0, 0.05);
  EXPECT_EQ(sensor.threadsFor(4), 4);  // oversubscribing on a quiet machine is the user's choice
}

TEST(BusyCores, OneBusyCoreOfTwoLeavesOneThread) {
  FakeMachine machine(2);
  machine.step(0ms, 0, 0);
  BusyCores sensor(machine.reader());
  // Our second thread shares its core with a busy loop: the loop gets about half of it.
  machine.step(100ms, 1.5, 0.5);
  EXPECT_EQ(sensor.threadsFor(2), 1);
  machine.step(100ms, 1.0, 1.0);  // alone on the free core, the loop has the other
  EXPECT_EQ(sensor.threadsFor(2), 1);
  EXPECT_EQ(sensor.freeCores(), 1);  // the executor shares the busy one (shared-cores run)
}

TEST(BusyCores, BothCoresBusyLeaveNoneFree) {
  FakeMachine machine(2);
  machine.step(0ms, 0, 0);
  BusyCores sensor(machine.reader());
  EXPECT_EQ(sensor.freeCores(), 2);  // no window yet: all free
  machine.step(100ms, 1.0, 2.0);
  EXPECT_EQ(sensor.threadsFor(2), 1);
  EXPECT_EQ(sensor.freeCores(), 0);  // one thread, not a shared run: its caller would wait for slices too
}

TEST(BusyCores, ManyCoresLoseOnlyWhatOthersTake) {
  FakeMachine machine(16);
  machine.step(0ms, 0, 0);
  BusyCores sensor(machine.reader());
  machine.step(100ms, 8.0, 3.0);
  EXPECT_EQ(sensor.threadsFor(8), 8);    // 13 cores free
  machine.step(100ms, 16.0, 3.0);
  EXPECT_EQ(sensor.threadsFor(16), 13);  // 3 taken
  machine.step(100ms, 13.0, 100.0);      // more than the machine: clamped to it
  EXPECT_EQ(sensor.threadsFor(16), 1);
}

TEST(BusyCores, HysteresisKeepsTheDecisionBetweenThresholds) {
  FakeMachine machine(2);
  machine.step(0ms, 0, 0);
  BusyCores sensor(machine.reader());
  // With steps of 600 ms each window spans the last two steps: the estimates are 0.5, 0.4, 0.15, 0.275.
  machine.step(600ms, 1.0, 0.5);
  EXPECT_EQ(sensor.threadsFor(2), 1);
  machine.step(600ms, 1.0, 0.3);
  EXPECT_EQ(sensor.threadsFor(2), 1);
  machine.step(600ms, 1.0, 0.0);  // 0.15: free again
  EXPECT_EQ(sensor.threadsFor(2), 2);
  machine.step(600ms, 2.0, 0.55);  // 0.275, between the thresholds: still free
  EXPECT_EQ(sensor.threadsFor(2), 2);
}

TEST(BusyCores, ShortWindowOrNoReadingChangesNothing) {
  FakeMachine machine(2);
  machine.step(0ms, 0, 0);
  BusyCores sensor(machine.reader());
  machine.step(10ms, 1.0, 1.0);  // shorter than the kernel's ticks can tell
  EXPECT_EQ(sensor.threadsFor(2), 2);
  EXPECT_FALSE(sensor.othersBusy());
  EXPECT_EQ(sensor.threadsFor(2), 2);  // no reading at all (no /proc/stat)
  BusyCores blind([]() -> std::optional<CpuTimes> { return std::nullopt; });
  EXPECT_EQ(blind.threadsFor(3), 3);
}

TEST(BusyCores, ReadsThisMachine) {
  auto first = BusyCores::readCpuTimes();
  ASSERT_TRUE(first) << "no /proc/stat";
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  EXPECT_EQ(first->cpus, CPU_COUNT(&allowed));
  // Spin until this process has used 60 ms of CPU (however long a loaded machine takes to give it).
  volatile double sink = 0;
  const auto giveUp = std::chrono::steady_clock::now() + 10s;
  std::optional<CpuTimes> second;
  do {
    for (int i = 0; i < 100000; ++i) sink = sink + 1.0;
    second = BusyCores::readCpuTimes();
    ASSERT_TRUE(second);
  } while (second->ownSeconds - first->ownSeconds < 0.06 && std::chrono::steady_clock::now() < giveUp);
  // That time is the process's own, and the machine's busy time includes it (counted in ticks of 10 ms).
  EXPECT_GE(second->ownSeconds - first->ownSeconds, 0.06);
  EXPECT_GE(second->busySeconds - first->busySeconds, 0.03);
}

}  // namespace
}  // namespace onyx::exec::testing
