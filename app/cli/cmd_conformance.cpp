// `onyx conformance DIR...`: runs ONNX-backend-style cases (model.onnx + test_data_set_N/) and ends with
// `N passed, M failed, K skipped`, listing every failure with its reason.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <regex>

#include "cli/command.h"
#include "exec/conformance.h"
#include "exec/thread_pool.h"

namespace onyx::cli {
namespace {

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", int(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

Command conformanceCommand() {
  return {"conformance", "Run ONNX backend test cases (model.onnx + test_data_set_N) and report pass/fail",
          [](CLI::App& app) {
            auto dirs = std::make_shared<std::vector<std::string>>();
            auto backend = std::make_shared<std::string>("cpu");
            auto filter = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            auto threads = std::make_shared<int>(exec::ThreadPool::physicalCoreCount());
            auto device = std::make_shared<std::string>();
            app.add_option("DIR", *dirs, "Case folders, or folders of case folders")->required();
            app.add_option("--backend", *backend, "cpu, vulkan or auto")
                ->check(CLI::IsMember({"cpu", "vulkan", "auto"}));
            app.add_option("--filter", *filter, "Only cases whose folder name matches this regex");
            app.add_flag("--json", *json, "Print the results as JSON");
            app.add_option("--threads", *threads, "Threads for kernels (default: the physical cores)")->check(CLI::Range(1, 256));
            app.add_option("--device", *device, "Vulkan device: index or part of its name");
            return [=]() -> int {
              exec::ConformanceOptions options;
              options.executor.threads = *threads;
              auto backends = chooseBackends(*backend, *device);
              if (!backends) return reportError("--device", backends.error());
              options.executor.backends = *backends;
              options.executor.device = *device;
              std::optional<std::regex> pattern;
              try {
                if (!filter->empty()) pattern.emplace(*filter);
              } catch (const std::regex_error& e) {
                std::cerr << "error: --filter: not a valid regex: " << e.what() << "\n";
                return kExitUsage;
              }
              std::vector<exec::CaseResult> results;
              for (const std::string& dir : *dirs) {
                if (!std::filesystem::is_directory(dir)) return reportError(dir, makeError("not a folder"));
                for (const auto& caseDir : exec::findCases(dir)) {
                  if (pattern && !std::regex_search(caseDir.filename().string(), *pattern)) continue;
                  results.push_back(exec::runConformanceCase(caseDir, options));
                }
              }
              int passed = 0, failed = 0, skipped = 0;
              for (const auto& r : results) {
                if (r.status == exec::CaseResult::Status::Passed)
                  ++passed;
                else if (r.status == exec::CaseResult::Status::Failed)
                  ++failed;
                else
                  ++skipped;
              }
              if (*json) {
                std::string out = "{\"cases\":[";
                for (size_t i = 0; i < results.size(); ++i) {
                  const auto& r = results[i];
                  const char* status = r.status == exec::CaseResult::Status::Passed   ? "passed"
                                       : r.status == exec::CaseResult::Status::Failed ? "failed"
                                                                                      : "skipped";
                  out += fmt::format("{}{{\"name\":{},\"status\":\"{}\",\"reason\":{}}}", i ? ",\n" : "\n",
                                     jsonString(r.name), status, jsonString(r.reason));
                }
                out += fmt::format("\n],\"passed\":{},\"failed\":{},\"skipped\":{}}}\n", passed, failed,
                                   skipped);
                std::cout << out;
              } else {
                for (const auto& r : results) {
                  if (r.status == exec::CaseResult::Status::Failed)
                    std::cout << "FAIL " << r.name << ": " << r.reason << "\n";
                  if (r.status == exec::CaseResult::Status::Skipped)
                    std::cout << "SKIP " << r.name << ": " << r.reason << "\n";
                }
                std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
              }
              return kExitOk;
            };
          }};
}

}  // namespace onyx::cli
