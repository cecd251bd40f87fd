// GELU as exporters spell it: 0.5 * x * (1 + erf(x / sqrt(2))), and the tanh approximation
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))). Both become Gelu (approximate "none" or "tanh"),
// which exists from opset 20; older models keep the formula and the pass says why.
#include <cmath>

#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

bool near(std::optional<double> value, double expected) {
  return value && std::abs(*value - expected) <= 1e-4 * std::abs(expected);
}

// A binary `op` node reading `value` as its only use, whose other operand is a constant near `expected`.
Node* constantStep(const Value* value, std::string_view op, double expected) {
  Node* node = soleConsumer(value);
  if (!isOp(node, op)) return nullptr;
  Value* other = otherOperand(node, value);
  return other && near(constantScalar(other), expected) ? node : nullptr;
}

// x = the input of `scaled` = x / sqrt(2) or x * (1 / sqrt(2)).
Value* erfArgument(const Value* scaled) {
  Node* node = scaled->producer();
  if (isOp(node, "Div") && node->inputCount() == 2 && near(constantScalar(node->input(1)), std::sqrt(2.0)))
    return node->input(0);
  if (isOp(node, "Mul")) {
    for (int side = 0; side < 2; ++side)
      if (near(constantScalar(node->input(size_t(1 - side))), 1 / std::sqrt(2.0)))
        return node->input(size_t(side));
  }
  return nullptr;
}

// x = the input of `inner` = sqrt(2/pi) * (x + 0.044715 * x^3), with the nodes of that expression.
Value* tanhArgument(const Value* inner, std::vector<Node*>& nodes) {
  Node* scale = inner->producer();
  if (!isOp(scale, "Mul")) return nullptr;
  for (int side = 0; side < 2; ++side) {
    if (!near(constantScalar(scale->input(size_t(1 - side))), std::sqrt(2.0 / M_PI))) continue;
    Node* sum = producerOf(scale->input(size_t(side)), "Add");
    if (!sum || sum->inputCount() != 2) return nullptr;
    for (int s = 0; s < 2; ++s) {
      Node* cubicTerm = producerOf(sum->input(size_t(s)), "Mul");
      if (!cubicTerm) continue;
      for (int c = 0; c < 2; ++c) {
        if (!near(constantScalar(cubicTerm->input(size_t(1 - c))), 0.044715)) continue;
        Node* pow = producerOf(cubicTerm->input(size_t(c)), "Pow");
        if (!pow || !near(constantScalar(pow->input(1)), 3.0)) continue;
        Value* x = pow->input(0);
        if (sum->input(size_t(1 - s)) != x) continue;
        nodes = {scale, sum, cubicTerm, pow};
        return x;
      }
    }
  }
  return nullptr;
}

// From `onePlus` = 1 + erf(...) (or tanh): the node whose output is 0.5 * x * onePlus, in any of the three
// orders exporters use; the multiplications are appended to `nodes`.
Node* halfProduct(Node* onePlus, const Value* x, std::vector<Node*>& nodes) {
  Node* first = soleConsumer(onePlus->output(0));
  if (!isOp(first, "Mul")) return nullptr;
  Value* other = otherOperand(first, onePlus->output(0));
  if (other == x) {  // (x * onePlus) * 0.5
    Node* half = constantStep(first->output(0), "Mul", 0.5);
    if (half) nodes.insert(nodes.end(), {half, first});
    return half;
  }
  if (near(constantScalar(other), 0.5)) {  // x * (onePlus * 0.5)
    Node* last = soleConsumer(first->output(0));
    if (!isOp(last, "Mul") || otherOperand(last, first->output(0)) != x) return nullptr;
    nodes.insert(nodes.end(), {last, first});
    return last;
  }
  Node* halfX = other ? other->producer() : nullptr;  // (x * 0.5) * onePlus
  if (isOp(halfX, "Mul") && other->uses().size() == 1 && otherOperand(halfX, x) &&
      near(constantScalar(otherOperand(halfX, x)), 0.5)) {
    nodes.insert(nodes.end(), {first, halfX});
    return first;
  }
  return nullptr;
}

bool singleUses(const std::vector<Node*>& nodes, const Node* result) {
  for (const Node* node : nodes)
    if (node != result && node->output(0)->uses().size() != 1) return false;
  return true;
}

}  // namespace

std::span<const std::string_view> GeluFusion::rootOps() const {
  static constexpr std::string_view kOps[] = {"Erf", "Tanh"};
  return kOps;
}

PatternResult GeluFusion::matchAndRewrite(Node& core, PatternContext& context) {
  bool erf = core.opType() == "Erf";
  std::vector<Node*> argumentNodes;
  Value* x = erf ? erfArgument(core.input(0)) : tanhArgument(core.input(0), argumentNodes);
  if (!x) return PatternResult::noMatch();
  if (erf) argumentNodes = {core.input(0)->producer()};
  Node* onePlus = constantStep(core.output(0), "Add", 1.0);
  if (!onePlus) return PatternResult::noMatch();
  std::vector<Node*> nodes;
  Node* result = halfProduct(onePlus, x, nodes);
  if (!result) return PatternResult::noMatch();
  nodes.insert(nodes.end(), {onePlus, &core});
  nodes.insert(nodes.end(), argumentNodes.begin(), argumentNodes.end());
  for (const Node* node : nodes)
    if (!context.inScope(node) || node->graph() != &context.graph()) return PatternResult::noMatch();
  if (!singleUses(nodes, result))
    return PatternResult::skipped("an intermediate value of the GELU formula has other uses", result);
  int64_t opset = context.opsetVersion("");
  if (opset < 20)
    return PatternResult::skipped("Gelu needs opset 20; the model imports " + std::to_string(opset), result);
  std::vector<Attribute> attributes;
  if (!erf) attributes.push_back(Attribute::ofString("approximate", "tanh"));
  Node* gelu = context.addNode("Gelu", {x}, result->name().empty() ? "Gelu" : result->name() + "_gelu",
                               result->output(0)->name() + "_gelu", result, std::move(attributes));
  replaceNode(context.rewriter(), result, {gelu->output(0)}, nodes);
  return PatternResult::rewritten(erf ? "erf-gelus-fused" : "tanh-gelus-fused");
}

}  // namespace onyx::passes
