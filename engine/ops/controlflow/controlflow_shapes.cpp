// Shape functions of If, Loop and Scan: bodies are inferred with the types their inputs get, If merges the
// branches, Loop and Scan carry state across iterations and stack scan outputs.
#include <algorithm>
#include <map>

#include "catalog/op_registry.h"
#include "shapes/inferencer.h"
#include "shapes/shape_helpers.h"
#include "shapes/shape_report.h"

namespace onyx {

using namespace shapes;

namespace {

// The type a value has when it may come from either `a` or `b`: equal dims stay, differing ones become
// unknown with `reason` naming the node.
InferredValue mergeValues(ShapeContext& ctx, const InferredValue& a, const InferredValue& b, const std::string& reason) {
  InferredValue merged;
  merged.type = a.type;
  if (a.value && b.value && a.value->size() == b.value->size()) {
    bool same = true;
    for (size_t i = 0; i < a.value->size() && same; ++i) same = dimsEqual((*a.value)[i], (*b.value)[i]) == true;
    if (same) merged.value = a.value;
  }
  if (!a.type.isTensor() || !b.type.isTensor()) {
    if (a.type != b.type && !a.type.isTensor()) merged.type = a.type.isNone() ? b.type : a.type;
    bool container = a.type.kind() == Type::Kind::Sequence || a.type.kind() == Type::Kind::Optional;
    if (container && a.type.kind() == b.type.kind() && a.type != b.type) {
      // test_loop13_seq: an empty sequence declared with scalar elements gains 1-D slices in the body; the
      // elements are whatever both sides allow.
      InferredValue elementA, elementB;
      elementA.type = a.type.element();
      elementB.type = b.type.element();
      Type element = mergeValues(ctx, elementA, elementB, reason).type;
      merged.type = a.type.kind() == Type::Kind::Sequence ? Type::sequence(std::move(element))
                                                          : Type::optional(std::move(element));
    }
    if (a.type.isNone() && b.type.isNone()) merged.rankOrigin = a.rankOrigin ? a.rankOrigin : b.rankOrigin;
    return merged;
  }
  if (merged.type.elemType() == DataType::Undefined) merged.type.setElemType(b.type.elemType());
  const auto& sa = a.type.shape();
  const auto& sb = b.type.shape();
  if (!sa || !sb) {
    merged.type.setShape(std::nullopt);
    merged.rankOrigin = !sa ? a.rankOrigin : b.rankOrigin;
    if (!merged.rankOrigin) merged.rankOrigin = ctx.origin(reason + ": rank is unknown");
    return merged;
  }
  if (sa->size() != sb->size()) {
    merged.type.setShape(std::nullopt);
    merged.rankOrigin = ctx.origin(reason + ": ranks differ (" + shapeToString(*sa) + " and " + shapeToString(*sb) + ")");
    return merged;
  }
  Shape shape;
  for (size_t i = 0; i < sa->size(); ++i) {
    const Dim& x = (*sa)[i];
    const Dim& y = (*sb)[i];
    if (dimsEqual(x, y) == true) shape.push_back(x);
    else if (x.isUnknown()) shape.push_back(x);  // derived from where the branch lost it
    else if (y.isUnknown()) shape.push_back(y);
    else shape.push_back(ctx.unknownDim(reason + ": dim " + std::to_string(i) + " is " + x.toString() + " or " + y.toString()));
  }
  merged.type.setShape(std::move(shape));
  return merged;
}

// A branch that never runs stays uninferrable where it is inconsistent for the known condition; its unknown
// dims say that the branch does not run, which depends on the condition's (data) value, so the report
// counts them with the data-dependent ones rather than as sizes inference failed to find.
void markNeverRuns(ShapeInferencer& inferencer, const Graph& branch, const std::string& name) {
  std::map<const DimOrigin*, std::shared_ptr<const DimOrigin>> marked;
  auto mark = [&](const std::shared_ptr<const DimOrigin>& origin) -> std::shared_ptr<const DimOrigin> {
    if (!origin || isDataDependent(origin.get())) return origin;
    auto& replacement = marked[origin.get()];
    if (!replacement) {
      replacement = std::make_shared<DimOrigin>(DimOrigin{
          origin->node, origin->nodeName, origin->opType,
          origin->reason + " (in " + name + ", which never runs: whether it runs depends on the If condition)"});
    }
    return replacement;
  };
  for (const Node* node : branch.nodes()) {
    for (const Value* output : node->outputs()) {
      if (!output) continue;
      InferredValue& inferred = inferencer.slot(output);
      inferred.rankOrigin = mark(inferred.rankOrigin);
      if (auto& shape = inferred.type.mutableShape()) {
        for (Dim& dim : *shape) {
          if (dim.isUnknown()) dim = Dim::unknown(mark(dim.origin()));
        }
      }
    }
  }
}

Expected<void> inferIf(ShapeContext& ctx) {
  Graph* thenBranch = ctx.attrGraph("then_branch");
  Graph* elseBranch = ctx.attrGraph("else_branch");
  if (!thenBranch || !elseBranch) return ctx.error("If needs then_branch and else_branch");
  // A branch that provably never runs may be inconsistent: the AffineGrid function body squeezes the 2-D
  // grid's axis 1 in the branch taken only for 4-D sizes (test_affine_grid_3d_expanded). Its errors become
  // warnings.
  auto condition = ctx.inputInts(0);
  bool known = condition && condition->size() == 1;
  ShapeInferencer& inferencer = ctx.inferencer();
  size_t before = inferencer.diagnosticCount();
  auto thenOutputs = ctx.inferSubgraph(*thenBranch, {});
  if (known && (*condition)[0] == 0) {
    inferencer.demoteErrorsSince(before, "in then_branch, which never runs");
    markNeverRuns(inferencer, *thenBranch, "then_branch");
  }
  before = inferencer.diagnosticCount();
  auto elseOutputs = ctx.inferSubgraph(*elseBranch, {});
  if (known && (*condition)[0] != 0) {
    inferencer.demoteErrorsSince(before, "in else_branch, which never runs");
    markNeverRuns(inferencer, *elseBranch, "else_branch");
  }
  if (thenOutputs.size() != ctx.outputCount() || elseOutputs.size() != ctx.outputCount()) {
    return ctx.error("If branches give " + std::to_string(thenOutputs.size()) + " and " + std::to_string(elseOutputs.size()) +
                     " outputs for " + std::to_string(ctx.outputCount()) + " outputs of the node");
  }
  for (size_t i = 0; i < ctx.outputCount(); ++i) {
    if (known) {
      InferredValue chosen = (*condition)[0] != 0 ? thenOutputs[i] : elseOutputs[i];
      chosen.constant = nullptr;
      ctx.setOutput(i, std::move(chosen));
    } else {
      ctx.setOutput(i, mergeValues(ctx, thenOutputs[i], elseOutputs[i], "If: the branches disagree"));
    }
  }
  return {};
}

InferredValue scalarOf(DataType elem) {
  InferredValue value;
  value.type = Type::tensor(elem, Shape{});
  return value;
}

// Stacks per-iteration values along `axis` with `count` entries.
InferredValue stacked(ShapeContext& ctx, const InferredValue& element, const Dim& count, int64_t axis) {
  InferredValue out;
  out.type = element.type;
  if (!element.type.isTensor() || !element.type.shape()) {
    out.rankOrigin = element.rankOrigin ? element.rankOrigin : ctx.origin(ctx.node().opType() + ": rank of a scan output is unknown");
    if (out.type.isNone()) out.type = Type::tensor(DataType::Undefined);
    return out;
  }
  Shape shape = *element.type.shape();
  int64_t rank = static_cast<int64_t>(shape.size()) + 1;
  if (axis < 0) axis += rank;
  axis = std::clamp<int64_t>(axis, 0, rank - 1);
  shape.insert(shape.begin() + axis, count);
  out.type.setShape(std::move(shape));
  return out;
}

Expected<void> inferLoop(ShapeContext& ctx) {
  Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("Loop needs a body");
  size_t carried = ctx.inputCount() >= 2 ? ctx.inputCount() - 2 : 0;
  if (body->inputs().size() != carried + 2 || body->outputs().size() < carried + 1) {
    return ctx.error("Loop body has " + std::to_string(body->inputs().size()) + " inputs and " + std::to_string(body->outputs().size()) +
                     " outputs for " + std::to_string(carried) + " carried values");
  }
  // The iteration number is a symbol local to the body, so slices like x[i:i+1] keep a static length; what
  // still depends on it after the body cannot be stacked or carried and becomes unknown at the Loop.
  std::string iterationSymbol = body->inputs()[0]->name().empty() ? "iteration" : body->inputs()[0]->name();
  iterationSymbol = "loop." + generatedInputSymbol(iterationSymbol, 0);
  std::vector<InferredValue> inputs{scalarOf(DataType::Int64), scalarOf(DataType::Bool)};
  inputs[0].value = std::vector<Dim>{Dim::symbol(iterationSymbol)};
  if (ctx.hasInput(1) && ctx.inputValue(1)) inputs[1].value = ctx.inputValue(1);
  for (size_t i = 0; i < carried; ++i) {
    InferredValue initial = ctx.input(i + 2);
    initial.constant = nullptr;
    inputs.push_back(std::move(initial));
  }
  auto outputs = ctx.inferSubgraph(*body, inputs);
  // Carried values whose shape changes between iterations: infer the body again with what holds for all.
  bool changed = false;
  for (size_t i = 0; i < carried; ++i) {
    InferredValue merged = mergeValues(ctx, inputs[i + 2], outputs[i + 1], "Loop: carried value changes across iterations");
    merged.value = std::nullopt;
    if (merged.type != inputs[i + 2].type) changed = true;
    inputs[i + 2] = std::move(merged);
  }
  if (changed) outputs = ctx.inferSubgraph(*body, inputs);
  for (size_t i = 0; i < carried; ++i) {
    InferredValue final = mergeValues(ctx, inputs[i + 2], outputs[i + 1], "Loop: carried value changes across iterations");
    ctx.setOutput(i, std::move(final));
  }
  Dim trips;
  auto maxTrips = ctx.hasInput(0) ? ctx.inputValue(0) : std::nullopt;
  auto bodyCondition = outputs[0].value;
  bool conditionAlwaysTrue = !ctx.hasInput(1) || (ctx.inputInts(1) && (*ctx.inputInts(1))[0] != 0 &&
                                                  bodyCondition && bodyCondition->size() == 1 && (*bodyCondition)[0].value() == 1);
  if (!ctx.hasInput(1) || conditionAlwaysTrue) {
    trips = maxTrips && maxTrips->size() == 1 ? (*maxTrips)[0] : ctx.unknownDim("Loop: no trip count and a condition decided at run time");
  } else {
    trips = ctx.unknownDim("Loop: iteration count depends on the condition computed in the body");
  }
  for (size_t k = carried + 1; k < outputs.size() && k - 1 < ctx.outputCount(); ++k) {
    InferredValue element = outputs[k];
    if (element.type.isTensor() && element.type.shape()) {
      for (Dim& dim : *element.type.mutableShape()) {
        if (!dim.isUnknown() && !dim.isStatic()) {
          auto symbols = dim.expr().symbols();
          if (std::find(symbols.begin(), symbols.end(), iterationSymbol) != symbols.end()) {
            dim = ctx.unknownDim("Loop: a scan output's size changes with the iteration");
          }
        }
      }
    }
    element.value = std::nullopt;
    ctx.setOutput(k - 1, stacked(ctx, element, trips, 0));
  }
  return {};
}

Expected<void> inferScan(ShapeContext& ctx) {
  Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("Scan needs a body");
  bool batched = ctx.opset() < 9;  // Scan-8: a leading batch axis and an optional sequence_lens input
  size_t first = batched ? 1 : 0;
  size_t scanInputs = static_cast<size_t>(ctx.attrInt("num_scan_inputs", 0));
  if (ctx.inputCount() < first + scanInputs) return ctx.error("Scan has fewer inputs than num_scan_inputs");
  size_t states = ctx.inputCount() - first - scanInputs;
  auto inputAxes = ctx.attrInts("scan_input_axes").value_or(std::vector<int64_t>(scanInputs, 0));
  auto outputAxes = ctx.attrInts("scan_output_axes");
  std::vector<InferredValue> inputs;
  Dim batch, length;
  bool lengthSet = false;
  for (size_t i = 0; i < states; ++i) {
    InferredValue state = ctx.input(first + i);
    state.constant = nullptr;
    if (batched && state.type.shape() && !state.type.shape()->empty()) {
      batch = (*state.type.shape())[0];
      state.type.mutableShape()->erase(state.type.mutableShape()->begin());
    }
    inputs.push_back(std::move(state));
  }
  for (size_t j = 0; j < scanInputs; ++j) {
    InferredValue slice;
    slice.type = ctx.inputType(first + states + j);
    const auto& shape = slice.type.shape();
    if (!shape) {
      slice.rankOrigin = ctx.rankOriginOf(first + states + j);
      if (!lengthSet) length = Dim::unknown(slice.rankOrigin);
    } else {
      Shape reduced = *shape;
      if (batched) {
        if (reduced.size() < 2) return ctx.error("Scan-8 inputs need a batch and a sequence axis");
        batch = reduced[0];
        if (!lengthSet) length = reduced[1], lengthSet = true;
        reduced.erase(reduced.begin(), reduced.begin() + 2);
      } else {
        auto axis = ctx.normalizeAxis(j < inputAxes.size() ? inputAxes[j] : 0, reduced.size(), "scan input axis");
        if (!axis) return axis.error();
        if (!lengthSet) length = reduced[*axis], lengthSet = true;
        reduced.erase(reduced.begin() + *axis);
      }
      slice.type.setShape(std::move(reduced));
    }
    inputs.push_back(std::move(slice));
  }
  auto outputs = ctx.inferSubgraph(*body, inputs);
  if (outputs.size() < states) return ctx.error("Scan body has fewer outputs than state variables");
  for (size_t i = 0; i < states; ++i) {
    InferredValue final = mergeValues(ctx, inputs[i], outputs[i], "Scan: state changes across iterations");
    if (batched && final.type.shape()) final.type.mutableShape()->insert(final.type.mutableShape()->begin(), batch);
    ctx.setOutput(i, std::move(final));
  }
  for (size_t k = states; k < outputs.size() && k < ctx.outputCount(); ++k) {
    size_t index = k - states;
    if (batched) {
      InferredValue out = stacked(ctx, outputs[k], length, 0);
      if (out.type.shape()) out.type.mutableShape()->insert(out.type.mutableShape()->begin(), batch);
      ctx.setOutput(k, std::move(out));
    } else {
      int64_t axis = outputAxes && index < outputAxes->size() ? (*outputAxes)[index] : 0;
      ctx.setOutput(k, stacked(ctx, outputs[k], length, axis));
    }
  }
  return {};
}

}  // namespace

void registerControlFlowSchemas(OpRegistry& registry) {
  registry.add({"", "If", OpCategory::ControlFlow, {1, 11, 13, 16, 19, 21, 23, 24, 25}, 1, 1, 1, OpSchema::kVariadic, false, inferIf});
  registry.add({"", "Loop", OpCategory::ControlFlow, {1, 11, 13, 16, 19, 21, 23, 24, 25}, 2, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferLoop});
  registry.add({"", "Scan", OpCategory::ControlFlow, {8, 9, 11, 16, 19, 21, 23, 24, 25}, 1, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferScan});
}

}  // namespace onyx
