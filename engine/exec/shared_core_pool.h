#pragma once
// The threads of a run on cores that other processes keep busy (ThreadPool's shared-cores mode).
//
// Why: an OpenMP team splits a loop between its threads and waits at the end for every one of them. When
// another program keeps one of two cores busy, the team's thread there gets half of it, in slices of
// milliseconds, and every loop waits for it: squeezenet1_1 took a median 6.4 ms on 2 threads against 3.4 on
// one. So under load runs went to one thread, and left the half core unused (ONNX Runtime, whose calling
// thread takes the work a descheduled worker has not started, got 1.1-1.7x from it).
//
// How: the caller and its helpers take tasks from a shared counter; the caller runs every task nobody has
// started, so a helper that is descheduled delays the end only by the task it is in. The caller is pinned to
// one CPU and each helper to another for the run (RunPinning): unpinned, the scheduler kept moving the caller
// onto the busy core, where it waited for slices while its helper had nothing to do. A standalone test (26
// loops of 80 us, a busy loop pinned to one of two cores) ran in a median 2.07 ms on one thread, 1.1-2.6 ms
// on two unpinned, 1.02-1.07 ms on two pinned. The caller and the helpers find out which CPU is the busy one
// from how long each waited to run (/proc/thread-self/schedstat) and swap when the caller waited longer.
// Helpers wait for work spinning for kSpin, then sleep on a futex; the caller waits for the last tasks the
// same way. A helper still in a task kRescueAfter after the caller fell asleep has most likely lost its CPU
// to the other program for a slice of milliseconds: the caller moves it onto its own CPU, idle while it
// sleeps, and back when the job ends. Under one core of load resnet18's runs had waited 4.4 ms of 17.6 for
// such helpers; with the move, 0.7-0.9 ms (its runs 0.86x the time).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace onyx::exec {

class SharedCorePool {
 public:
  explicit SharedCorePool(int helpers);
  ~SharedCorePool();
  SharedCorePool(const SharedCorePool&) = delete;
  SharedCorePool& operator=(const SharedCorePool&) = delete;

  int threads() const { return int(helpers_.size()) + 1; }
  // Helpers moved onto the caller's CPU to finish a task (kRescueAfter), since the pool began.
  uint64_t rescues() const { return rescues_; }
  // Jobs offered to the helpers (two tasks or more, not from inside a task), since the pool began.
  uint64_t jobs() const { return jobs_; }

  // Runs task(i) for every i in [0, tasks) on the caller and the helpers and returns when all are done. From
  // inside a task, runs them all on the calling thread. An exception from a task is rethrown here (the
  // first one; the other tasks still run).
  void run(int64_t tasks, const std::function<void(int64_t)>& task);

  // Index of the calling thread: 0 for the caller (and any thread outside the pool), 1.. for helpers.
  static int currentThreadIndex();
  // Whether the calling thread is running one of this process's pool tasks.
  static bool insideTask();

  static constexpr int64_t kMaxTasks = (int64_t(1) << 20) - 1;
  static constexpr std::chrono::microseconds kSpin{50};
  static constexpr std::chrono::microseconds kRescueAfter{200};

  // While alive, the calling thread runs on one CPU of its affinity mask and each helper on another; the
  // caller's mask comes back at the end. Does nothing with fewer allowed CPUs than threads.
  class RunPinning {
   public:
    explicit RunPinning(SharedCorePool& pool);
    ~RunPinning();
    RunPinning(const RunPinning&) = delete;
    RunPinning& operator=(const RunPinning&) = delete;

   private:
    SharedCorePool& pool_;
    bool pinned_ = false;
    std::vector<unsigned char> savedMask_;
  };

 private:
  void helperLoop(int index);
  bool runOneTask(uint32_t generation);
  void finishTask();
  void choosePlacement(const std::vector<int>& cpus);
  // Pins the helpers that are in a task to the caller's CPU; their indices.
  std::vector<size_t> moveBusyHelpersHere();

  // claim_: generation (24 bits) | next task (20) | tasks (20), so that a helper late for a job can neither
  // take a task of the next one nor read its size.
  std::atomic<uint64_t> claim_{0};
  std::atomic<uint32_t> generation_{0};  // futex word the helpers sleep on
  std::atomic<uint32_t> done_{0};        // tasks of the current job finished; futex word of the caller
  std::atomic<int> sleepingHelpers_{0};
  std::atomic<bool> callerSleeping_{false};
  std::atomic<bool> stopping_{false};
  const std::function<void(int64_t)>* task_ = nullptr;
  std::mutex errorMutex_;
  std::exception_ptr error_;

  std::vector<std::thread> helpers_;
  std::vector<std::atomic<int>> helperTids_;
  std::vector<std::atomic<bool>> helperBusy_;  // in a task
  bool pinned_ = false;                        // a RunPinning holds the placement
  uint64_t rescues_ = 0;
  uint64_t jobs_ = 0;
  // Placement: the caller's CPU, then the helpers'; the caller's and the first helper's swap after a run in
  // which the caller waited to run longer than that helper (schedstat's run delay).
  std::vector<int> placement_;
  uint64_t callerDelayAtStart_ = 0;
  std::vector<uint64_t> helperDelayAtStart_;
};

}  // namespace onyx::exec
