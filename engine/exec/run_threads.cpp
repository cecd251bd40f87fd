#include "exec/run_threads.h"

#include <fmt/format.h>

namespace onyx::exec {

std::string describeRunThreads(int asked, bool adaptive, const RunReport& report) {
  std::string text = fmt::format("{} threads", asked);
  const double busy = report.othersBusy.value_or(0.0);
  const auto& choice = report.threadChoice;
  if (report.sharedCores && adaptive)
    text += fmt::format(", the last run on one free core and one shared: other processes kept {:.1f} cores busy", busy);
  else if (report.sharedCores)
    text += fmt::format(", the last run sharing busy cores in tasks: other processes kept {:.1f} cores busy", busy);
  else if (choice && report.threads == choice->chosen && choice->chosen != asked)
    text += fmt::format(", {} used: the first runs took {:.3f} ms on {} against {:.3f} ms on {} "
                        "(ONYX_TUNE_THREADS=0 keeps them all)",
                        choice->chosen, choice->halfMs, choice->half, choice->allMs, choice->all);
  else if (report.threadsOnTrial && report.threads != asked)
    text += fmt::format(", {} in the last run: the first runs time all of them against half "
                        "(ONYX_TUNE_THREADS=0 keeps them all)",
                        report.threads);
  else if (report.threads != asked)
    text += fmt::format(", {} in the last run: other processes kept {:.1f} cores busy", report.threads, busy);
  return text;
}

}  // namespace onyx::exec
