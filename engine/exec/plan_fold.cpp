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

// A Mul read only by a 1 x 1 Conv (one group, stride 1, no padding) on the CPU: the
// squeeze-excitation scale of EfficientNet and MobileNetV3 blocks, x * s with s one value per channel. The
// Conv may take x as it lies and s into its weights for the run (W[o][c] * s[c]: Cout x C products where the
// Mul made C x H x W); otherwise it reads the product, made on first use (KernelContext::scaledInput).
bool onesOrAbsent(const Node& node, std::string_view name, int64_t one) {
  auto values = node.attrInts(name);
  return !values || std::all_of(values->begin(), values->end(), [&](int64_t v) { return v == one; });
}

// Weights [M, C, 1, 1], as a constant or as the value's declared type says.
bool isOneByOne(const onyx::Value* weights) {
  if (!weights) return false;
  if (const onyx::Tensor* constant = constantOf(weights))
    return constant->dims().size() == 4 && constant->dims()[2] == 1 && constant->dims()[3] == 1;
  const auto& shape = weights->type().shape();
  return weights->type().isTensor() && shape && shape->size() == 4 && (*shape)[2].value() == 1 &&
         (*shape)[3].value() == 1;
}

// Whether the value is computed from a global pooling through at most `depth` nodes along their first
// inputs (GlobalAveragePool -> Conv -> Relu -> Conv -> Sigmoid): one value per channel, the excitation's
// scale. Other Muls before a 1 x 1 Conv (a gate of two feature maps) stay where the epilogues take them.
bool fromGlobalPool(const onyx::Value* value, int depth) {
  const Node* producer = value ? value->producer() : nullptr;
  if (!producer || !isOnnxDomain(*producer)) return false;
  const std::string& op = producer->opType();
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return true;
  return depth > 0 && producer->inputCount() > 0 && fromGlobalPool(producer->input(0), depth - 1);
}

void foldChannelScales(const std::vector<const Node*>& order, const ValueFacts& facts, const PlanContext& context,
                       InputFolds& folds) {
  for (const Node* node : order) {
    if (node->opType() != "Mul" || !isOnnxDomain(*node) || node->inputCount() != 2 || node->outputCount() != 1)
      continue;
    const onyx::Value* a = node->input(0);
    const onyx::Value* b = node->input(1);
    if (!a || !b || a->name().empty() || b->name().empty() || constantOf(a) || constantOf(b)) continue;
    // A gate x * f(x) (SiLU's Mul(x, Sigmoid(x))) belongs to its producer's epilogue instead.
    auto reads = [](const onyx::Value* value, const onyx::Value* other) {
      const Node* producer = value->producer();
      return producer && std::find(producer->inputs().begin(), producer->inputs().end(), other) !=
                             producer->inputs().end();
    };
    if (reads(a, b) || reads(b, a) || !(fromGlobalPool(a, 6) || fromGlobalPool(b, 6))) continue;
    const Node* user = facts.onlyUser(node->output(0));
    if (!user || user->opType() != "Conv" || !isOnnxDomain(*user) || user->inputCount() < 2 ||
        user->input(0) != node->output(0) || user->attrInt("group", 1) != 1)
      continue;
    if (!isOneByOne(user->input(1))) continue;
    const std::string pad = user->attrString("auto_pad", "NOTSET");
    if (!onesOrAbsent(*user, "strides", 1) || !onesOrAbsent(*user, "dilations", 1) ||
        !onesOrAbsent(*user, "pads", 0) || (pad != "NOTSET" && pad != "VALID"))
      continue;
    if (!context.runsOnHost(*user) || folds.concatenatedInputsOf.count(user)) continue;
    std::vector<const Node*>& scaled = folds.concatenatedInputsOf[user];
    scaled.assign(user->inputCount(), nullptr);
    scaled[0] = node;
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
  foldChannelScales(order, facts, context, folds);
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
