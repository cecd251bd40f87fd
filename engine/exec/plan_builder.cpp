// The plan builder (plan_builder.h): runs the planning steps over a graph in order.
#include "exec/plan_builder.h"

#include <algorithm>
#include <unordered_set>

#include "exec/function_call.h"
#include "exec/lazy_table.h"
#include "exec/plan_epilogue.h"
#include "exec/plan_fold.h"
#include "exec/plan_layout.h"
#include "exec/plan_memory.h"
#include "exec/plan_place.h"
#include "exec/plan_schedule.h"
#include "ir/file_view.h"
#include "util/limits.h"

namespace onyx::exec {

namespace {

// An initializer as the kernels read it. One read only as Gather's data on the host (an embedding table) is
// not copied to be aligned, as fromConstant would: Gather copies rows as bytes. In a mapped model file
// (LoadOptions::mapWeights) it is copied out page by page as rows are gathered (exec/lazy_table.h), so
// bert_small_int4's 8 MB table costs the few hundred KB its tokens touch.
TensorValue constantValue(const onyx::Value& value, const OuterReads& bodyReads, const PlanContext& context) {
  const onyx::Tensor& tensor = *value.initializer();
  const DataType dtype = tensor.dtype();
  bool gatheredOnly = !value.uses().empty() && tensor.buffer() && dtype != DataType::String && dtype != DataType::Bool &&
                      dataTypeBits(dtype) % 8 == 0;
  for (const auto& [node, reads] : bodyReads)  // a body's nodes read it by name, not as a use
    gatheredOnly = gatheredOnly && std::find(reads.begin(), reads.end(), &value) == reads.end();
  for (const Use& use : value.uses())
    gatheredOnly = gatheredOnly && use.node && use.index == 0 && use.node->opType() == "Gather" &&
                   (use.node->domain().empty() || use.node->domain() == "ai.onnx") && context.runsOnHost(*use.node);
  auto bytes = tensor.bytesOrEmpty();
  if (!gatheredOnly || bytes.size() != size_t(tensor.elementCount()) * size_t(dataTypeBits(dtype) / 8))
    return TensorValue::fromConstant(tensor);
  if (bytes.size() >= (size_t(1) << 20) && isFileView(*tensor.buffer()))
    if (auto table = LazyTable::copyOnRead(bytes, tensor.buffer()))
      return TensorValue::view(dtype, tensor.dims(), table->data(), table);
  return TensorValue::view(dtype, tensor.dims(), const_cast<std::byte*>(bytes.data()), tensor.buffer());
}

Error notProduced(const onyx::Value& value, const Node& reader) {
  return makeError("input '" + value.name() + "' is not produced by any node, graph input or initializer",
                   reader.describe());
}

// The planning of one graph: the state the steps share while its nodes are planned one by one.
class GraphPlanning {
 public:
  GraphPlanning(PlanBuilder& builder, const Graph& graph, int depth)
      : builder_(builder),
        context_(builder.context()),
        graph_(graph),
        depth_(depth),
        plan_(std::make_unique<GraphPlan>()),
        outerReads_(outerReadsOf(graph)),
        facts_(graph, outerReads_),
        transfers_(*plan_) {}

  Expected<std::unique_ptr<GraphPlan>> run();

 private:
  Expected<void> bindGraphSlots();
  Expected<void> planNode(const Node& node);
  Expected<void> bindInputs(Step& step, std::vector<const onyx::Tensor*>& constants);
  Expected<void> bindConcatenatedParts(Step& step);
  Expected<void> prepare(Step& step, const std::vector<const onyx::Tensor*>& constants);
  Expected<void> bindOutputs(Step& step);
  Expected<void> bindGraphOutputs();

  PlanBuilder& builder_;
  const PlanContext& context_;
  const Graph& graph_;
  int depth_;
  std::unique_ptr<GraphPlan> plan_;
  OuterReads outerReads_;
  ValueFacts facts_;
  Transfers transfers_;
  InputFolds folds_;
  std::unordered_set<const Node*> absorbed_;  // folded or fused into another node's step
};

Expected<std::unique_ptr<GraphPlan>> GraphPlanning::run() {
  plan_->graph = &graph_;
  plan_->depth = depth_;
  if (auto bound = bindGraphSlots(); !bound) return bound.error();
  auto order = scheduleNodes(graph_, outerReads_);
  if (!order) return order.error();
  folds_ = findInputFolds(*order, facts_, context_);
  absorbed_ = folds_.absorbed;
  for (const Node* node : *order) {
    if (absorbed_.count(node)) continue;
    if (auto planned = planNode(*node); !planned) return planned.error();
  }
  if (auto outputs = bindGraphOutputs(); !outputs) return outputs.error();
  if (context_.channelsLast) chooseChannelsLastOutputs(*plan_, facts_.pinnedValues(), context_.channelBlocks);
  planLiveness(*plan_);
  return std::move(plan_);
}

Expected<void> GraphPlanning::bindGraphSlots() {
  for (const onyx::Value* v : graph_.inputs()) plan_->inputSlots.push_back(plan_->addSlot(v));
  for (const onyx::Value* v : graph_.initializers()) {
    // An empty initializer's other dims size kernels' scratch: the same limit as a tensor's elements.
    const onyx::Tensor& tensor = *v->initializer();
    if (tensor.elementCount() == 0)
      if (auto size = checkTensorSize(tensor.dims(), int64_t(elementBytes(tensor.dtype())),
                                      "initializer '" + v->name() + "'", v->name());
          !size)
        return size.error();
    int slot = plan_->slotOf.count(v) ? plan_->slotOf[v] : plan_->addSlot(v);
    plan_->constants.push_back({slot, constantValue(*v, outerReads_, context_)});
    plan_->isConstant[size_t(slot)] = true;
  }
  return {};
}

Expected<void> GraphPlanning::planNode(const Node& node) {
  Step step;
  step.node = &node;
  step.opset = context_.opsetOf(node);
  if (auto it = folds_.transposedInputsOf.find(&node); it != folds_.transposedInputsOf.end())
    step.transposedInputs = it->second;
  if (auto it = folds_.concatenatedInputsOf.find(&node); it != folds_.concatenatedInputsOf.end())
    step.concatenatedInputs = it->second;
  std::vector<const onyx::Tensor*> constants;
  if (auto bound = bindInputs(step, constants); !bound) return bound.error();
  if (auto parts = bindConcatenatedParts(step); !parts) return parts.error();
  for (const onyx::Value* v : outerReads_[&node]) {
    int slot = plan_->slotFor(v);
    if (slot >= 0) step.captures.push_back(slot);
  }
  if (auto bodies = builder_.planBodies(node, depth_); !bodies) return bodies.error();
  if (auto prepared = prepare(step, constants); !prepared) return prepared.error();
  transfers_.placeInputs(step);
  markConstantInputs(*plan_, step);
  if (auto outputs = bindOutputs(step); !outputs) return outputs.error();
  transfers_.producedBy(step);
  decideFold(*plan_, step, context_.foldConstants);
  plan_->steps.push_back(std::move(step));
  return {};
}

// The node's inputs (a folded Transpose's input in place of its output; -1 for a folded Concat's), and the
// initializers among them no caller can override, for the backend to prepare with.
Expected<void> GraphPlanning::bindInputs(Step& step, std::vector<const onyx::Tensor*>& constants) {
  const Node& node = *step.node;
  for (size_t i = 0; i < node.inputCount(); ++i) {
    const onyx::Value* v = node.input(i);
    if (i < step.transposedInputs.size() && step.transposedInputs[i]) v = step.transposedInputs[i]->input(0);
    const bool concatenated = i < step.concatenatedInputs.size() && step.concatenatedInputs[i];
    if (!v || v->name().empty() || concatenated) {
      step.inputs.push_back(-1);
      constants.push_back(nullptr);
      continue;
    }
    int slot = plan_->slotFor(v);
    if (slot < 0) return notProduced(*v, node);
    step.inputs.push_back(slot);
    constants.push_back(plan_->isInputSlot(slot) ? nullptr : v->initializer());
  }
  return {};
}

// A folded Concat's parts, after the node's own inputs (Step::partsBegin).
Expected<void> GraphPlanning::bindConcatenatedParts(Step& step) {
  if (step.concatenatedInputs.empty()) return {};
  step.partsBegin = step.inputs.size();
  for (const Node* concat : step.concatenatedInputs) {
    if (!concat) continue;
    for (const onyx::Value* part : concat->inputs()) {
      int slot = plan_->slotFor(part);
      if (slot < 0) return notProduced(*part, *concat);
      step.inputs.push_back(slot);
    }
  }
  return {};
}

// A call of a function no backend runs itself runs its planned body on the host fallback; any other node
// goes to the first backend that takes it.
Expected<void> GraphPlanning::prepare(Step& step, const std::vector<const onyx::Tensor*>& constants) {
  const Node& node = *step.node;
  const Function* function = context_.model.findFunction(node.domain(), node.opType(), node.overload());
  const Backend* device = nullptr;
  for (const Backend* b : context_.backends)
    if (!b->usesHostMemory() && !device) device = b;
  if (function && !anyBackendSupports(context_.backends, node, step.opset)) {
    auto prepared = builder_.prepareCall(node, *function, depth_);
    if (!prepared) return prepared.error();
    step.backend = &context_.fallback();
    step.prepared = std::move(*prepared);
    if (device) step.hostReason = "a call of function " + node.opType() + " runs its body on the host";
    return {};
  }
  if (device && context_.foldConstants && readsOnlyFoldableValues(*plan_, step)) {
    std::vector<Backend*> hosts;
    for (Backend* b : context_.backends)
      if (b->usesHostMemory()) hosts.push_back(b);
    auto prepared = prepareOnFirstBackend(step, hosts, constants);
    if (prepared) step.hostReason = "reads only constants and shapes: computed once, kept for later runs";
    if (prepared || hosts.empty()) return prepared;
  }
  auto prepared = prepareOnFirstBackend(step, context_.backends, constants);
  if (prepared && device && step.backend->usesHostMemory()) {
    step.hostReason = device->unsupportedReason(node, step.opset);
    if (step.hostReason.empty()) step.hostReason = std::string(device->name()) + " declined it";
  }
  return prepared;
}

// Output slots; output 0 is the epilogue's last value when one is fused.
Expected<void> GraphPlanning::bindOutputs(Step& step) {
  const Node& node = *step.node;
  const onyx::Value* fusedOutput = nullptr;
  if (context_.fuseEpilogues && step.backend->fusesEpilogues() && node.outputCount() > 0 && node.output(0)) {
    auto fused = fuseEpilogue(step, *plan_, context_, facts_, transfers_, absorbed_);
    if (!fused) return fused.error();
    fusedOutput = *fused;
  }
  for (size_t i = 0; i < node.outputCount(); ++i) {
    const onyx::Value* v = i == 0 && fusedOutput ? fusedOutput : node.output(i);
    step.outputs.push_back(v && !v->name().empty() ? plan_->addSlot(v) : -1);
  }
  return {};
}

Expected<void> GraphPlanning::bindGraphOutputs() {
  for (const onyx::Value* v : graph_.outputs()) {
    int slot = v ? plan_->slotFor(v) : -1;
    if (v && slot < 0) return makeError("graph output '" + v->name() + "' is never computed", graph_.name());
    plan_->outputSlots.push_back(slot >= 0 ? transfers_.placeOn(slot, nullptr) : -1);
  }
  return {};
}

}  // namespace

Expected<std::unique_ptr<GraphPlan>> PlanBuilder::build(const Graph& graph, int depth) {
  return GraphPlanning(*this, graph, depth).run();
}

Expected<void> PlanBuilder::planBodies(const Node& node, int depth) {
  for (const Graph* body : node.subgraphs()) {
    auto bodyPlan = build(*body, depth + 1);
    if (!bodyPlan) return bodyPlan.error();
    bodies_[body] = std::move(*bodyPlan);
  }
  return {};
}

Expected<std::unique_ptr<PreparedNode>> PlanBuilder::prepareCall(const Node& node, const Function& function,
                                                                 int depth) {
  constexpr int kMaxFunctionDepth = 32;
  if (depth > kMaxFunctionDepth)
    return makeError("function calls nest too deep (does a function call itself?)", node.describe());
  // Extra inputs or outputs would be dropped without a word (optional trailing ones may be left out).
  if (function.body && (node.inputCount() > function.body->inputs().size() ||
                        node.outputCount() > function.body->outputs().size()))
    return makeError("the call gives " + std::to_string(node.inputCount()) + " inputs and " +
                         std::to_string(node.outputCount()) + " outputs but function " + function.domain + "." +
                         function.name + " takes " + std::to_string(function.body->inputs().size()) + " and " +
                         std::to_string(function.body->outputs().size()),
                     node.describe());
  if (function.body && !bodies_.count(function.body.get())) {
    const std::vector<OpsetImport>* saved = context_.imports;
    context_.imports = function.opsetImports.empty() ? nullptr : &function.opsetImports;
    bodies_[function.body.get()] = nullptr;  // planned (or being planned): not again
    auto bodyPlan = build(*function.body, depth + 1);
    context_.imports = saved;
    if (!bodyPlan) {
      bodies_.erase(function.body.get());
      return bodyPlan.error();
    }
    bodies_[function.body.get()] = std::move(*bodyPlan);
  }
  return prepareFunctionCall(node, function);
}

}  // namespace onyx::exec
