#pragma once
// Helpers the fuzz regression tests share: small tensors from literals, and an error check that prints
// the whole error (or that it ran) when the expected text is missing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exec/tensor_value.h"

namespace onyx::exec::fuzz_regressions {

inline TensorValue f32(Dims dims, std::vector<float> values) {
  return TensorValue::fromVector<float>(DataType::Float, std::move(dims), values);
}

inline TensorValue i64(Dims dims, std::vector<int64_t> values) {
  return TensorValue::fromVector<int64_t>(DataType::Int64, std::move(dims), values);
}

// Whether `error` says `text`; "" is a run that did not fail.
inline ::testing::AssertionResult says(const std::string& error, const std::string& text) {
  if (error.find(text) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no \"" << text << "\" in: " << (error.empty() ? "(it ran)" : error);
}

}  // namespace onyx::exec::fuzz_regressions
