#include "cli/command.h"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cli/crash_report.h"
#include "exec/vulkan/vulkan_backend.h"
#include "util/limits.h"

namespace onyx::cli {

bool isCommand(const std::string& name) {
  for (const Command& command : commands())
    if (command.name == name) return true;
  return false;
}

// Control characters (a node or file name with a newline) are escaped, so an error is always one line that
// scripts can match.
std::string oneLine(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += char(c);
  }
  return out;
}

int reportError(const std::string& file, const Error& error) {
  std::cerr << "error: " << oneLine(file) << ": " << oneLine(error.toString()) << "\n";
  return kExitBadInput;
}

Expected<std::vector<std::string>> chooseBackends(const std::string& backend, const std::string& device) {
  if (backend == "cpu") return std::vector<std::string>{"cpu"};
  auto probed = exec::vulkan::probeDevice(device);
  if (probed) return std::vector<std::string>{"vulkan"};
  if (probed.error().where == "--device") return probed.error();
  std::cerr << "note: " << probed.error().message << "; running on cpu\n";
  return std::vector<std::string>{"cpu"};
}

Expected<void> writeFileAtomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string pattern = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) return makeError("cannot create a temporary file in " + folder.string() + ": " + std::strerror(errno));
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      ::unlink(name.data());
      return makeError("cannot write " + path + ": " + std::strerror(error));
    }
    data += written;
    left -= size_t(written);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(name.data());
    return makeError("cannot write " + path + ": " + std::strerror(errno));
  }
  ::chmod(name.data(), 0644);
  if (std::rename(name.data(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(name.data());
    return makeError("cannot replace " + path + ": " + std::strerror(error));
  }
  return {};
}

int run(int argc, char** argv) {
  CLI::App app{"Onyx: see, optimize and profile ONNX models. Without a subcommand it opens the GUI."};
  app.set_version_flag("--version", "onyx 0.1.0");
  app.require_subcommand(1);
  std::function<int()> action;
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    auto body = command.define(*sub);
    sub->callback([&action, body] { action = body; });
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kExitUsage;
  }
  if (!action) return kExitUsage;
  // The subcommand's first positional argument (the model, for most) names the crash report's file.
  for (CLI::App* sub : app.get_subcommands()) {
    std::string file = "onyx";
    for (const CLI::Option* option : sub->get_options())
      if (option->get_positional() && !option->results().empty()) {
        file = option->results().front();
        break;
      }
    installCrashReport(sub->get_name(), file);
  }
  // The variable's name stands where a file would: "error: ONYX_MAX_TENSOR_BYTES: 'lots' is not ...".
  if (auto limits = checkLimitOverrides(); !limits)
    return reportError(limits.error().where, Error{limits.error().message, ""});
  crashIfAskedForTest();
  return action();
}

}  // namespace onyx::cli
