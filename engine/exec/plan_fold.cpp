// Planning step 3, fold (plan_fold.h): the Transpose and Concat input folds and constant discovery.
#include "exec/plan_fold.h"

#include <algorithm>
#include <string>

namespace onyx::exec {

namespace {

// Transposes read only by a MatMul on the CPU: the MatMul reads the Transpose's input through the
// permutation (strided operands; BERT's head split and K^T), so the transposed copy is never written.
void foldTransposes(const std::vector<const Node*>& order, const ValueFacts& facts,
                    const PlanContext& context, InputFolds& folds) {
  for (const Node* node : order) {
    if (node->opType() != "Transpose" || !isOnnxDomain(*node) || node->inputCount() < 1 ||
        node->outputCount() != 1)
      continue;
    const onyx::Value* source = node->input(0);
    if (!source || source->name().empty() || constantOf(source)) continue;  // constant: folded once instead
    const Node* user = facts.onlyUser(node->output(0));
    if (!user || user->opType() != "MatMul" || !isOnnxDomain(*user)) continue;
    if (!context.runsOnHost(*user)) continue;
    std::vector<const Node*>& transposed = folds.transposedInputsOf[user];
    transposed.resize(user->inputCount(), nullptr);
    for (size_t i = 0; i < user->inputCount(); ++i)
      if (user->input(i) == node->output(0)) transposed[i] = node;
    folds.absorbed.insert(node);
  }
}

// Concats along channels read only by a Conv with one group or by a 2-D pooling, on the CPU: the reader
// takes the parts where they lie (the Conv runs once per part on its slice of the weights, oneDNN summing
// into the output; the pooling writes each part's channel range), so the joined copy is never written.
// SqueezeNet's fire modules end in such Concats.
void foldConcats(const std::vector<const Node*>& order, const ValueFacts& facts, const PlanContext& context,
                 InputFolds& folds) {
  for (const Node* node : order) {
    if (node->opType() != "Concat" || !isOnnxDomain(*node) || node->attrInt("axis", 0) != 1 ||
        node->inputCount() < 2 || node->outputCount() != 1)
      continue;
    bool named = true;
    for (const onyx::Value* part : node->inputs()) named = named && part && !part->name().empty();
    const Node* user = named ? facts.onlyUser(node->output(0)) : nullptr;
    if (!user || !isOnnxDomain(*user) || user->inputCount() < 1 || user->input(0) != node->output(0))
      continue;
    const std::string& op = user->opType();
    const bool pool2d = (op == "MaxPool" || op == "AveragePool") && user->attrInts("kernel_shape") &&
                        user->attrInts("kernel_shape")->size() == 2;
    if (!(op == "Conv" && user->attrInt("group", 1) == 1) && !pool2d) continue;
    if (!context.runsOnHost(*user)) continue;
    std::vector<const Node*>& concatenated = folds.concatenatedInputsOf[user];
    concatenated.assign(user->inputCount(), nullptr);
    concatenated[0] = node;
    folds.absorbed.insert(node);
  }
}

Fold foldKind(const GraphPlan& plan, const Step& step) {
  static const std::unordered_set<std::string> kRandom = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  const Node& node = *step.node;
  if (!step.backend->usesHostMemory() || !node.subgraphs().empty() || !step.captures.empty())
    return Fold::None;
  const bool standard = isOnnxDomain(node);
  if (standard && kRandom.count(node.opType())) return Fold::None;
  if (!standard && node.domain() != "ai.onnx.ml") return Fold::None;
  bool derived = false;
  auto known = [&](int slot) {
    if (slot < 0) return true;
    if (plan.isInputSlot(slot)) return false;
    derived = derived || plan.isShapeDerived[size_t(slot)];
    return plan.isConstant[size_t(slot)] || plan.isShapeDerived[size_t(slot)];
  };
  bool all = std::all_of(step.inputs.begin(), step.inputs.end(), known);
  for (const EpilogueStep& ep : step.epilogue)
    all = all && std::all_of(ep.inputs.begin(), ep.inputs.end(), known);
  if (all) return derived ? Fold::Shape : Fold::Constant;
  const bool source = standard && (node.opType() == "Shape" || node.opType() == "Size");
  return source && step.epilogue.empty() && !step.inputs.empty() && step.inputs[0] >= 0 ? Fold::Source
                                                                                        : Fold::None;
}

}  // namespace

InputFolds findInputFolds(const std::vector<const Node*>& order, const ValueFacts& facts,
                          const PlanContext& context) {
  InputFolds folds;
  if (!context.fuseEpilogues) return folds;
  foldTransposes(order, facts, context, folds);
  foldConcats(order, facts, context, folds);
  return folds;
}

void decideFold(GraphPlan& plan, Step& step, bool foldConstants) {
  step.fold = foldConstants ? foldKind(plan, step) : Fold::None;
  for (int slot : step.outputs) {
    if (slot < 0) continue;
    plan.isConstant[size_t(slot)] = step.fold == Fold::Constant;
    plan.isShapeDerived[size_t(slot)] = step.fold == Fold::Shape || step.fold == Fold::Source;
  }
}

bool readsOnlyFoldableValues(const GraphPlan& plan, const Step& step) {
  const Node& node = *step.node;
  if (!isOnnxDomain(node) || !node.subgraphs().empty() || !step.captures.empty()) return false;
  bool any = false;
  for (int slot : step.inputs) {
    if (slot < 0) continue;
    if (plan.isInputSlot(slot) || !(plan.isConstant[size_t(slot)] || plan.isShapeDerived[size_t(slot)]))
      return false;
    any = true;
  }
  return any;
}

void markConstantInputs(const GraphPlan& plan, Step& step) {
  for (size_t i = 0; i < std::min(step.inputs.size(), step.partsBegin); ++i) {
    const int slot = step.inputs[i];
    const bool constant = slot >= 0 && plan.isConstant[size_t(slot)] && !plan.isInputSlot(slot);
    step.constantInputs.push_back(constant);
  }
}

bool keptOutputsHold(const GraphPlan& plan, const Step& step, const std::vector<RunValue>& slots) {
  if (step.fold == Fold::Source) {
    const auto* t = std::get_if<TensorValue>(&slots[size_t(step.inputs[0])]);
    return t && t->dims() == step.shapeDims;
  }
  return step.fold != Fold::Shape || step.foldedEpoch == plan.shapeEpoch;
}

}  // namespace onyx::exec
