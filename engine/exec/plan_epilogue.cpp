// Planning step 4, fuse epilogues (plan_epilogue.h).
#include "exec/plan_epilogue.h"

#include <algorithm>
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
  std::vector<const onyx::Value*> values;  // value k of the chain (0: the producer's output 0)
  std::vector<int> extraSlots;             // operands appended to the step's inputs
};

// The chain with `group` appended, or nullopt when a member reads a value computed later in the schedule
// (it cannot be read at the producer's step).
std::optional<Chain> extended(const Chain& chain, const std::vector<const Node*>& group, GraphPlan& plan,
                              const PlanContext& context) {
  Chain next = chain;
  for (const Node* member : group) {
    EpilogueOp op;
    op.node = member;
    op.opset = context.opsetFor(member->domain());
    for (const onyx::Value* in : member->inputs()) {
      const onyx::Tensor* constant = constantOf(in);
      op.constants.push_back(constant);
      auto at = std::find(next.values.begin(), next.values.end(), in);
      if (!in || in->name().empty() || constant) {
        op.inputs.push_back(-1);
      } else if (at != next.values.end()) {
        op.inputs.push_back(kChainValue - int(at - next.values.begin()));
      } else {
        int slot = plan.slotFor(in);
        if (slot < 0) return std::nullopt;
        op.inputs.push_back(int(next.extraSlots.size()));
        next.extraSlots.push_back(slot);
      }
    }
    next.values.push_back(member->output(0));
    next.ops.push_back(std::move(op));
  }
  return next;
}

// The accepted chain as the step's epilogue: each node prepared where the step's values live (the host
// fallback, or the step's device, whose kernel accepted only nodes that device runs), with frame slots.
Expected<void> adoptChain(Step& step, const Chain& chain, GraphPlan& plan, const PlanContext& context,
                          Transfers& transfers, std::unordered_set<const Node*>& absorbed) {
  Backend& owner = step.backend->usesHostMemory() ? context.fallback() : *step.backend;
  for (const EpilogueOp& op : chain.ops) {
    EpilogueStep ep;
    ep.node = op.node;
    ep.opset = op.opset;
    auto prepared = owner.prepare(*op.node, op.opset, NodeShapes{}, op.constants);
    if (!prepared) return prepared.error();
    ep.prepared = std::move(*prepared);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const onyx::Value* in = op.node->input(i);
      int ref = op.inputs[i];
      ep.inputs.push_back(ref <= kChainValue          ? ref
                          : ref >= 0                  ? chain.extraSlots[size_t(ref)]
                          : in && !in->name().empty() ? plan.slotFor(in)
                                                      : -1);
    }
    step.fusedOps += "+" + op.node->opType();
    step.epilogue.push_back(std::move(ep));
    absorbed.insert(op.node);
  }
  step.ownInputs = step.inputs.size();
  for (int slot : chain.extraSlots) step.inputs.push_back(transfers.placeOn(slot, step.backend));
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
    if (group.empty()) break;
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
