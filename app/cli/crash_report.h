#pragma once
// A crash in a subcommand (a fatal signal, or an exception nothing caught) still ends with one `error:` line
// naming the file and the command, as every other failure does, instead of a bare "terminate called" or
// "Segmentation fault". The process then dies as it would have (same signal), so scripts still see a crash.
#include <string>

namespace onyx::cli {

// Installs the handlers; `file` is the subcommand's input as the user wrote it (or "onyx" when it has none).
void installCrashReport(const std::string& command, const std::string& file);

// ONYX_CRASH_FOR_TEST=segv|abort|exception makes the command crash that way once its options are parsed: the
// only way a test can check the line above, since a crash in onyx is a bug to be fixed, not a case to keep.
void crashIfAskedForTest();

}  // namespace onyx::cli
