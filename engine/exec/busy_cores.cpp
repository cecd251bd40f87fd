#include "exec/busy_cores.h"

#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace onyx::exec {

BusyCores::BusyCores(Reader reader) : reader_(std::move(reader)) {
  if (auto now = reader_()) update(*now);
}

BusyCores& BusyCores::shared() {
  static BusyCores sensor;
  return sensor;
}

std::optional<CpuTimes> BusyCores::readCpuTimes() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return std::nullopt;
  FILE* file = std::fopen("/proc/stat", "re");
  if (!file) return std::nullopt;
  CpuTimes times;
  times.at = std::chrono::steady_clock::now();
  static const double tick = 1.0 / double(std::max(1L, sysconf(_SC_CLK_TCK)));
  // Niced processes (nice > 0: background builds, indexers) yield their CPU to ours, so their time, which
  // /proc/stat counts apart, is not load. A process that is niced itself has its own time there.
  errno = 0;
  const int niceness = ::getpriority(PRIO_PROCESS, 0);
  const bool countNiced = errno == 0 && niceness > 0;
  char line[512];
  long long busyTicks = 0;
  while (std::fgets(line, sizeof(line), file)) {
    // "cpuN user nice system idle iowait irq softirq steal guest guest_nice"; the first line, "cpu ", is
    // the sum and is skipped, and so is every line after the CPUs.
    if (std::strncmp(line, "cpu", 3) != 0) break;
    char* end = nullptr;
    const long cpu = std::strtol(line + 3, &end, 10);
    if (end == line + 3) continue;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(int(cpu), &allowed)) continue;
    long long field[8] = {};
    for (long long& f : field) f = std::strtoll(end, &end, 10);
    busyTicks += field[0] + (countNiced ? field[1] : 0) + field[2] + field[5] + field[6] + field[7];
    ++times.cpus;
  }
  std::fclose(file);
  timespec own{};
  if (times.cpus == 0 || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own) != 0) return std::nullopt;
  times.busySeconds = double(busyTicks) * tick;
  times.ownSeconds = double(own.tv_sec) + double(own.tv_nsec) * 1e-9;
  return times;
}

void BusyCores::update(const CpuTimes& now) {
  lastRead_ = now.at;
  cpus_ = now.cpus;
  if (!start_) {
    start_ = middle_ = now;
    return;
  }
  const std::chrono::duration<double> window = now.at - start_->at;
  if (now.at - start_->at >= kMinWindow) {
    const double others = ((now.busySeconds - start_->busySeconds) - (now.ownSeconds - start_->ownSeconds)) /
                          window.count();
    others_ = std::clamp(others, 0.0, double(now.cpus));
    const int taken = std::max(0, int(std::ceil(*others_ - kTakenAbove)));
    const int stillTaken = std::max(0, int(std::ceil(*others_ - kFreeBelow)));
    if (taken > taken_)
      taken_ = taken;
    else if (stillTaken < taken_)
      taken_ = stillTaken;
  }
  if (now.at - middle_->at >= kWindowStep) {
    start_ = middle_;
    middle_ = now;
  }
}

int BusyCores::threadsFor(int requested) {
  requested = std::max(1, requested);
  std::lock_guard lock(mutex_);
  if (!start_ || std::chrono::steady_clock::now() - lastRead_ >= kReadInterval) {
    if (auto now = reader_()) update(*now);
  }
  // Only cores others take count: a machine without other load runs what was asked, oversubscribed or not.
  if (!others_ || cpus_ <= 0 || taken_ == 0) return requested;
  return std::clamp(cpus_ - taken_, 1, requested);
}

int BusyCores::freeCores() const {
  std::lock_guard lock(mutex_);
  return std::max(0, cpus_ - taken_);
}

std::optional<double> BusyCores::othersBusy() const {
  std::lock_guard lock(mutex_);
  return others_;
}

}  // namespace onyx::exec
