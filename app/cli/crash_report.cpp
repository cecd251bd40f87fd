#include "cli/crash_report.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string_view>

namespace onyx::cli {

std::string oneLine(const std::string& text);  // command.cpp

namespace {

// Written before anything can crash: a signal handler may only write() what is already there.
char prefix[1024];  // "error: FILE: onyx COMMAND "
size_t prefixLength = 0;

void writeText(std::string_view text) {
  while (!text.empty()) {
    ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
    if (written <= 0) return;
    text.remove_prefix(size_t(written));
  }
}

const char* signalName(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV, a bad memory access";
    case SIGBUS:
      return "SIGBUS, a bad memory access";
    case SIGFPE:
      return "SIGFPE, an arithmetic fault";
    case SIGILL:
      return "SIGILL, an illegal instruction";
    case SIGABRT:
      return "SIGABRT, an abort";
    default:
      return "a fatal signal";
  }
}

constexpr std::string_view kReport = "; this is a bug in onyx: please report it with the file\n";

void onFatalSignal(int signal) {
  writeText({prefix, prefixLength});
  writeText("crashed (");
  writeText(signalName(signal));
  writeText(")");
  writeText(kReport);
  std::signal(signal, SIG_DFL);  // die of the same signal, once the line is out
  std::raise(signal);
}

void onTerminate() {
  std::signal(SIGABRT, SIG_DFL);  // std::abort below must not print a second line
  std::string what = "an unknown exception";
  if (std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::exception& error) {
      what = std::string("an exception: ") + error.what();
    } catch (...) {
    }
  }
  writeText({prefix, prefixLength});
  writeText("stopped on " + oneLine(what));
  writeText(kReport);
  std::abort();
}

}  // namespace

void installCrashReport(const std::string& command, const std::string& file) {
  std::string text = "error: " + oneLine(file) + ": onyx " + command + " ";
  prefixLength = std::min(text.size(), sizeof(prefix));
  std::memcpy(prefix, text.data(), prefixLength);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, onFatalSignal);
  std::set_terminate(onTerminate);
}

void crashIfAskedForTest() {
  const char* how = std::getenv("ONYX_CRASH_FOR_TEST");
  if (!how) return;
  std::string_view kind = how;
  if (kind == "segv") std::raise(SIGSEGV);
  if (kind == "abort") std::abort();
  if (kind == "exception") throw std::runtime_error("asked for by ONYX_CRASH_FOR_TEST");
}

}  // namespace onyx::cli
