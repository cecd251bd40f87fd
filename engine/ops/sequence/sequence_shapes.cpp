// Shape functions of sequence and optional ops: the element type travels inside Type::sequence/optional.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

// The type of an element that may be either `a` or `b`.
Type mergeElementTypes(ShapeContext& ctx, const Type& a, const Type& b) {
  if (a.isNone()) return b;
  if (b.isNone() || a == b) return a;
  if (!a.isTensor() || !b.isTensor()) return a;
  const auto& sa = a.shape();
  const auto& sb = b.shape();
  if (!sa || !sb || sa->size() != sb->size()) return Type::tensor(a.elemType());
  Shape shape;
  for (size_t i = 0; i < sa->size(); ++i) {
    if (dimsEqual((*sa)[i], (*sb)[i]) == true) shape.push_back((*sa)[i]);
    else shape.push_back(ctx.unknownDim(ctx.node().opType() + ": sequence elements differ in dim " + std::to_string(i)));
  }
  return Type::tensor(a.elemType(), std::move(shape));
}

Type elementOf(const Type& type) {
  return type.kind() == Type::Kind::Sequence || type.kind() == Type::Kind::Optional ? type.element() : type;
}

Expected<void> inferSequenceEmpty(ShapeContext& ctx) {
  DataType elem = static_cast<DataType>(ctx.attrInt("dtype", static_cast<int64_t>(DataType::Float)));
  InferredValue out;
  out.type = Type::sequence(Type::tensor(elem));
  out.sequenceElements = std::vector<Type>{};
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> inferSequenceConstruct(ShapeContext& ctx) {
  Type element;
  std::vector<Type> elements;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    element = mergeElementTypes(ctx, element, ctx.inputType(i));
    elements.push_back(ctx.inputType(i));
  }
  InferredValue out;
  out.type = Type::sequence(element);
  out.sequenceElements = std::move(elements);
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> inferSequenceInsert(ShapeContext& ctx) {
  const Type& sequence = ctx.inputType(0);
  Type element = sequence.kind() == Type::Kind::Sequence ? sequence.element() : Type();
  const auto& known = ctx.input(0).sequenceElements;
  bool empty = known && known->empty();
  InferredValue out;
  out.type = Type::sequence(empty ? ctx.inputType(1) : mergeElementTypes(ctx, element, ctx.inputType(1)));
  if (known) {
    auto position = ctx.hasInput(2) ? ctx.inputInts(2) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{static_cast<int64_t>(known->size())});
    int64_t n = static_cast<int64_t>(known->size());
    if (position && position->size() == 1 && (*position)[0] >= -n && (*position)[0] <= n) {
      int64_t at = (*position)[0] < 0 ? (*position)[0] + n : (*position)[0];
      std::vector<Type> elements = *known;
      elements.insert(elements.begin() + at, ctx.inputType(1));
      out.sequenceElements = std::move(elements);
    }
  }
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> inferSequenceAt(ShapeContext& ctx) {
  Type element = elementOf(ctx.inputType(0));
  const auto& known = ctx.input(0).sequenceElements;
  auto position = ctx.inputInts(1);
  if (known && position && position->size() == 1) {
    int64_t n = static_cast<int64_t>(known->size());
    int64_t at = (*position)[0] < 0 ? (*position)[0] + n : (*position)[0];
    if (at < 0 || at >= n) return ctx.error("SequenceAt position " + std::to_string((*position)[0]) + " is out of range for " + std::to_string(n) + " elements");
    element = (*known)[at];
  }
  InferredValue out;
  out.type = element;
  if (element.isNone() || (element.isTensor() && !element.shape())) {
    out.rankOrigin = ctx.origin("SequenceAt: the sequence's element shape is unknown");
    if (element.isNone()) out.type = Type::tensor(DataType::Undefined);
  }
  ctx.setOutput(0, std::move(out));
  return {};
}

Expected<void> inferSequenceLength(ShapeContext& ctx) {
  ctx.setOutputTensor(0, DataType::Int64, {});
  if (const auto& known = ctx.input(0).sequenceElements) ctx.setOutputValue(0, {Dim(static_cast<int64_t>(known->size()))});
  return {};
}

Expected<void> inferSequenceErase(ShapeContext& ctx) {
  ctx.setOutputType(0, ctx.inputType(0));
  return {};
}

Expected<void> inferSplitToSequence(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& in = ctx.inputShape(0);
  if (!in) {
    ctx.setOutputType(0, Type::sequence(Type::tensor(elem)));
    return {};
  }
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), in->size());
  if (!axis) return axis.error();
  Shape element = *in;
  if (!ctx.hasInput(1)) {
    if (ctx.attrInt("keepdims", 1) != 0) element[*axis] = Dim(1);
    else element.erase(element.begin() + *axis);
  } else {
    const auto& split = ctx.inputValue(1);
    const auto& splitShape = ctx.inputShape(1);
    bool scalar = splitShape && splitShape->empty();
    if (split && split->size() == 1 && scalar && dimsEqual((*in)[*axis], (*split)[0]) != true) {
      auto n = (*in)[*axis].value(), s = (*split)[0].value();
      element[*axis] = n && s && *n % *s == 0 ? Dim(*s) : ctx.unknownDim("SplitToSequence: the last chunk may be shorter");
    } else if (split && split->size() == 1) {
      element[*axis] = (*split)[0];
    } else if (split) {
      bool same = true;
      for (const Dim& d : *split) same = same && dimsEqual(d, (*split)[0]) == true;
      element[*axis] = same && !split->empty() ? (*split)[0] : ctx.unknownDim("SplitToSequence: chunks differ in size");
    } else {
      element[*axis] = ctx.unknownDim(runtimeReason(ctx, 1, "the split sizes"));
    }
  }
  ctx.setOutputType(0, Type::sequence(Type::tensor(elem, std::move(element))));
  return {};
}

Expected<void> inferConcatFromSequence(ShapeContext& ctx) {
  Type element = elementOf(ctx.inputType(0));
  DataType elem = element.elemType();
  if (!element.isTensor() || !element.shape()) {
    ctx.setOutputUnknownRank(0, elem, ctx.origin("ConcatFromSequence: the sequence's element shape is unknown"));
    return {};
  }
  Shape shape = *element.shape();
  bool newAxis = ctx.attrInt("new_axis", 0) != 0;
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), shape.size() + (newAxis ? 1 : 0));
  if (!axis) return axis.error();
  Dim count = ctx.unknownDim("ConcatFromSequence: the number of sequence elements is known only at run time");
  if (const auto& known = ctx.input(0).sequenceElements) {
    if (newAxis) {
      count = Dim(static_cast<int64_t>(known->size()));
    } else {
      count = Dim(0);
      for (const Type& item : *known) {
        const auto& itemShape = item.shape();
        count = itemShape && *axis < itemShape->size() ? dimAdd(count, (*itemShape)[*axis]) : ctx.unknownDim("ConcatFromSequence: an element's rank is unknown");
      }
    }
  }
  if (newAxis) shape.insert(shape.begin() + *axis, count);
  else shape[*axis] = count;
  ctx.setOutputTensor(0, elem, std::move(shape));
  return {};
}

Expected<void> inferSequenceMap(ShapeContext& ctx) {
  Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("SequenceMap needs a body");
  std::vector<InferredValue> inputs;
  for (size_t i = 0; i < ctx.inputCount(); ++i) {
    InferredValue input;
    input.type = elementOf(ctx.inputType(i));
    inputs.push_back(std::move(input));
  }
  auto outputs = ctx.inferSubgraph(*body, inputs);
  for (size_t i = 0; i < outputs.size() && i < ctx.outputCount(); ++i) ctx.setOutputType(i, Type::sequence(outputs[i].type));
  return {};
}

Expected<void> inferOptional(ShapeContext& ctx) {
  if (ctx.hasInput(0)) {
    ctx.setOutputType(0, Type::optional(ctx.inputType(0)));
  } else if (const Attribute* type = ctx.attr("type")) {
    if (const auto* declared = std::get_if<Type>(&type->payload())) ctx.setOutputType(0, Type::optional(*declared));
  }
  return {};
}

Expected<void> inferOptionalHasElement(ShapeContext& ctx) {
  ctx.setOutputTensor(0, DataType::Bool, {});
  return {};
}

Expected<void> inferOptionalGetElement(ShapeContext& ctx) {
  InferredValue out;
  out.type = elementOf(ctx.inputType(0));
  if (out.type.isTensor() && !out.type.shape()) out.rankOrigin = ctx.origin("OptionalGetElement: the element shape is unknown");
  ctx.setOutput(0, std::move(out));
  return {};
}

}  // namespace

void registerSequenceSchemas(OpRegistry& registry) {
  registry.add({"", "SequenceInsert", OpCategory::Sequence, {11}, 2, 3, 1, 1, false, inferSequenceInsert});
  registry.add({"", "SequenceAt", OpCategory::Sequence, {11}, 2, 2, 1, 1, false, inferSequenceAt});
  registry.add({"", "SequenceEmpty", OpCategory::Sequence, {11}, 0, 0, 1, 1, false, inferSequenceEmpty});
  registry.add({"", "SequenceConstruct", OpCategory::Sequence, {11}, 1, OpSchema::kVariadic, 1, 1, false, inferSequenceConstruct});
  registry.add({"", "SequenceLength", OpCategory::Sequence, {11}, 1, 1, 1, 1, false, inferSequenceLength});
  registry.add({"", "SequenceErase", OpCategory::Sequence, {11}, 1, 2, 1, 1, false, inferSequenceErase});
  registry.add({"", "SplitToSequence", OpCategory::Sequence, {11, 24}, 1, 2, 1, 1, false, inferSplitToSequence});
  registry.add({"", "ConcatFromSequence", OpCategory::Sequence, {11}, 1, 1, 1, 1, false, inferConcatFromSequence});
  registry.add({"", "SequenceMap", OpCategory::Sequence, {17}, 1, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferSequenceMap});
  registry.add({"", "Optional", OpCategory::Sequence, {15}, 0, 1, 1, 1, false, inferOptional});
  registry.add({"", "OptionalHasElement", OpCategory::Sequence, {15, 18}, 0, 1, 1, 1, false, inferOptionalHasElement});
  registry.add({"", "OptionalGetElement", OpCategory::Sequence, {15, 18}, 1, 1, 1, 1, false, inferOptionalGetElement});
}

}  // namespace onyx
