#include "ir/verify.h"

#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace onyx {
namespace {

class Verifier {
 public:
  explicit Verifier(std::vector<Diagnostic>& out) : out_(out) {}

  void graph(const Graph& graph, const std::string& where) {
    std::unordered_map<std::string_view, std::vector<std::string>> definers;
    for (Value* input : graph.inputs()) definers[input->name()].push_back("graph input");
    for (Value* init : graph.initializers())
      if (!init->isGraphInput()) definers[init->name()].push_back("initializer");
    for (Node* node : graph.nodes()) {
      for (Value* input : node->inputs())
        if (input && input->isUndefined())
          error("input '" + input->name() + "' of " + node->describe() +
                    " is not produced by any node, graph input or initializer",
                node->id(), where);
      for (size_t i = 0; i < node->outputCount(); ++i)
        if (Value* output = node->output(i)) definers[output->name()].push_back(node->describe());
      for (Graph* body : node->subgraphs())
        this->graph(*body, where + " > body '" + body->name() + "' of " + node->describe());
    }
    for (const auto& [name, who] : definers) {
      if (who.size() < 2) continue;
      std::string list;
      for (size_t i = 0; i < who.size(); ++i) list += (i ? (i + 1 == who.size() ? " and " : ", ") : "") + who[i];
      error("value '" + std::string(name) + "' is defined " + std::to_string(who.size()) + " times, by " + list +
                "; each value name must be produced once",
            kNoNode, where);
    }
    for (Value* output : graph.outputs())
      if (output->isUndefined())
        error("graph output '" + output->name() + "' is not produced by any node, input or initializer", kNoNode,
              where);
    for (Value* init : graph.initializers()) initializerType(*init, where);
    auto order = topologicalOrder(graph);
    if (!order) error(order.error().message, kNoNode, where + (order.error().where.empty() ? "" : ", " + order.error().where));
    else if (!sameOrder(graph, *order))
      out_.push_back({Diagnostic::Severity::Warning, "nodes are not stored in topological order", kNoNode, where});
  }

 private:
  void initializerType(const Value& value, const std::string& where) {
    const Tensor* tensor = value.initializer();
    const Type& type = value.type();
    if (!type.isTensor()) return;
    if (type.elemType() != tensor->dtype())
      error("initializer '" + value.name() + "' holds " + std::string(dataTypeName(tensor->dtype())) +
                " but is declared " + std::string(dataTypeName(type.elemType())),
            kNoNode, where);
    if (type.shape()) {
      const Shape& shape = *type.shape();
      bool mismatch = shape.size() != tensor->dims().size();
      for (size_t i = 0; !mismatch && i < shape.size(); ++i)
        if (auto dim = shape[i].value()) mismatch = *dim != tensor->dims()[i];
      if (mismatch) {
        std::string dims = "[";
        for (size_t i = 0; i < tensor->dims().size(); ++i) dims += (i ? ", " : "") + std::to_string(tensor->dims()[i]);
        error("initializer '" + value.name() + "' has shape " + dims + "] but is declared " +
                  shapeToString(shape),
              kNoNode, where);
      }
    }
  }

  static bool sameOrder(const Graph& graph, const std::vector<Node*>& order) {
    size_t i = 0;
    for (Node* node : graph.nodes())
      if (order[i++] != node) return false;
    return true;
  }

  void error(std::string message, NodeId node, std::string where) {
    out_.push_back({Diagnostic::Severity::Error, std::move(message), node, std::move(where)});
  }

  std::vector<Diagnostic>& out_;
};

}  // namespace

Expected<std::vector<Node*>> topologicalOrder(const Graph& graph) {
  std::unordered_map<Node*, size_t> pending;  // producers in this graph not yet placed
  std::unordered_map<Node*, size_t> rank;
  size_t index = 0;
  for (Node* node : graph.nodes()) rank[node] = index++;
  auto producersOf = [&graph](Node* node) {
    std::vector<Node*> producers;
    auto visit = [&](Value* input) {
      if (input && input->producer() && input->producer()->graph() == &graph) producers.push_back(input->producer());
    };
    for (Value* input : node->inputs()) visit(input);
    // Bodies read outer values too: their producers must run before this node.
    std::vector<Graph*> bodies = node->subgraphs();
    while (!bodies.empty()) {
      Graph* body = bodies.back();
      bodies.pop_back();
      for (Node* inner : body->nodes()) {
        for (Value* input : inner->inputs()) visit(input);
        for (Graph* deeper : inner->subgraphs()) bodies.push_back(deeper);
      }
      for (Value* output : body->outputs()) visit(output);
    }
    return producers;
  };
  std::unordered_map<Node*, std::vector<Node*>> consumers;
  for (Node* node : graph.nodes()) {
    auto producers = producersOf(node);
    pending[node] = producers.size();
    for (Node* producer : producers) consumers[producer].push_back(node);
  }
  auto later = [&rank](Node* a, Node* b) { return rank[a] > rank[b]; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  for (Node* node : graph.nodes())
    if (pending[node] == 0) ready.push(node);
  std::vector<Node*> order;
  order.reserve(graph.nodeCount());
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    order.push_back(node);
    for (Node* consumer : consumers[node])
      if (--pending[consumer] == 0) ready.push(consumer);
  }
  if (order.size() == graph.nodeCount()) return order;
  // Walk back from a stuck node through stuck producers until a node repeats: that loop is the cycle.
  Node* start = nullptr;
  for (Node* node : graph.nodes())
    if (pending[node] > 0) {
      start = node;
      break;
    }
  std::vector<Node*> path;
  std::unordered_map<Node*, size_t> seen;
  Node* current = start;
  while (!seen.count(current)) {
    seen[current] = path.size();
    path.push_back(current);
    for (Node* producer : producersOf(current))
      if (pending[producer] > 0) {
        current = producer;
        break;
      }
  }
  std::string cycle;
  for (size_t i = seen[current]; i < path.size(); ++i) cycle += path[i]->describe() + " <- ";
  cycle += current->describe();
  return makeError("the graph has a cycle: " + cycle + "; a value cannot depend on itself",
                   "node " + current->describe());
}

std::vector<Diagnostic> verify(const Model& model) {
  std::vector<Diagnostic> out;
  Verifier verifier(out);
  verifier.graph(model.graph(), "graph '" + model.graph().name() + "'");
  for (const auto& function : model.functions)
    verifier.graph(*function->body, "function '" + function->domain + "." + function->name + "'");
  return out;
}

}  // namespace onyx
