// PFVM's element-wise fusion: a connected group of float32 element-wise ops whose intermediate values are
// read only inside the group becomes one node calling a model-local function in domain "onyx.fused". The
// file stays valid ONNX (ONNX Runtime inlines model-local functions) and our executor evaluates the body in
// one pass over the output (exec/fused_elementwise.h). Groups with the same formula share one function.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "exec/fused_elementwise.h"
#include "ir/verify.h"
#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

constexpr std::string_view kDomain = kFusedDomain;

struct Group {
  std::vector<Node*> nodes;    // topological order, root last
  std::vector<Value*> inputs;  // external values read, first use first
};

// The formula of a group, e.g. "t0 = Sigmoid(in0); out = Mul(in0, t0)": names the function's body and tells
// whether two groups can share one function.
std::string formulaOf(const Group& group) {
  std::map<const Value*, std::string> names;
  for (size_t i = 0; i < group.inputs.size(); ++i) names[group.inputs[i]] = "in" + std::to_string(i);
  std::string formula;
  for (size_t n = 0; n < group.nodes.size(); ++n) {
    const Node* node = group.nodes[n];
    std::string result = n + 1 == group.nodes.size() ? "out" : "t" + std::to_string(n);
    std::string args;
    for (const Value* v : node->inputs()) args += (args.empty() ? "" : ", ") + (v ? names[v] : std::string());
    std::string attrs;
    for (const Attribute& a : node->attributes()) attrs += " " + a.name() + "=" + a.valueToString();
    formula += (formula.empty() ? "" : "; ") + result + " = " + node->opType() + "(" + args + ")" + attrs;
    names[node->output(0)] = result;
  }
  return formula;
}

std::shared_ptr<Function> buildFunction(Model& model, Rewriter& rw, const Group& group, std::string name,
                                        std::string formula) {
  auto function = std::make_shared<Function>();
  function->domain = kDomain;
  function->name = std::move(name);
  function->docString = std::move(formula);
  function->opsetImports = {{"", model.opsetVersion("")}};
  function->body = std::make_shared<Graph>(&model);
  Graph& body = *function->body;
  std::map<const Value*, Value*> inner;
  for (size_t i = 0; i < group.inputs.size(); ++i)
    inner[group.inputs[i]] = rw.addGraphInput(body, "in" + std::to_string(i), Type());
  for (size_t n = 0; n < group.nodes.size(); ++n) {
    const Node* node = group.nodes[n];
    std::vector<Value*> inputs;
    for (const Value* v : node->inputs()) inputs.push_back(v ? inner[v] : nullptr);
    std::string result = n + 1 == group.nodes.size() ? "out" : "t" + std::to_string(n);
    Node* copy = rw.addNode(body, {.opType = node->opType(),
                                   .name = node->opType() + "_" + std::to_string(n),
                                   .inputs = std::move(inputs),
                                   .outputNames = {result},
                                   .attributes = node->attributes()});
    inner[node->output(0)] = copy->output(0);
  }
  rw.setGraphOutputs(body, {inner[group.nodes.back()->output(0)]});
  return function;
}

class Fuser {
 public:
  Fuser(PassContext& context, Graph& graph) : context_(context), graph_(graph) {}

  bool fusible(const Node* node) {
    return node && node->graph() == &graph_ && context_.inScope(*node) && exec::isFusibleElementwise(*node) &&
           elemTypeOf(context_, node->output(0)) == DataType::Float;
  }

  // The group rooted at `root`: producers join while every use of their output is a group member (a value
  // read twice inside the group, as `a` in a * sigmoid(a), joins once both readers have). A worklist: a
  // producer is looked at again each time one of its readers joins, so it joins when its last reader does;
  // linear in the group (a fixpoint sweep over the whole order made a 10k-node chain quadratic).
  Group grow(Node* root) {
    std::unordered_set<const Node*> members = {root};
    std::vector<Node*> pending = {root};
    std::vector<Node*> joined = {root};
    while (!pending.empty()) {
      Node* node = pending.back();
      pending.pop_back();
      for (Value* v : node->inputs()) {
        Node* producer = v ? v->producer() : nullptr;
        if (!producer || members.count(producer) || taken_.count(producer) || !fusible(producer)) continue;
        bool inside = std::all_of(v->uses().begin(), v->uses().end(),
                                  [&](const Use& use) { return use.node && members.count(use.node); });
        if (!inside) continue;
        members.insert(producer);
        pending.push_back(producer);
        joined.push_back(producer);
      }
    }
    std::sort(joined.begin(), joined.end(),
              [&](const Node* a, const Node* b) { return position_.at(a) < position_.at(b); });
    Group group;
    group.nodes = std::move(joined);
    std::unordered_set<const Value*> seen;
    for (Node* node : group.nodes) {
      for (Value* v : node->inputs()) {
        if (!v || (v->producer() && members.count(v->producer())) || !seen.insert(v).second) continue;
        group.inputs.push_back(v);
      }
    }
    return group;
  }

  Expected<bool> run() {
    auto order = topologicalOrder(graph_);
    if (!order) return order.error();
    order_ = *order;
    for (size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = i;
    for (const auto& f : context_.model().functions)
      if (f->domain == kDomain && f->body) byFormula_.try_emplace(f->docString, f.get());
    bool changed = false;
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      Node* root = *it;
      if (taken_.count(root) || !exec::isFusibleElementwise(*root) || !context_.inScope(*root)) continue;
      if (elemTypeOf(context_, root->output(0)) != DataType::Float) continue;
      Group group = grow(root);
      for (Node* node : group.nodes) taken_.insert(node);
      if (group.nodes.size() < 2) continue;
      if (context_.model().irVersion < 8) {
        context_.skip(*root, "model-local functions need IR version 8; the model has " +
                                 std::to_string(context_.model().irVersion));
        continue;
      }
      std::string formula = formulaOf(group);
      const Function* function = findByFormula(formula);
      if (!function && graph_.parent()) {
        // A new function's body holds as many nodes as the group: in a body, where a formula rarely
        // repeats, that would make the model larger. Bodies reuse the main graph's functions only.
        context_.skip(*root, "no fused function of the main graph has this formula (" + formula + ")");
        continue;
      }
      if (!context_.mayRewrite()) {
        context_.noteStoppedAtLimit();
        break;
      }
      context_.beginRewrite(*root);
      fuse(root, group, formula, function);
      context_.endRewrite(true);
      changed = true;
    }
    return changed;
  }

 private:
  // Replaces the group by one call of `function`, made from the group when null.
  void fuse(Node* root, const Group& group, const std::string& formula, const Function* function) {
    Rewriter& rw = context_.rewriter();
    Model& model = context_.model();
    if (!function) {
      auto made = buildFunction(model, rw, group, functionName(group), formula);
      rw.addFunction(made);
      function = made.get();
      byFormula_.try_emplace(formula, function);
      if (model.opsetVersion(kDomain) == 0) rw.setOpsetImport(std::string(kDomain), 1);
      context_.count("functions-created");
    }
    Value* result = root->output(0);
    std::string name = root->name().empty() ? function->name : root->name() + "_fused";
    Node* call = rw.addNode(graph_,
                            {.opType = function->name,
                             .domain = std::string(kDomain),
                             .name = freshNodeName(graph_, name),
                             .inputs = group.inputs,
                             .outputNames = {freshValueName(graph_, result->name() + "_fused")}},
                            root);
    if (!result->type().isNone()) rw.setType(call->output(0), result->type());
    std::vector<Node*> dead(group.nodes.rbegin(), group.nodes.rend());
    replaceNode(rw, root, {call->output(0)}, dead);
    context_.count("groups-fused");
    context_.count("nodes-fused", int64_t(group.nodes.size()));
  }

  // The first function of the model with this formula (a map: one scan of the functions per graph, not one
  // per group).
  const Function* findByFormula(const std::string& formula) const {
    auto found = byFormula_.find(formula);
    return found == byFormula_.end() ? nullptr : found->second;
  }

  std::string functionName(const Group& group) const {
    std::string base = "Fused";
    for (const Node* node : group.nodes) base += "_" + node->opType();
    std::string name = base;
    for (int suffix = 2; context_.model().findFunction(kDomain, name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    return name;
  }

  PassContext& context_;
  Graph& graph_;
  std::vector<Node*> order_;
  std::unordered_map<const Node*, size_t> position_;  // in order_
  std::unordered_map<std::string, const Function*> byFormula_;
  std::unordered_set<const Node*> taken_;
};

}  // namespace

// The main graph, then If/Loop/Scan bodies (a call in a body runs like one in the main graph), which reuse
// the main graph's functions. Not function bodies: inference keeps no types there, and only float32 groups
// fuse.
Expected<bool> ElementwiseFusion::run(PassContext& context) {
  bool changed = false;
  for (Graph* graph : allGraphs(context.model())) {
    auto fused = Fuser(context, *graph).run();
    if (!fused) return fused.error();
    changed = *fused || changed;
  }
  return changed;
}

}  // namespace onyx::passes
