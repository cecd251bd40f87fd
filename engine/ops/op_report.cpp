#include "ops/op_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "exec/kernel.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::ops {
namespace {

std::string_view domainName(std::string_view domain) {
  return domain.empty() ? "ai.onnx" : domain;
}

bool sameDomain(std::string_view a, std::string_view b) {
  return domainName(a) == domainName(b);
}

std::string folderOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? std::string_view() : path.substr(0, slash));
}

std::string versionList(const std::vector<int>& versions) {
  return fmt::format("{}", fmt::join(versions, ", "));
}

std::string opsetRange(const OpKernelInfo& k) {
  if (k.untilVersion >= (1 << 30)) return fmt::format("opset {}+", k.sinceVersion);
  return fmt::format("opsets {}-{}", k.sinceVersion, k.untilVersion);
}

std::string arity(int least, int most) {
  if (most >= OpSchema::kVariadic) return fmt::format("{} or more", least);
  return least == most ? std::to_string(least) : fmt::format("{} to {}", least, most);
}

// "reference, dnnl" for the CPU; "-" when the backend has no kernel.
std::string variantsOf(const OpInfo& op, std::string_view backend) {
  std::vector<std::string> names;
  for (const OpKernelInfo& k : op.kernels)
    if (k.backend == backend && std::find(names.begin(), names.end(), k.variant) == names.end())
      names.push_back(k.variant);
  return names.empty() ? std::string("-") : fmt::format("{}", fmt::join(names, ","));
}

}  // namespace

std::vector<OpInfo> describeOps() {
  std::vector<OpInfo> ops;
  for (const OpSchema& schema : opRegistry().all()) {
    OpInfo op;
    op.schema = &schema;
    op.family = folderOf(engineRelativePath(schema.source));
    for (const exec::KernelDef* def : exec::cpuKernels().variants(schema.domain, schema.opType))
      op.kernels.push_back({"cpu", def->variant, def->priority, def->sinceVersion, def->untilVersion,
                            std::string(engineRelativePath(def->source))});
    for (const exec::vulkan::VulkanKernelDef& def : exec::vulkan::vulkanKernels().all())
      if (def.opType == schema.opType && sameDomain(def.domain, schema.domain))
        op.kernels.push_back({"vulkan", "vulkan", 0, def.sinceVersion, def.untilVersion,
                              std::string(engineRelativePath(def.source))});
    ops.push_back(std::move(op));
  }
  return ops;
}

std::string formatOpTable(const std::vector<OpInfo>& ops) {
  std::string out;
  std::string family;
  for (const OpInfo& op : ops) {
    if (op.family != family) {
      family = op.family;
      out += fmt::format("{}{}/\n", out.empty() ? "" : "\n", family);
      out += fmt::format("  {:<30} {:<26} {:<13} {:<28} {:<20} {}\n", "op", "domain", "category", "since",
                         "cpu", "vulkan");
    }
    const OpSchema& s = *op.schema;
    out += fmt::format("  {:<30} {:<26} {:<13} {:<28} {:<20} {}\n", s.opType, domainName(s.domain),
                       opCategoryName(s.category), fmt::format("{}", fmt::join(s.sinceVersions, ",")),
                       variantsOf(op, "cpu"), variantsOf(op, "vulkan"));
  }
  return out;
}

Expected<std::string> formatOpDetails(const std::vector<OpInfo>& ops, std::string_view opType) {
  std::string out;
  for (const OpInfo& op : ops) {
    const OpSchema& s = *op.schema;
    if (s.opType != opType) continue;
    if (!out.empty()) out += "\n";
    out += fmt::format("{} ({})\n", s.opType, domainName(s.domain));
    out += fmt::format("  category:       {}{}\n", opCategoryName(s.category),
                       s.elementwise ? ", elementwise" : "");
    out += fmt::format("  since versions: {}\n", versionList(s.sinceVersions));
    out += fmt::format("  inputs:         {}\n", arity(s.minInputs, s.maxInputs));
    out += fmt::format("  outputs:        {}\n", arity(s.minOutputs, s.maxOutputs));
    out += fmt::format("  family:         {}/\n", op.family);
    out += fmt::format("  schema:         {}\n", engineRelativePath(s.source));
    bool cpuHeading = false, vulkanHeading = false;
    for (const OpKernelInfo& k : op.kernels) {
      if (k.backend == "cpu") {
        if (!cpuHeading)
          out +=
              "  cpu kernels (the highest priority that supports the node runs; ties: the first listed):\n";
        cpuHeading = true;
        out += fmt::format("    {:<10} priority {:<3} {:<12} {}\n", k.variant, k.priority, opsetRange(k),
                           k.source);
      } else {
        if (!vulkanHeading) out += "  vulkan kernels (the first listed that supports the node runs):\n";
        vulkanHeading = true;
        out += fmt::format("    {:<12} {}\n", opsetRange(k), k.source);
      }
    }
    if (!cpuHeading) out += "  cpu kernels:    none\n";
    if (!vulkanHeading) out += "  vulkan kernels: none (the CPU runs it)\n";
  }
  if (out.empty())
    return makeError("unknown op '" + std::string(opType) + "'; `onyx ops` lists the ops Onyx knows");
  return out;
}

}  // namespace onyx::ops
