// Planning step 4, fuse epilogues (plan_epilogue.h).
#include "exec/plan_epilogue.h"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onyx::exec {

namespace {

// The nodes that would extend a chain ending in `last`: its only reader, or the SiLU pair, or GELU's five.
std::vector<const Node*> nextGroup(const onyx::Value* last, const ValueFacts& facts) {
  if (const Node* user = facts.onlyUser(last)) return {user};
  if (last->uses().size() != 2 || facts.pinned(last)) return {};
  const Node* a = last->uses()[0].node;  // SiLU: x * Sigmoid(x)
  const Node* b = last->uses()[1].node;
  if (a && b && b->opType() == "Sigmoid") std::swap(a, b);
  if (a && b && a->opType() == "Sigmoid" && b->opType() == "Mul" && facts.onlyUser(a->output(0)) == b)
    return {a, b};
  // GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2))) in five nodes.
  if (a && b && b->opType() == "Div") std::swap(a, b);
  if (a && b && a->opType() == "Div" && b->opType() == "Mul") {
    const Node* erf = facts.onlyUser(a->output(0));
    const Node* plusOne = erf && erf->opType() == "Erf" ? facts.onlyUser(erf->output(0)) : nullptr;
    const Node* times = plusOne && plusOne->opType() == "Add" ? facts.onlyUser(plusOne->output(0)) : nullptr;
    const Node* half = times == b ? facts.onlyUser(b->output(0)) : nullptr;
    if (half && half->opType() == "Mul") return {a, erf, plusOne, b, half};
  }
  return {};
}

// The epilogue grown one group at a time while the kernel accepts it.
struct Chain {
  std::vector<EpilogueOp> ops;
  // Per op, per input: the graph value it reads (a fused call's argument for its body's parameters; null
  // for a value computed inside the body).
  std::vector<std::vector<const onyx::Value*>> reads;
  std::vector<const Node*> origins;  // per op: the graph node it comes from (itself, or a fused call)
  std::vector<const onyx::Value*> values;  // value k of the chain (0: the producer's output 0)
  std::vector<int> extraSlots;             // operands appended to the step's inputs
  std::vector<const Node*> members;        // the graph's nodes the chain absorbs
};

// The element-wise body of a call of an onyx.fused function (what elementwise-fusion writes): its nodes join
// the chain one by one, so a kernel fuses them as it would the nodes the pass merged. Null for other nodes.
const Graph* fusedBodyOf(const Node& node, const PlanContext& context) {
  if (node.domain() != "onyx.fused" || node.outputCount() != 1) return nullptr;
  const Function* function = context.model.findFunction(node.domain(), node.opType(), node.overload());
  if (!function || !function->body || function->body->inputs().size() != node.inputCount() ||
      function->body->outputs().size() != 1)
    return nullptr;
  return function->body.get();
}

// Appends `node` reading the graph values `reads` (null: a value of the chain computed inside a fused body,
// `inside` naming it); false when an operand is computed later in the schedule (it cannot be read at the
// producer's step) or a body value is not on the chain.
bool appendOp(Chain& next, const Node& node, const std::vector<const onyx::Value*>& reads,
              const std::vector<const onyx::Value*>& inside, GraphPlan& plan, const PlanContext& context) {
  EpilogueOp op;
  op.node = &node;
  op.opset = context.opsetFor(node.domain());
  for (size_t i = 0; i < reads.size(); ++i) {
    const onyx::Value* in = reads[i] ? reads[i] : inside[i];
    const onyx::Tensor* constant = reads[i] ? constantOf(in) : nullptr;
    op.constants.push_back(constant);
    auto at = std::find(next.values.begin(), next.values.end(), in);
    if (!in || (reads[i] && (in->name().empty() || constant))) {
      op.inputs.push_back(-1);
    } else if (at != next.values.end()) {
      op.inputs.push_back(kChainValue - int(at - next.values.begin()));
    } else {
      int slot = reads[i] ? plan.slotFor(in) : -1;
      if (slot < 0) return false;
      op.inputs.push_back(int(next.extraSlots.size()));
      next.extraSlots.push_back(slot);
    }
  }
  next.values.push_back(node.output(0));
  next.ops.push_back(std::move(op));
  next.reads.push_back(reads);
  next.origins.push_back(next.members.back());
  return true;
}

// A fused call's body nodes appended in order, its parameters read as the call's arguments; the chain's
// last value is then the call's output.
bool appendFusedBody(Chain& next, const Node& call, const Graph& body, GraphPlan& plan,
                     const PlanContext& context) {
  std::unordered_map<const onyx::Value*, const onyx::Value*> argumentOf;
  for (size_t i = 0; i < body.inputs().size(); ++i) argumentOf[body.inputs()[i]] = call.input(i);
  for (const Node* node : body.nodes()) {
    if (node->outputCount() != 1) return false;
    std::vector<const onyx::Value*> reads, inside;
    for (const onyx::Value* in : node->inputs()) {
      auto argument = argumentOf.find(in);
      reads.push_back(argument != argumentOf.end() ? argument->second : nullptr);
      inside.push_back(argument != argumentOf.end() ? nullptr : in);
    }
    if (!appendOp(next, *node, reads, inside, plan, context)) return false;
  }
  if (next.values.back() != body.outputs()[0]) return false;  // the result is the last node's output
  next.values.back() = call.output(0);
  return true;
}

// The chain with `group` appended, or nullopt when a member reads a value computed later in the schedule.
std::optional<Chain> extended(const Chain& chain, const std::vector<const Node*>& group, GraphPlan& plan,
                              const PlanContext& context) {
  Chain next = chain;
  for (const Node* member : group) {
    next.members.push_back(member);
    if (const Graph* body = fusedBodyOf(*member, context)) {
      if (!appendFusedBody(next, *member, *body, plan, context)) return std::nullopt;
      continue;
    }
    std::vector<const onyx::Value*> reads(member->inputs().begin(), member->inputs().end());
    if (!appendOp(next, *member, reads, std::vector<const onyx::Value*>(reads.size()), plan, context))
      return std::nullopt;
  }
  return next;
}

// The accepted chain as the step's epilogue: each node prepared where the step's values live (the host
// fallback, or the step's device, whose kernel accepted only nodes that device runs), with frame slots.
Expected<void> adoptChain(Step& step, const Chain& chain, GraphPlan& plan, const PlanContext& context,
                          Transfers& transfers, std::unordered_set<const Node*>& absorbed) {
  Backend& owner = step.backend->usesHostMemory() ? context.fallback() : *step.backend;
  // The operands where the step runs. The epilogue nodes read the same copies when the kernel declines to
  // fuse them, so a device step's declined Add does not upload its operand again every run.
  std::vector<int> placed;
  for (int slot : chain.extraSlots) placed.push_back(transfers.placeOn(slot, step.backend));
  for (size_t k = 0; k < chain.ops.size(); ++k) {
    const EpilogueOp& op = chain.ops[k];
    EpilogueStep ep;
    ep.node = op.node;
    ep.graphNode = chain.origins[k];
    ep.opset = op.opset;
    auto prepared = owner.prepare(*op.node, op.opset, NodeShapes{}, op.constants);
    if (!prepared) return prepared.error();
    ep.prepared = std::move(*prepared);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const onyx::Value* in = chain.reads[k][i];
      int ref = op.inputs[i];
      ep.inputs.push_back(ref <= kChainValue          ? ref
                          : ref >= 0                  ? placed[size_t(ref)]
                          : in && !in->name().empty() ? plan.slotFor(in)
                                                      : -1);
    }
    step.fusedOps += "+" + op.node->opType();
    step.epilogue.push_back(std::move(ep));
  }
  absorbed.insert(chain.members.begin(), chain.members.end());
  step.ownInputs = step.inputs.size();
  step.inputs.insert(step.inputs.end(), placed.begin(), placed.end());
  return {};
}

}  // namespace

Expected<const onyx::Value*> fuseEpilogue(Step& step, GraphPlan& plan, const PlanContext& context,
                                          const ValueFacts& facts, Transfers& transfers,
                                          std::unordered_set<const Node*>& absorbed) {
  const Node& node = *step.node;
  Chain chain;
  chain.values = {node.output(0)};
  const onyx::Value* last = node.output(0);
  while (last) {
    std::vector<const Node*> group = nextGroup(last, facts);
    // A node an input fold took (a channel scale read by a 1 x 1 Conv) runs in that reader's step.
    if (group.empty() || std::any_of(group.begin(), group.end(), [&](const Node* n) { return absorbed.count(n) != 0; }))
      break;
    std::optional<Chain> next = extended(chain, group, plan, context);
    if (!next || !step.prepared->setEpilogue(next->ops)) break;
    chain = std::move(*next);
    last = chain.values.back();
  }
  if (chain.ops.empty()) return node.output(0);
  auto adopted = adoptChain(step, chain, plan, context, transfers, absorbed);
  if (!adopted) return adopted.error();
  return last;
}

}  // namespace onyx::exec
