#pragma once
// Comparing run outputs with expected values (test_data_set_N/output_K.pb): floats within rtol/atol
// (|actual - expected| <= atol + rtol * |expected|, NaN matches NaN), integers, bools and strings exactly.
#include <string>
#include <vector>

#include "exec/tensor_value.h"
#include "onnx/onnx_io.h"

namespace onyx::exec {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct Comparison {
  bool ok = true;
  std::string reason;      // first mismatch, when !ok
  double maxAbsError = 0;  // worst element (floats)
  double maxRelError = 0;
  int64_t mismatches = 0;
};

Comparison compareValues(const RunValue& actual, const RunValue& expected, const Tolerance& tolerance);

// Detections whose scores are near-tied may come out in another order (ssdlite320: ONNX Runtime orders 16
// of 300 labels differently from PyTorch). Compares outputs that share their first dim N as N rows, one
// per detection across all outputs, matched as a multiset. The relative tolerance applies to the larger of
// the element and its output's largest magnitude: box corners near 0 in a 320-pixel image are compared at
// the image's scale, not at their own.
Comparison compareDetectionsAsSets(const std::vector<RunValue>& actual, const std::vector<RunValue>& expected,
                                   const Tolerance& tolerance);

// A loaded test value as a run-time value (declared type names the optional's type when it is empty).
Expected<RunValue> toRunValue(const TestValue& value, const Type& declared);

// test_data_set_N folder: inputs for the graph's (non-initializer) inputs in order, and expected outputs.
struct TestDataSet {
  std::vector<std::pair<std::string, RunValue>> inputs;
  std::vector<RunValue> outputs;
};
// An error in one of the files has that file's path as its `where` and names the model input (or the expected
// output) in its message.
Expected<TestDataSet> loadTestDataSet(const Model& model, const std::filesystem::path& folder);

}  // namespace onyx::exec
