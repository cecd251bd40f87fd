#pragma once
// Planning step 2, place: which backend runs each node (the first, in preference order, that supports and
// prepares it; the host fallback is last), and the transfers that copy a value into the memory of the
// backend reading it. Values live in the memory of the backend that produced them; one transfer per value and
// memory, shared by every reader there.
#include <map>
#include <utility>
#include <vector>

#include "exec/graph_plan.h"

namespace onyx::exec {

// Sets step.backend and step.prepared. The error is the last backend's reason to decline, or that no backend
// supports the node.
Expected<void> prepareOnFirstBackend(Step& step, const std::vector<Backend*>& backends,
                                     const std::vector<const onyx::Tensor*>& constants);

// Whether any backend runs `node` itself (for a call of a model-local function: else its body is planned).
bool anyBackendSupports(const std::vector<Backend*>& backends, const Node& node, int opset);

class Transfers {
 public:
  explicit Transfers(GraphPlan& plan) : plan_(plan) {}
  // The slot holding `slot`'s value in the memory `target` reads (host memory when target is null or a host
  // backend): `slot` itself when it is there, else the output of a transfer step appended to the plan.
  int placeOn(int slot, Backend* target);
  // Each of the step's inputs where its backend reads it (the prepared node's host inputs on the host).
  void placeInputs(Step& step);
  // The step's outputs are in the memory of its backend.
  void producedBy(const Step& step);

 private:
  GraphPlan& plan_;
  std::vector<Backend*> location_;  // per slot: the device backend holding it, null for host memory
  std::map<std::pair<int, Backend*>, int> transferred_;
};

}  // namespace onyx::exec
