// Planning step 2, place (plan_place.h).
#include "exec/plan_place.h"

#include <algorithm>
#include <climits>

#include "catalog/op_registry.h"
#include "exec/plan_context.h"

namespace onyx::exec {

namespace {

std::string countText(int count, const char* what) {
  return std::to_string(count) + " " + what + (count == 1 ? "" : "s");
}

// What the node itself gets wrong, said before "no backend supports it" would hide it: no op type, a domain
// the model never imports, an op newer than the model's opset, more inputs or outputs than the op has (a
// Relu given two inputs used to run on the first and ignore the second).
Expected<void> checkNodeSchema(const Node& node, int opset) {
  if (node.opType().empty()) return makeError("the node has an empty op_type, so it names no operator", node.describe());
  if (opset == 0)
    return makeError("the model imports no opset of domain '" + node.domain() + "' (opset_import), so " +
                         node.opType() + " names no operator it knows",
                     node.describe());
  const OpSchema* schema = opRegistry().find(node.domain(), node.opType());
  if (!schema) return {};
  if (schema->versionFor(opset) == 0 && !schema->sinceVersions.empty())
    return makeError(node.opType() + " does not exist at opset " + std::to_string(opset) + "; it came in opset " +
                         std::to_string(schema->sinceVersions.front()),
                     node.describe());
  auto limit = [](int count) { return count >= OpSchema::kVariadic ? INT32_MAX : count; };
  int inputs = int(node.inputCount()), outputs = int(node.outputCount());
  if (inputs > limit(schema->maxInputs))
    return makeError(node.opType() + " takes at most " + countText(schema->maxInputs, "input") + ", the node gives " +
                         std::to_string(inputs),
                     node.describe());
  if (outputs > limit(schema->maxOutputs))
    return makeError(node.opType() + " has at most " + countText(schema->maxOutputs, "output") + ", the node names " +
                         std::to_string(outputs),
                     node.describe());
  return {};
}

}  // namespace

Expected<void> prepareOnFirstBackend(Step& step, const std::vector<Backend*>& backends,
                                     const std::vector<const onyx::Tensor*>& constants) {
  const Node& node = *step.node;
  if (auto checked = checkNodeSchema(node, step.opset); !checked) return checked.error();
  Error lastError = makeError("no backend supports " + node.opType() + " at opset " +
                                  std::to_string(step.opset) + "; the op is not supported yet",
                              node.describe());
  NodeShapes shapes;
  for (Backend* backend : backends) {
    if (!backend->supports(node, step.opset)) continue;
    auto prepared = backend->prepare(node, step.opset, shapes, constants);
    if (!prepared) {
      lastError = prepared.error();
      continue;
    }
    step.backend = backend;
    step.prepared = std::move(*prepared);
    return {};
  }
  return lastError;
}

bool anyBackendSupports(const std::vector<Backend*>& backends, const Node& node, int opset) {
  return std::any_of(backends.begin(), backends.end(),
                     [&](const Backend* backend) { return backend->supports(node, opset); });
}

int Transfers::placeOn(int slot, Backend* target) {
  location_.resize(plan_.slotValue.size(), nullptr);
  Backend* where = location_[size_t(slot)];
  Backend* want = target && !target->usesHostMemory() ? target : nullptr;
  if (where == want) return slot;
  auto key = std::make_pair(slot, want);
  if (auto it = transferred_.find(key); it != transferred_.end()) return it->second;
  Step t;
  t.backend = want ? want : where;
  t.toHost = want == nullptr;
  t.inputs = {slot};
  int temp = plan_.addSlot(nullptr);
  // A constant or shape-arithmetic value moves once; its copy is kept as the value is (Fold).
  if (plan_.isConstant[size_t(slot)] && !plan_.isInputSlot(slot)) {
    t.fold = Fold::Constant;
    plan_.isConstant[size_t(temp)] = true;
  } else if (plan_.isShapeDerived[size_t(slot)]) {
    t.fold = Fold::Shape;
    plan_.isShapeDerived[size_t(temp)] = true;
  }
  location_.resize(plan_.slotValue.size(), nullptr);
  location_[size_t(temp)] = want;
  t.outputs = {temp};
  plan_.steps.push_back(std::move(t));
  plan_.transfers++;
  transferred_[key] = temp;
  return temp;
}

void Transfers::placeInputs(Step& step) {
  const std::vector<int>& hostInputs = step.prepared->hostInputs();
  // Shape and Size read only dims, which a device tensor carries on the host: its data stays where it is.
  const bool dimsOnly = step.node && step.backend->usesHostMemory() && isOnnxDomain(*step.node) &&
                        (step.node->opType() == "Shape" || step.node->opType() == "Size");
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    int& slot = step.inputs[i];
    if (dimsOnly && i == 0) continue;
    bool onHost = std::find(hostInputs.begin(), hostInputs.end(), int(i)) != hostInputs.end();
    if (slot >= 0) slot = placeOn(slot, onHost ? nullptr : step.backend);
  }
}

void Transfers::producedBy(const Step& step) {
  location_.resize(plan_.slotValue.size(), nullptr);
  for (int slot : step.outputs)
    if (slot >= 0) location_[size_t(slot)] = step.backend->usesHostMemory() ? nullptr : step.backend;
}

}  // namespace onyx::exec
