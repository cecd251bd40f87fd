#include "exec/shared_core_pool.h"

#include <linux/futex.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "exec/cpu/denormals.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace onyx::exec {

namespace {

thread_local int threadIndex = 0;
thread_local bool inTask = false;

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

void futexWait(std::atomic<uint32_t>& word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

// Like futexWait, for at most `timeout`.
void futexWaitFor(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::microseconds timeout) {
  timespec span{0, long(std::chrono::nanoseconds(timeout).count())};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &span, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1 << 30, nullptr, nullptr, 0);
}

// Spins until `ready` says so or kSpin passes; whether it became ready.
template <class Ready>
bool spinFor(const Ready& ready) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > SharedCorePool::kSpin) return false;
    cpuRelax();
  }
}

constexpr int kCountBits = 20;
constexpr uint64_t kFieldMask = (uint64_t(1) << kCountBits) - 1;

uint64_t claimWord(uint32_t generation, uint64_t next, uint64_t tasks) {
  return (uint64_t(generation & 0xFFFFFF) << (2 * kCountBits)) | (next << kCountBits) | tasks;
}
uint32_t claimGeneration(uint64_t word) { return uint32_t(word >> (2 * kCountBits)); }
uint64_t claimNext(uint64_t word) { return (word >> kCountBits) & kFieldMask; }
uint64_t claimTasks(uint64_t word) { return word & kFieldMask; }

// Nanoseconds the thread spent runnable but waiting for a CPU (the second field of its schedstat); 0 where
// the system does not say.
uint64_t runDelay(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  if (!file) return 0;
  unsigned long long onCpu = 0, waiting = 0;
  const int read = std::fscanf(file, "%llu %llu", &onCpu, &waiting);
  std::fclose(file);
  return read == 2 ? waiting : 0;
}

std::string helperStatPath(int tid) {
  return "/proc/self/task/" + std::to_string(tid) + "/schedstat";
}

bool pinThread(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof(set), &set) == 0;
}

}  // namespace

SharedCorePool::SharedCorePool(int helpers)
    : helperTids_(size_t(std::max(0, helpers))), helperBusy_(size_t(std::max(0, helpers))) {
  for (auto& busy : helperBusy_) busy.store(false);
  for (auto& tid : helperTids_) tid.store(0);
  helperDelayAtStart_.assign(helperTids_.size(), 0);
  for (int i = 0; i < helpers; ++i) helpers_.emplace_back([this, i] { helperLoop(i + 1); });
}

SharedCorePool::~SharedCorePool() {
  stopping_.store(true);
  generation_.fetch_add(1);
  futexWakeAll(generation_);
  for (std::thread& helper : helpers_) helper.join();
}

int SharedCorePool::currentThreadIndex() {
  return threadIndex;
}

bool SharedCorePool::insideTask() {
  return inTask;
}

void SharedCorePool::helperLoop(int index) {
  threadIndex = index;
  helperTids_[size_t(index - 1)].store(int(syscall(SYS_gettid)));
  omp_set_num_threads(1);  // a oneDNN primitive inside a task runs on this thread alone
  if (flushDenormalsByDefault()) flushDenormalsOnThisThread();  // it computes only for runs
  uint32_t seen = 0;
  for (;;) {
    uint32_t generation = generation_.load(std::memory_order_acquire);
    if (generation == seen && !spinFor([&] { return generation_.load(std::memory_order_acquire) != seen; })) {
      sleepingHelpers_.fetch_add(1);
      if (generation_.load() == seen) futexWait(generation_, seen);
      sleepingHelpers_.fetch_sub(1);
    }
    generation = generation_.load(std::memory_order_acquire);
    if (stopping_.load()) return;
    if (generation == seen) continue;  // woken for nothing
    seen = generation;
    while (runOneTask(generation)) {
    }
  }
}

// Claims the next task of the job `generation` and runs it; false when that job has none left (or is over).
bool SharedCorePool::runOneTask(uint32_t generation) {
  uint64_t word = claim_.load(std::memory_order_acquire);
  for (;;) {
    if (claimGeneration(word) != (generation & 0xFFFFFF) || claimNext(word) >= claimTasks(word)) return false;
    if (claim_.compare_exchange_weak(word, word + (uint64_t(1) << kCountBits), std::memory_order_acq_rel))
      break;
  }
  // The job cannot finish before this task does, so task_ is still its task.
  inTask = true;
  if (threadIndex > 0) helperBusy_[size_t(threadIndex - 1)].store(true, std::memory_order_relaxed);
  try {
    (*task_)(int64_t(claimNext(word)));
  } catch (...) {
    std::lock_guard lock(errorMutex_);
    if (!error_) error_ = std::current_exception();
  }
  inTask = false;
  if (threadIndex > 0) helperBusy_[size_t(threadIndex - 1)].store(false, std::memory_order_relaxed);
  finishTask();
  return true;
}

void SharedCorePool::finishTask() {
  done_.fetch_add(1);
  if (callerSleeping_.load()) futexWakeAll(done_);
}

void SharedCorePool::run(int64_t tasks, const std::function<void(int64_t)>& task) {
  if (tasks <= 0) return;
  if (inTask || helpers_.empty() || tasks == 1 || tasks > kMaxTasks) {
    for (int64_t i = 0; i < tasks; ++i) task(i);
    return;
  }
  ++jobs_;
  task_ = &task;
  error_ = nullptr;
  done_.store(0);
  const uint32_t generation = generation_.load() + 1;
  claim_.store(claimWord(generation, 0, uint64_t(tasks)), std::memory_order_release);
  generation_.store(generation);
  if (sleepingHelpers_.load() > 0) futexWakeAll(generation_);
  while (runOneTask(generation)) {
  }
  // What is left is running on helpers: wait for it, spinning first, then asleep.
  const auto finished = [&] { return done_.load(std::memory_order_acquire) == uint32_t(tasks); };
  if (!spinFor(finished)) {
    callerSleeping_.store(true);
    // A helper still in its task kRescueAfter later has most likely lost its CPU to the other program, for
    // a slice of milliseconds: it moves to the caller's CPU, idle while the caller sleeps, until the job ends.
    const auto asleep = std::chrono::steady_clock::now();
    bool rescued = !pinned_;
    std::vector<size_t> moved;
    for (uint32_t now = done_.load(); now != uint32_t(tasks); now = done_.load()) {
      if (rescued) {
        futexWait(done_, now);
      } else if (std::chrono::steady_clock::now() - asleep < kRescueAfter) {
        futexWaitFor(done_, now, kRescueAfter);
      } else {
        moved = moveBusyHelpersHere();
        rescued = true;
      }
    }
    callerSleeping_.store(false);
    for (size_t h : moved) pinThread(helpers_[h].native_handle(), placement_[h + 1]);
    rescues_ += moved.size();
  }
  task_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

std::vector<size_t> SharedCorePool::moveBusyHelpersHere() {
  std::vector<size_t> moved;
  for (size_t h = 0; h < helpers_.size(); ++h)
    if (helperBusy_[h].load(std::memory_order_relaxed) && pinThread(helpers_[h].native_handle(), placement_[0]))
      moved.push_back(h);
  return moved;
}

SharedCorePool::RunPinning::RunPinning(SharedCorePool& pool) : pool_(pool) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  if (int(cpus.size()) < pool.threads()) return;
  for (auto& tid : pool.helperTids_)
    if (tid.load() == 0) return;  // a helper has not started yet: pin from the next run
  savedMask_.assign(reinterpret_cast<unsigned char*>(&allowed),
                    reinterpret_cast<unsigned char*>(&allowed) + sizeof(allowed));
  pool.choosePlacement(cpus);
  if (!pinThread(pthread_self(), pool.placement_[0])) return;
  pinned_ = true;
  pool.pinned_ = true;
  for (size_t h = 0; h < pool.helpers_.size(); ++h) pinThread(pool.helpers_[h].native_handle(), pool.placement_[h + 1]);
  pool.callerDelayAtStart_ = runDelay("/proc/thread-self/schedstat");
  for (size_t h = 0; h < pool.helpers_.size(); ++h)
    pool.helperDelayAtStart_[h] = runDelay(helperStatPath(pool.helperTids_[h].load()));
}

SharedCorePool::RunPinning::~RunPinning() {
  if (!pinned_) return;
  pool_.pinned_ = false;
  // Who waited to run during this run: the caller on its CPU, the first helper on its. When the caller
  // waited more, the other program is on the caller's CPU: swap them for the next runs.
  const uint64_t callerDelay = runDelay("/proc/thread-self/schedstat") - pool_.callerDelayAtStart_;
  const uint64_t helperDelay = runDelay(helperStatPath(pool_.helperTids_[0].load())) - pool_.helperDelayAtStart_[0];
  if (callerDelay > helperDelay + 100'000 && pool_.placement_.size() > 1)  // 0.1 ms: not noise
    std::swap(pool_.placement_[0], pool_.placement_[1]);
  sched_setaffinity(0, savedMask_.size(), reinterpret_cast<const cpu_set_t*>(savedMask_.data()));
}

// The CPUs for the caller and the helpers: the last placement while its CPUs are still allowed, else the
// CPU the caller is on and the next allowed ones after it.
void SharedCorePool::choosePlacement(const std::vector<int>& cpus) {
  const bool stillAllowed =
      placement_.size() == size_t(threads()) &&
      std::all_of(placement_.begin(), placement_.end(),
                  [&](int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); });
  if (stillAllowed) return;
  const int current = sched_getcpu();
  auto at = std::find(cpus.begin(), cpus.end(), current);
  size_t start = at == cpus.end() ? 0 : size_t(at - cpus.begin());
  placement_.clear();
  for (int t = 0; t < threads(); ++t) placement_.push_back(cpus[(start + size_t(t)) % cpus.size()]);
}

}  // namespace onyx::exec
