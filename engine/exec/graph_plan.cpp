// The small rules of the plan's data: slots and what a step's inputs stand for (graph_plan.h).
#include "exec/graph_plan.h"

#include <algorithm>

namespace onyx::exec {

size_t Step::kernelInput(size_t i) const {
  if (i >= ownInputs) return kEpilogueOperands;
  if (i < partsBegin) return i;
  size_t part = i - partsBegin;
  for (size_t k = 0; k < concatenatedInputs.size(); ++k) {
    if (!concatenatedInputs[k]) continue;
    if (part < concatenatedInputs[k]->inputCount()) return k;
    part -= concatenatedInputs[k]->inputCount();
  }
  return kEpilogueOperands;
}

int GraphPlan::addSlot(const onyx::Value* value) {
  int slot = int(slotValue.size());
  slotValue.push_back(value);
  if (value) slotOf[value] = slot;
  isConstant.push_back(false);
  isShapeDerived.push_back(false);
  return slot;
}

int GraphPlan::slotFor(const onyx::Value* value) {
  auto it = slotOf.find(value);
  if (it != slotOf.end()) return it->second;
  if (value->graph() != graph) {  // from an enclosing scope
    int slot = addSlot(value);
    captured.push_back({value, slot});
    return slot;
  }
  return -1;
}

bool GraphPlan::isInputSlot(int slot) const {
  return std::find(inputSlots.begin(), inputSlots.end(), slot) != inputSlots.end();
}

}  // namespace onyx::exec
