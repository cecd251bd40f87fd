// The planning steps' shared inputs (plan_context.h): opset lookup, which backend would run a node, the
// values read by bodies, pinned values and single readers.
#include "exec/plan_context.h"

namespace onyx::exec {

int PlanContext::opsetFor(const std::string& domain) const {
  if (imports) {
    for (const OpsetImport& o : *imports) {
      bool standard = (o.domain.empty() || o.domain == "ai.onnx") && (domain.empty() || domain == "ai.onnx");
      if (o.domain == domain || standard) return int(o.version);
    }
  }
  return int(model.opsetVersion(domain));
}

int PlanContext::opsetOf(const Node& node) const {
  int opset = opsetFor(node.domain());
  return opset == 0 && isOnnxDomain(node) ? 1 : opset;
}

bool PlanContext::runsOnHost(const Node& node) const {
  for (Backend* backend : backends)
    if (backend->supports(node, opsetFor(node.domain()))) return backend->usesHostMemory();
  return false;
}

namespace {

// Every value a body graph (and its nested bodies) reads from enclosing scopes.
void collectOuterRefs(const Graph& body, std::vector<const onyx::Value*>& out,
                      std::unordered_set<const onyx::Value*>& seen) {
  auto consider = [&](const onyx::Value* v) {
    if (!v || v->name().empty() || v->graph() == &body) return;
    if (seen.insert(v).second) out.push_back(v);
  };
  for (const Node* node : body.nodes()) {
    for (const onyx::Value* v : node->inputs()) consider(v);
    for (const Graph* nested : node->subgraphs()) {
      std::vector<const onyx::Value*> inner;
      std::unordered_set<const onyx::Value*> innerSeen;
      collectOuterRefs(*nested, inner, innerSeen);
      for (const onyx::Value* v : inner) consider(v);
    }
  }
  for (const onyx::Value* v : body.outputs()) consider(v);
}

}  // namespace

OuterReads outerReadsOf(const Graph& graph) {
  OuterReads reads;
  for (const Node* node : graph.nodes()) {
    std::vector<const onyx::Value*> refs;
    std::unordered_set<const onyx::Value*> seen;
    for (const Graph* body : node->subgraphs()) collectOuterRefs(*body, refs, seen);
    reads[node] = std::move(refs);
  }
  return reads;
}

ValueFacts::ValueFacts(const Graph& graph, const OuterReads& outerReads) : graph_(graph) {
  for (const onyx::Value* v : graph.outputs()) pinned_.insert(v);
  for (const auto& [node, refs] : outerReads) pinned_.insert(refs.begin(), refs.end());
}

const Node* ValueFacts::onlyUser(const onyx::Value* v) const {
  if (!v || v->name().empty() || pinned_.count(v) || v->uses().size() != 1) return nullptr;
  const Node* user = v->uses()[0].node;
  return user && user->graph() == &graph_ && user->outputCount() == 1 && user->subgraphs().empty() ? user
                                                                                                   : nullptr;
}

const onyx::Tensor* constantOf(const onyx::Value* v) {
  if (!v) return nullptr;
  if (v->initializer()) return v->initializer();
  const Node* producer = v->producer();
  if (!producer || producer->opType() != "Constant" || !producer->domain().empty()) return nullptr;
  const Attribute* value = producer->attribute("value");
  return value ? value->getTensor() : nullptr;
}

bool isOnnxDomain(const Node& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

}  // namespace onyx::exec
