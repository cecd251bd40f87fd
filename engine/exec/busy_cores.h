#pragma once
// How many of this process's cores other processes keep busy, so that a run can use fewer threads than
// asked while they do (ExecutorOptions::adaptThreads).
//
// Why: the CPU kernels, oneDNN's above all, split a node's work statically between their threads and join at
// its end. A thread that shares its core with another program gets half of it, finishes its share late, and
// the node waits for it. On a 2-core machine with a busy loop on one core, 2 threads ran efficientnet_b0 in
// 15.0 ms and 1 thread in 7.6 ms (4.4 ms quiet with 2).
//
// How: from /proc/stat, the busy time of the CPUs this process may run on (user, system, irq, softirq,
// steal), minus this process's own CPU time, over the last 40-500 ms: what `top` would show for everything
// else, in cores. Niced processes are left out (they yield to ours: a `nice make` beside a run is not load),
// unless this process is niced itself. The kernel counts in 10 ms ticks, so a shorter window says nothing.
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>

namespace onyx::exec {

struct CpuTimes {  // one reading
  std::chrono::steady_clock::time_point at;
  double busySeconds = 0;  // summed over the CPUs this process may run on
  double ownSeconds = 0;   // this process's CPU time, all threads
  int cpus = 0;            // CPUs in the sum
};

class BusyCores {
 public:
  using Reader = std::function<std::optional<CpuTimes>()>;
  // Starts the first window now. Tests pass a reader of made-up times.
  explicit BusyCores(Reader reader = readCpuTimes);

  // The process's sensor: every executor shares its history. Call it early (the CLI does, before loading a
  // model) so that the first run already has a window behind it.
  static BusyCores& shared();

  // Threads for the next run: `requested`, or, while other processes keep cores busy, no more than the
  // cores they leave free (at least 1). Reads /proc/stat at most every 20 ms.
  int threadsFor(int requested);

  // Cores other processes kept busy over the last window; nullopt before a window is long enough or where
  // the system does not say (no /proc/stat).
  std::optional<double> othersBusy() const;
  // CPUs the last decision of threadsFor left free of other processes (all before a window is long enough,
  // 0 before the first reading).
  int freeCores() const;

  // /proc/stat's busy time of the CPUs in this process's affinity mask, and the process's CPU time.
  static std::optional<CpuTimes> readCpuTimes();

  static constexpr std::chrono::milliseconds kMinWindow{40};
  static constexpr std::chrono::milliseconds kReadInterval{20};
  static constexpr std::chrono::milliseconds kWindowStep{250};  // the window start moves on this often
  // A core counts as taken when others use more than this much of it, and free again below kFreeBelow:
  // between the two the last decision stands, so that a run does not flip with each reading.
  static constexpr double kTakenAbove = 0.4;
  static constexpr double kFreeBelow = 0.2;

 private:
  void update(const CpuTimes& now);

  Reader reader_;
  mutable std::mutex mutex_;
  std::optional<CpuTimes> start_, middle_;  // the window runs from start_; middle_ becomes the next start_
  std::chrono::steady_clock::time_point lastRead_;
  std::optional<double> others_;
  int taken_ = 0;  // cores counted as taken by the last decision
  int cpus_ = 0;
};

}  // namespace onyx::exec
