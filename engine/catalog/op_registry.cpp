#include "catalog/op_registry.h"

#include <algorithm>
#include <cstring>

namespace onyx {

std::string_view opCategoryName(OpCategory category) {
  switch (category) {
    case OpCategory::Layer: return "Layer";
    case OpCategory::Pool: return "Pool";
    case OpCategory::Normalization: return "Normalization";
    case OpCategory::Activation: return "Activation";
    case OpCategory::Elementwise: return "Elementwise";
    case OpCategory::Logic: return "Logic";
    case OpCategory::Reduction: return "Reduction";
    case OpCategory::Shape: return "Shape";
    case OpCategory::DataMovement: return "DataMovement";
    case OpCategory::Creation: return "Creation";
    case OpCategory::ControlFlow: return "ControlFlow";
    case OpCategory::Sequence: return "Sequence";
    case OpCategory::Quantization: return "Quantization";
    case OpCategory::Recurrent: return "Recurrent";
    case OpCategory::Attention: return "Attention";
    case OpCategory::Detection: return "Detection";
    case OpCategory::Random: return "Random";
    case OpCategory::Other: return "Other";
  }
  return "Other";
}

int OpSchema::versionFor(int64_t opset) const {
  int found = 0;
  for (int since : sinceVersions) {
    if (since <= opset) found = since;
  }
  return found;
}

static std::string registryKey(std::string_view domain, std::string_view opType) {
  if (domain == "ai.onnx") domain = "";
  std::string key(domain);
  key += "::";
  key += opType;
  return key;
}

void OpRegistry::add(OpSchema schema, std::source_location where) {
  if (!schema.source) schema.source = where.file_name();
  std::sort(schema.sinceVersions.begin(), schema.sinceVersions.end());
  if (schema.domain == "ai.onnx") schema.domain.clear();
  std::string key = registryKey(schema.domain, schema.opType);
  auto found = index_.find(key);
  if (found != index_.end()) {
    schemas_[found->second] = std::move(schema);
    return;
  }
  index_.emplace(std::move(key), schemas_.size());
  schemas_.push_back(std::move(schema));
}

const OpSchema* OpRegistry::find(std::string_view domain, std::string_view opType) const {
  if (domain == "ai.onnx") domain = {};
  char buffer[128];
  if (domain.size() + opType.size() + 2 > sizeof buffer) {
    auto found = index_.find(registryKey(domain, opType));
    return found == index_.end() ? nullptr : &schemas_[found->second];
  }
  // An empty view may hold a null pointer, which memcpy must not get even for 0 bytes.
  if (!domain.empty()) std::memcpy(buffer, domain.data(), domain.size());
  std::memcpy(buffer + domain.size(), "::", 2);
  if (!opType.empty()) std::memcpy(buffer + domain.size() + 2, opType.data(), opType.size());
  auto found = index_.find(std::string_view(buffer, domain.size() + 2 + opType.size()));
  return found == index_.end() ? nullptr : &schemas_[found->second];
}

const OpRegistry& opRegistry() {
  static const OpRegistry registry = [] {
    OpRegistry built;
    registerOpSchemas(built);
    return built;
  }();
  return registry;
}

std::string_view engineRelativePath(const char* sourcePath) {
  if (!sourcePath) return {};
  std::string_view path(sourcePath);
  // The last "engine/" that starts a path component: a checkout folder may itself be named like it.
  for (size_t at = path.rfind("engine/"); at != std::string_view::npos;
       at = at == 0 ? std::string_view::npos : path.rfind("engine/", at - 1)) {
    if (at == 0 || path[at - 1] == '/') return path.substr(at + 7);
  }
  return path;
}

}  // namespace onyx
