#pragma once
// What `onyx ops` prints: per op of the catalogue, its schema facts, the kernels each backend has for it
// (the CPU's reference kernel and fast variants, the Vulkan kernels) and the files in its family folder
// that define them.
#include <string>
#include <string_view>
#include <vector>

#include "catalog/op_registry.h"
#include "util/expected.h"

namespace onyx::ops {

struct OpKernelInfo {
  std::string backend;  // "cpu" or "vulkan"
  std::string variant;  // the CPU's "reference", "fast", "dnnl"...; "vulkan"
  int priority = 0;
  int sinceVersion = 1;
  int untilVersion = 1 << 30;
  std::string source;  // "ops/nn/conv_cpu.cpp"
};

struct OpInfo {
  const OpSchema* schema = nullptr;
  std::string family;                 // the folder of its schema table, "ops/nn"
  std::vector<OpKernelInfo> kernels;  // CPU in registration order, then Vulkan in registration order
};

// Every op of the catalogue, in catalogue order (family by family).
std::vector<OpInfo> describeOps();

// One line per op, under a heading per family.
std::string formatOpTable(const std::vector<OpInfo>& ops);
// The ops named `opType` (in any domain) in detail; an error when the catalogue has none.
Expected<std::string> formatOpDetails(const std::vector<OpInfo>& ops, std::string_view opType);

}  // namespace onyx::ops
