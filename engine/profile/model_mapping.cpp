#include <unordered_map>
#include <unordered_set>

#include "ir/model.h"
#include "ir/module_path.h"
#include "profile/profile.h"

namespace onyx::profile {

namespace {
// ONNX Runtime renames the nodes it rewrites. Seen on the shared models (onnxruntime-node 1.30, level "all"):
// "/relu/Relu_output_0_nchwc" (NCHWc layout: named after the output value), "fused /pool/Gemm" (Gemm +
// activation), "/layers.1/attn/MatMul/MatMulScaleFusion/" (a fusion named after its first node), and
// "<op>_token_<k>" for nodes it created. The candidates below undo those renamings in turn.
std::vector<std::string> candidateNames(std::string_view name) {
  std::vector<std::string> out{std::string(name)};
  if (name.starts_with("fused ")) out.emplace_back(name.substr(6));
  if (name.size() > 1 && name.ends_with('/')) {
    std::string_view trimmed = name.substr(0, name.size() - 1);
    size_t slash = trimmed.rfind('/');
    if (slash != std::string_view::npos && slash > 0) out.emplace_back(trimmed.substr(0, slash));
  }
  if (name.ends_with("_nchwc")) out.emplace_back(name.substr(0, name.size() - 6));
  size_t token = name.rfind("_token_");
  if (token != std::string_view::npos) out.emplace_back(name.substr(0, token));
  return out;
}
bool runtimeInserted(const exec::ProfileEvent& event) {
  static constexpr std::string_view kInsertedOps[] = {"ReorderInput", "ReorderOutput", "MemcpyFromHost",
                                                      "MemcpyToHost"};
  for (std::string_view op : kInsertedOps)
    if (event.opType == op) return true;
  return event.name.find("_token_") != std::string::npos;
}
}  // namespace

MappingStats mapOntoModel(Profile& profile, const Model& model) {
  const Graph& graph = model.graph();
  std::unordered_map<std::string_view, const Node*> byName;
  std::unordered_map<NodeId, const Node*> byId;
  for (const Node* node : graph.nodes()) {
    if (!node->name().empty()) byName.emplace(node->name(), node);
    byId.emplace(node->id(), node);
  }
  MappingStats stats;
  std::unordered_set<std::string> unmappedSeen;
  profile.mapped.assign(profile.events.size(), false);
  for (size_t i = 0; i < profile.events.size(); ++i) {
    exec::ProfileEvent& event = profile.events[i];
    if (event.depth > 0) continue;  // body events are mapped through their control-flow node
    ++stats.events;
    const Node* node = nullptr;
    if (!event.name.empty()) {
      for (const std::string& candidate : candidateNames(event.name)) {
        auto found = byName.find(candidate);
        if (found != byName.end()) {
          node = found->second;
        } else if (const Value* value = graph.findValue(candidate)) {
          node = value->producer();
        }
        if (node) break;
      }
    }
    if (!node && profile.format == TraceFormat::Onyx && event.node != kNoNode) {
      auto found = byId.find(event.node);
      // An id alone could name a different node of another model: require the op type to agree.
      if (found != byId.end() && found->second->opType() == event.opType) node = found->second;
    }
    if (!node) {
      event.node = kNoNode;
      if (profile.format == TraceFormat::OnnxRuntime && runtimeInserted(event)) ++stats.runtimeInserted;
      std::string label = event.name.empty() ? event.opType : event.name;
      if (unmappedSeen.insert(label).second) stats.unmappedNames.push_back(label);
      continue;
    }
    event.node = node->id();
    // Views and summaries key on the graph's names; ORT's renamed event names would split scopes.
    if (!node->name().empty()) event.name = node->name();
    if (event.opType.empty()) event.opType = node->opType();
    profile.mapped[i] = true;
    ++stats.mapped;
  }
  assignScopes(profile, model);
  return stats;
}

void assignScopes(Profile& profile, const Model& model) {
  const Graph& graph = model.graph();
  for (exec::ProfileEvent& event : profile.events) {
    if (event.depth > 0 || event.node == kNoNode) continue;  // body nodes keep their names' scopes
    if (const Node* node = graph.findNode(event.node); node && node->opType() == event.opType)
      event.scope = scopePathOf(*node);
  }
}

}  // namespace onyx::profile
