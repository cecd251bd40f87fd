#pragma once
// Headless subcommands. Each lives in its own cmd_*.cpp and is listed once in commands.cpp; the GUI and the
// CLI call the same engine functions.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "util/expected.h"

namespace CLI {
class App;
}

namespace onyx::cli {

// Exit codes: 0 success, 1 bad input (one `error: FILE: WHAT (WHERE)` line on stderr), 2 usage error.
constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

struct Command {
  std::string name;
  std::string summary;
  // Declares the options on `app` and returns what runs once they are parsed.
  std::function<std::function<int()>(CLI::App& app)> define;
};

const std::vector<Command>& commands();
bool isCommand(const std::string& name);
// Runs `onyx SUBCOMMAND ...`; returns the process exit code.
int run(int argc, char** argv);

// Prints `error: FILE: WHAT (WHERE)` and returns kExitBadInput.
int reportError(const std::string& file, const Error& error);

// Backends for `--backend cpu|vulkan|auto [--device D]`: vulkan and auto use the Vulkan device when one
// opens, else print a note saying why and use the CPU. A --device that names no device is an error.
Expected<std::vector<std::string>> chooseBackends(const std::string& backend, const std::string& device);

// Writes `content` to `path` through a temporary file in the same folder and a rename, so readers never
// see a half-written file and a failure leaves the old file intact.
Expected<void> writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace onyx::cli
