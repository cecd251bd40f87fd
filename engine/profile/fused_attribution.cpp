#include "profile/fused_attribution.h"

#include <map>
#include <unordered_map>

#include "ir/model.h"

namespace onyx::profile {

int64_t elementwiseFlopsPerElement(std::string_view opType) {
  static const std::unordered_map<std::string_view, int64_t> composite = {{"Sigmoid", 4},
                                                                          {"HardSigmoid", 3},
                                                                          {"HardSwish", 4},
                                                                          {"Softplus", 3},
                                                                          {"Softsign", 3},
                                                                          {"Elu", 3},
                                                                          {"Selu", 4},
                                                                          {"Celu", 4},
                                                                          {"Gelu", 8},
                                                                          {"Mish", 6},
                                                                          {"ThresholdedRelu", 1},
                                                                          {"LeakyRelu", 2},
                                                                          {"PRelu", 2},
                                                                          {"Clip", 2},
                                                                          {"Where", 1},
                                                                          {"Tanh", 5},
                                                                          {"Erf", 5},
                                                                          {"Pow", 4},
                                                                          {"Reciprocal", 1}};
  auto found = composite.find(opType);
  return found == composite.end() ? 1 : found->second;
}

namespace {
int64_t staticElements(const Value* value) {
  if (!value || !value->type().isTensor() || !value->type().shape()) return 0;
  int64_t n = 1;
  for (const Dim& d : *value->type().shape()) {
    auto v = d.value();
    if (!v) return 0;
    n *= *v;
  }
  return n;
}
}  // namespace

std::vector<AttributedTime> attributeFusedTime(const Profile& profile, const Model& model) {
  struct Measured {
    int64_t totalNs = 0;
    int64_t count = 0;
  };
  std::map<NodeId, Measured> fused;  // by node id: rows come out in graph-id order, deterministically
  const Graph& graph = model.graph();
  for (const exec::ProfileEvent& e : profile.events) {
    if (e.depth > 0 || e.node == kNoNode) continue;
    const Node* node = graph.findNode(e.node);
    if (!node || node->domain() != kFusedDomain) continue;
    Measured& m = fused[e.node];
    m.totalNs += e.durationNs;
    m.count++;
  }
  std::vector<AttributedTime> rows;
  for (const auto& [id, measured] : fused) {
    const Node* node = graph.findNode(id);
    const Function* function = model.findFunction(node->domain(), node->opType(), node->overload());
    if (!function || !function->body) continue;
    int64_t elements = staticElements(node->output(0));
    std::vector<AttributedTime> body;
    int64_t weightSum = 0;
    for (const Node* inner : function->body->nodes()) {
      AttributedTime row;
      row.fusedNode = id;
      row.fusedName = node->name();
      row.function = std::string(kFusedDomain) + "." + node->opType();
      row.bodyNode = inner->name();
      row.opType = inner->opType();
      row.flops = elementwiseFlopsPerElement(inner->opType());  // per element until scaled below
      row.count = measured.count;
      weightSum += row.flops;
      body.push_back(std::move(row));
    }
    int64_t assigned = 0;
    for (size_t k = 0; k < body.size(); ++k) {
      AttributedTime& row = body[k];
      row.share = weightSum ? double(row.flops) / double(weightSum) : 0;
      // The last row takes the rounding remainder, so the rows add up to the measured time exactly.
      row.totalNs =
          k + 1 == body.size() ? measured.totalNs - assigned : int64_t(double(measured.totalNs) * row.share);
      assigned += row.totalNs;
      row.flops *= elements;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace onyx::profile
