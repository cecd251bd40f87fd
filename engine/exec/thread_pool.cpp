#include "exec/thread_pool.h"

#include "exec/shared_core_pool.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace onyx::exec {

namespace {

// The value of `name` in the environment, as glibc's getenv finds it.
char* environmentValue(const char* name) {
  const size_t length = std::strlen(name);
  for (char** entry = environ; entry && *entry; ++entry)
    if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
  return nullptr;
}

}  // namespace

}  // namespace onyx::exec

// libgomp reads GOMP_SPINCOUNT once, in its own initializer, before main runs, so setting it in main is too
// late (and an ELF preinit function cannot either: libc's initializer resets `environ` after it). libgomp
// asks getenv, and the executable's definition of a symbol comes first for every library: this one answers
// GOMP_SPINCOUNT when the environment sets neither it nor OMP_WAIT_POLICY, and the environment's value for
// everything else. Waiting threads spin 100,000 iterations, then sleep:
// - A thread that sleeps between two parallel regions costs the next one its wake-up. On a quiet 2-core
//   Xeon VM, 1000 spins (what this answered on up to 4 CPUs before) made squeezenet1_1 3.2 ms
//   against 2.6, mobilenet_v2 4.5 against 3.1 and efficientnet_b0 7.4 against 6.0 (10,000 got as much
//   as 100,000 there); on a quiet 16-core Xeon, 1000 made efficientnet_b0 and bert_small 1.25x slower at
//   8 threads than 100,000.
// - A spinning thread holds its core, which matters when another process needs it: on a 2-core machine with
//   one core busy, an OpenMP team of 2 ran bert_small at 8.3 ms with 1000 spins and 20-120 ms with more. So
//   runs on busy cores do not wait on an OpenMP team: they take fewer threads or split their work into
//   tasks the caller takes over (ThreadPool::beginSharedRun; Executor::run decides).
extern "C" char* getenv(const char* name) noexcept {
  char* value = onyx::exec::environmentValue(name);
  if (!value && std::strcmp(name, "GOMP_SPINCOUNT") == 0 && !onyx::exec::environmentValue("OMP_WAIT_POLICY"))
    return const_cast<char*>("100000");
  return value;
}

namespace onyx::exec {

struct ThreadPool::Pinning {
  explicit Pinning(SharedCorePool& pool) : pinning(pool) {}
  SharedCorePool::RunPinning pinning;
};

ThreadPool::ThreadPool(int threads) : size_(std::max(1, threads)), threads_(size_), budget_(size_) {
  omp_set_num_threads(threads_);
}

ThreadPool::~ThreadPool() = default;

void ThreadPool::beginRun(int threads) {
  pinning_.reset();
  sharedRun_ = false;
  threads_ = budget_ = std::clamp(threads, 1, size_);
  // Also on every run's thread: OpenMP's setting belongs to the thread that sets it, and runs may come from
  // another thread than the one that made the pool (the GUI's workers).
  omp_set_num_threads(threads_);
}

void ThreadPool::beginSharedRun(int threads) {
  beginRun(threads);
  if (threads_ < 2) return;
  if (!shared_ || shared_->threads() != threads_) {
    shared_.reset();
    shared_ = std::make_unique<SharedCorePool>(threads_ - 1);
  }
  sharedRun_ = true;
  omp_set_num_threads(1);
  pinning_ = std::make_unique<Pinning>(*shared_);
}

void ThreadPool::endRun() {
  pinning_.reset();
  if (sharedRun_) omp_set_num_threads(threads_);
  sharedRun_ = false;
}

void ThreadPool::runTasks(int64_t tasks, const std::function<void(int64_t)>& task) {
  if (sharesCores() && budget_ > 1) {
    shared_->run(tasks, task);
    return;
  }
  for (int64_t i = 0; i < tasks; ++i) task(i);
}

uint64_t ThreadPool::sharedJobs() const {
  return shared_ ? shared_->jobs() : 0;
}

int ThreadPool::currentThreadIndex() {
  return SharedCorePool::insideTask() ? SharedCorePool::currentThreadIndex() : omp_get_thread_num();
}

int ThreadPool::physicalCoreCount() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 1;
  std::set<std::pair<std::string, std::string>> cores;  // (package, core) of each allowed CPU
  int cpus = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    ++cpus;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::string package, core;
    std::ifstream(dir + "physical_package_id") >> package;
    std::ifstream(dir + "core_id") >> core;
    if (core.empty()) return std::max(1, CPU_COUNT(&allowed));  // no topology: every CPU is a core
    cores.emplace(package, core);
  }
  return std::max<int>(1, int(cores.empty() ? cpus : cores.size()));
}

int ThreadPool::threadsForWork(int64_t flops, int64_t bytes) const {
  const int64_t byFlops = (std::max<int64_t>(flops, 0) + kFlopsPerThread - 1) / kFlopsPerThread;
  const int64_t byBytes = (std::max<int64_t>(bytes, 0) + kBytesPerThread - 1) / kBytesPerThread;
  return int(std::clamp<int64_t>(std::max(byFlops, byBytes), 1, threads_));
}

namespace {

// ONYX_THREAD_BUDGET: "off" (default) gives every node all threads; "all" sizes our loops and oneDNN's teams
// per node, "loops" our loops only. Sizing is opt-in because it measured slower wherever it mattered: on a
// 16-core Xeon, alternating rounds against ONNX Runtime, "all" made efficientnet_b0 1.8x and bert_small 2.2x
// slower at 8 threads than "off" (libgomp re-forms its team whenever the team size changes), and "loops"
// made squeezenet1_1 2.3x slower at 16.
enum class BudgetMode { All, Loops, Off };

BudgetMode parseBudgetMode(std::string_view text) {
  if (text == "loops") return BudgetMode::Loops;
  if (text == "all") return BudgetMode::All;
  return BudgetMode::Off;
}

std::optional<BudgetMode>& budgetModeOverride() {
  static std::optional<BudgetMode> mode;
  return mode;
}

BudgetMode budgetMode() {
  static const BudgetMode fromEnvironment = [] {
    const char* value = std::getenv("ONYX_THREAD_BUDGET");
    return parseBudgetMode(value ? value : "");
  }();
  return budgetModeOverride().value_or(fromEnvironment);
}

}  // namespace

void ThreadPool::setNodeSizingForTests(std::string_view mode) {
  budgetModeOverride() = parseBudgetMode(mode);
}

bool ThreadPool::sizesNodes() {
  return budgetMode() != BudgetMode::Off;
}

void ThreadPool::applyBudget(int threads) {
  const BudgetMode mode = budgetMode();
  budget_ = mode == BudgetMode::Off ? threads_ : std::clamp(threads, 1, threads_);
  if (mode == BudgetMode::All && !sharesCores())
    omp_set_num_threads(budget_);  // oneDNN sizes its teams by the calling thread's max-threads setting
}

ThreadPool::NodeBudget::NodeBudget(ThreadPool& pool, int threads) : pool_(pool), previous_(pool.budget_) {
  pool_.applyBudget(threads);
}

ThreadPool::NodeBudget::~NodeBudget() {
  pool_.applyBudget(previous_);
}

namespace {

// A barrier for the first `count` threads of a parallel region: a counter and a generation the last one to
// arrive moves on. Waiters spin (a pause each), then yield their core to whatever the scheduler has.
class ParticipantBarrier {
 public:
  explicit ParticipantBarrier(int count) : count_(count) {}
  void wait() {
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);  // publishes the reset with the release
      return;
    }
    for (int spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        sched_yield();
      }
    }
  }

 private:
  static constexpr int kSpinsBeforeYield = 20000;  // 0.1-1 ms: a pause takes 10-140 cycles by CPU
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<unsigned> generation_{0};
  const int count_;
};

}  // namespace

void ThreadPool::runTeam(const std::function<void(int, int, const std::function<void()>&)>& body) {
  runTeam(budget_, body);
}

void ThreadPool::runTeam(int participants,
                         const std::function<void(int, int, const std::function<void()>&)>& body) {
  const std::function<void()> alone = [] {};
  participants = std::clamp(participants, 1, budget_);
  // Shared cores: a barrier per step would wait for a descheduled helper at every step.
  if (participants == 1 || omp_in_parallel() || sharesCores()) {
    body(0, 1, alone);
    return;
  }
  // An orphaned barrier binds to the innermost enclosing parallel region: this one.
  const std::function<void()> teamBarrier = [] {
#pragma omp barrier
  };
  ParticipantBarrier participantBarrier(participants);
  const std::function<void()> someBarrier = [&participantBarrier] { participantBarrier.wait(); };
#pragma omp parallel num_threads(threads_)
  {
    const int team = omp_get_num_threads();
    const int running = std::min(team, participants);
    const int thread = omp_get_thread_num();
    if (thread < running)
      body(thread, running, running == 1 ? alone : running == team ? teamBarrier : someBarrier);
  }
}

void ThreadPool::parallelFor(int64_t count, int64_t grain,
                             const std::function<void(int64_t, int64_t)>& body) {
  if (count <= 0) return;
  grain = std::max<int64_t>(1, grain);
  if (budget_ == 1 || omp_in_parallel() || SharedCorePool::insideTask() || count <= grain) {
    body(0, count);
    return;
  }
  if (sharesCores()) {
    // Many tasks, so that the caller can take over most of a descheduled helper's share.
    const int64_t chunk = std::max(grain, (count + budget_ * 8 - 1) / (budget_ * 8));
    const int64_t chunks = (count + chunk - 1) / chunk;
    shared_->run(chunks, [&](int64_t c) { body(c * chunk, std::min(count, (c + 1) * chunk)); });
    return;
  }
  // Chunks are taken from a shared counter, so a thread that starts late (descheduled) takes fewer. The
  // region always has the run's whole team, even with fewer chunks than threads or a smaller node budget
  // (those threads take no chunk): libgomp ends the threads a smaller team leaves out and creates them
  // again for the next larger one. At 16 threads bert_small made 128 threads a run that way, and each
  // product after a small loop waited up to 0.2 ms for its team.
  const int64_t chunk = std::max(grain, (count + budget_ * 4 - 1) / (budget_ * 4));
  const int participants = budget_;
  std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(threads_)
  {
    for (; omp_get_thread_num() < participants;) {
      int64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= count) break;
      body(begin, std::min(count, begin + chunk));
    }
  }
}

}  // namespace onyx::exec
