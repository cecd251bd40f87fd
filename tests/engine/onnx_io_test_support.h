#pragma once
// Helpers for the ONNX I/O tests: a scratch folder per test, and small models written as files.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "onnx/onnx_io.h"

namespace onyx::testing {

// A fresh folder, removed with everything in it when the test ends.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "onyx-io-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void writeFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The model of an ONNX text, parsed; fails the test on a syntax error.
inline std::unique_ptr<Model> modelFromText(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().toString());
  return model.ok() ? std::move(*model) : nullptr;
}

// The .onnx bytes of an ONNX text.
inline std::string bytesFromText(const std::string& text) {
  auto model = modelFromText(text);
  if (!model) return {};
  auto bytes = serializeModel(*model);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::string();
}

inline std::string errorText(const Error& error) { return error.toString(); }

}  // namespace onyx::testing
