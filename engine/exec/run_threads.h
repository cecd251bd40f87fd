#pragma once
// What a run did with its threads, in words: the CLI's `onyx run` line and the GUI's run results say the same.
#include <string>

#include "exec/executor.h"

namespace onyx::exec {

// "16 threads", then what the last run used instead and why: other processes' busy cores, a shared core, or
// the tuner (exec/thread_tuner.h): its choice, or a run timing half before it chose. `adaptive`: ExecutorOptions::adaptThreads.
std::string describeRunThreads(int asked, bool adaptive, const RunReport& report);

}  // namespace onyx::exec
