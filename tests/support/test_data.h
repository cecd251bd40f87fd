#pragma once
// Where the shared test data lives: $ONYX_TEST_DATA, else the folder beside the checkout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace onyx::testing {

inline std::filesystem::path testDataDir() {
  const char* fromEnv = std::getenv("ONYX_TEST_DATA");
  return fromEnv && *fromEnv ? std::filesystem::path(fromEnv) : std::filesystem::path(ONYX_DEFAULT_TEST_DATA);
}

// The path of a shared data folder, or empty when it is missing (the caller then skips, visibly).
inline std::filesystem::path sharedPath(const std::string& relative) {
  std::filesystem::path path = testDataDir() / relative;
  return std::filesystem::exists(path) ? path : std::filesystem::path();
}

}  // namespace onyx::testing

// Skips the current test, naming what is missing, when the shared data folder is absent.
#define ONYX_REQUIRE_SHARED(var, relative)                                                          \
  const std::filesystem::path var = ::onyx::testing::sharedPath(relative);                          \
  if (var.empty()) GTEST_SKIP() << "test data not found: " << (::onyx::testing::testDataDir() / relative) \
                                << " (set ONYX_TEST_DATA)"
