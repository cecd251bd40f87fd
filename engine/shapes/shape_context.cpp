#include "shapes/shape_context.h"

#include "shapes/dim_math.h"
#include "shapes/inferencer.h"
#include "shapes/value_constants.h"

namespace onyx {

ShapeContext::ShapeContext(ShapeInferencer& inferencer, const Node& node, int64_t opset, const Node* functionCall)
    : inferencer_(&inferencer), node_(&node), opset_(opset), functionCall_(functionCall) {}

const InferredValue& ShapeContext::input(size_t i) const { return inferencer_->lookup(node_->input(i)); }

std::optional<size_t> ShapeContext::inputRank(size_t i) const {
  const auto& shape = inputShape(i);
  return shape ? std::optional<size_t>(shape->size()) : std::nullopt;
}

std::optional<std::vector<int64_t>> ShapeContext::inputInts(size_t i) const {
  const auto& value = inputValue(i);
  return value ? staticValues(*value) : std::nullopt;
}

const Tensor* ShapeContext::inputConstant(size_t i) const { return input(i).constant; }

std::optional<std::vector<RealElement>> ShapeContext::inputReal(size_t i) const {
  const InferredValue& in = input(i);
  if (in.real) return in.real;
  std::vector<RealElement> elements;
  if (in.value) {
    elements.reserve(in.value->size());
    for (const Dim& dim : *in.value) elements.push_back(RealElement::fromDim(dim));
    return elements;
  }
  // A constant with fractional elements (0.5, a mean) has no integer value but is known all the same.
  if (in.constant && in.constant->elementCount() <= kMaxValueElements && isFloatingPoint(in.constant->dtype())) {
    if (auto numbers = tensorAsDoubles(*in.constant)) {
      for (double number : *numbers) elements.push_back(RealElement::fromNumber(number));
      return elements;
    }
  }
  return std::nullopt;
}

const InferredValue* ShapeContext::valueNamed(std::string_view name) const {
  const Value* value = node_->graph() ? node_->graph()->resolve(name) : nullptr;
  return value ? &inferencer_->lookup(value) : nullptr;
}

std::shared_ptr<const DimOrigin> ShapeContext::rankOriginOf(size_t i) const {
  if (const auto& origin = input(i).rankOrigin) return origin;
  if (!hasInput(i)) return origin_(node_->opType() + ": required input " + std::to_string(i) + " is missing");
  return origin_(node_->opType() + ": rank of input '" + node_->input(i)->name() + "' is unknown");
}

const Attribute* ShapeContext::attr(std::string_view name) const {
  const Attribute* attribute = node_->attribute(name);
  if (attribute && attribute->isReference()) return inferencer_->callAttribute(attribute->refAttrName());
  return attribute;
}

// Same as Node::attr*, but through attr(), which resolves a function body's references to the call's values.
int64_t ShapeContext::attrInt(std::string_view name, int64_t fallback) const {
  return attributeIntOr(attr(name), fallback);
}

float ShapeContext::attrFloat(std::string_view name, float fallback) const {
  return attributeFloatOr(attr(name), fallback);
}

std::string ShapeContext::attrString(std::string_view name, std::string_view fallback) const {
  return attributeStringOr(attr(name), fallback);
}

std::optional<std::vector<int64_t>> ShapeContext::attrInts(std::string_view name) const {
  const Attribute* attribute = attr(name);
  if (!attribute) return std::nullopt;
  if (const auto* values = attribute->getInts()) return *values;
  if (const int64_t* value = attribute->getInt()) return std::vector<int64_t>{*value};
  return std::nullopt;
}

const Tensor* ShapeContext::attrTensor(std::string_view name) const {
  const Attribute* attribute = attr(name);
  return attribute ? attribute->getTensor() : nullptr;
}

Graph* ShapeContext::attrGraph(std::string_view name) const {
  const Attribute* attribute = attr(name);
  return attribute ? attribute->getGraph() : nullptr;
}

void ShapeContext::setOutput(size_t i, InferredValue value) {
  if (const Value* output = node_->output(i)) inferencer_->slot(output) = std::move(value);
}

void ShapeContext::setOutputType(size_t i, Type type) {
  if (const Value* output = node_->output(i)) inferencer_->slot(output).type = std::move(type);
}

void ShapeContext::setOutputTensor(size_t i, DataType elem, Shape shape) {
  setOutputType(i, Type::tensor(elem, std::move(shape)));
}

void ShapeContext::setOutputValue(size_t i, std::vector<Dim> value) {
  const Value* output = node_->output(i);
  if (!output) return;
  InferredValue& slot = inferencer_->slot(output);
  // A value must have exactly as many elements as the output's static shape says (a safety net for shape
  // functions that combine values without full broadcasting).
  const auto& shape = slot.type.shape();
  auto count = shape ? staticElementCount(*shape) : std::nullopt;
  if (!count || *count != static_cast<int64_t>(value.size())) return;
  slot.value = std::move(value);
}

void ShapeContext::setOutputReal(size_t i, std::vector<RealElement> elements) {
  const Value* output = node_->output(i);
  if (!output || elements.empty()) return;
  std::vector<Dim> whole;
  whole.reserve(elements.size());
  bool anyKnown = false;
  for (const RealElement& element : elements) {
    anyKnown = anyKnown || element.isKnown();
    if (auto dim = element.wholeDim()) whole.push_back(std::move(*dim));
    else if (!element.isKnown()) whole.push_back(element.origin ? Dim::unknown(element.origin) : unknownDim(node_->opType() + ": value is not known"));
    else break;
  }
  if (!anyKnown) return;
  if (whole.size() == elements.size()) return setOutputValue(i, std::move(whole));
  InferredValue& slot = inferencer_->slot(output);
  const auto& shape = slot.type.shape();
  auto count = shape ? staticElementCount(*shape) : std::nullopt;
  if (!count || *count != static_cast<int64_t>(elements.size())) return;
  slot.real = std::move(elements);
}

void ShapeContext::setOutputUnknownRank(size_t i, DataType elem, std::shared_ptr<const DimOrigin> origin) {
  if (const Value* output = node_->output(i)) {
    InferredValue& slot = inferencer_->slot(output);
    slot.type = Type::tensor(elem);
    slot.rankOrigin = std::move(origin);
  }
}

void ShapeContext::setOutputConstant(size_t i, const Tensor* tensor) {
  if (const Value* output = node_->output(i)) inferencer_->slot(output).constant = tensor;
}

bool ShapeContext::outputSet(size_t i) const {
  const Value* output = node_->output(i);
  return output && &inferencer_->lookup(output) != &inferencer_->lookup(nullptr);
}

std::shared_ptr<const DimOrigin> ShapeContext::origin_(std::string reason) const {
  const Node& where = functionCall_ ? *functionCall_ : *node_;
  if (functionCall_) reason = node_->opType() + " in function " + functionCall_->opType() + ": " + reason;
  return std::make_shared<DimOrigin>(DimOrigin{where.id(), where.name(), where.opType(), std::move(reason)});
}

std::shared_ptr<const DimOrigin> ShapeContext::origin(std::string reason) const {
  return origin_(std::move(reason));
}

Shape ShapeContext::unknownDims(size_t rank, const std::string& reason) const {
  auto shared = origin(reason);
  return Shape(rank, Dim::unknown(shared));
}

Error ShapeContext::error(std::string message) const {
  const Node& where = functionCall_ ? *functionCall_ : *node_;
  return makeError(std::move(message), where.describe());
}

Error ShapeContext::limitError(std::string message) const {
  inferencer_->noteOverLimit(makeError(message, node_->describe()));
  return error(std::move(message));
}

std::string ShapeContext::describeInput(size_t i) const {
  const Value* value = node_->input(i);
  if (!value) return "absent input " + std::to_string(i);
  std::string text = "'" + value->name() + "'";
  if (const Node* producer = value->producer()) return text + " (from " + producer->describe() + ")";
  if (value->isGraphInput()) return text + " (graph input)";
  if (value->isInitializer()) return text + " (initializer)";
  return text;
}

Dim ShapeContext::canonical(const Dim& dim) const { return inferencer_->canonical(dim); }

Expected<Shape> ShapeContext::broadcastShapes(const Shape& a, size_t inputA, const Shape& b, size_t inputB) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const Dim* da = k + a.size() >= rank ? &a[k + a.size() - rank] : nullptr;
    const Dim* db = k + b.size() >= rank ? &b[k + b.size() - rank] : nullptr;
    if (!da || !db) {
      out[k] = da ? *da : *db;
      continue;
    }
    Dim x = canonical(*da), y = canonical(*db);
    auto vx = x.value(), vy = y.value();
    if (vx == 1) { out[k] = y; continue; }
    if (vy == 1) { out[k] = x; continue; }
    if (x.isUnknown()) { out[k] = y.isUnknown() ? x : y; continue; }
    if (y.isUnknown()) { out[k] = x; continue; }
    if (vx && vy) {
      if (*vx != *vy) {
        return error("cannot broadcast dim " + std::to_string(*vx) + " of " + describeInput(inputA) +
                     " against dim " + std::to_string(*vy) + " of " + describeInput(inputB) + ": shapes " +
                     shapeToString(a) + " and " + shapeToString(b));
      }
      out[k] = x;
      continue;
    }
    // A static size against a symbol: the symbol is either 1 or that size; the result is the size.
    if (vx) { out[k] = x; continue; }
    if (vy) { out[k] = y; continue; }
    if (x.expr() == y.expr() || x.expr().provablyEqual(y.expr()) == true) {
      out[k] = x;
      continue;
    }
    inferencer_->unify(x.expr(), y.expr(), *node_);
    out[k] = canonical(x);
  }
  return out;
}

Expected<Shape> ShapeContext::broadcast(std::span<const size_t> inputs) {
  Shape result;
  bool first = true;
  size_t firstIndex = 0;
  for (size_t i : inputs) {
    if (!hasInput(i)) continue;
    const auto& shape = inputShape(i);
    if (!shape) return error("rank of input " + describeInput(i) + " is unknown");
    if (first) {
      result = *shape;
      firstIndex = i;
      first = false;
      continue;
    }
    auto merged = broadcastShapes(result, firstIndex, *shape, i);
    if (!merged) return merged.error();
    result = std::move(*merged);
  }
  return result;
}

Expected<Dim> ShapeContext::requireEqual(const Dim& a, size_t inputA, const Dim& b, size_t inputB,
                                         std::string_view what) {
  Dim x = canonical(a), y = canonical(b);
  if (x.isUnknown()) return y.isUnknown() ? x : y;
  if (y.isUnknown()) return x;
  auto vx = x.value(), vy = y.value();
  if (vx && vy) {
    if (*vx != *vy) {
      return error(std::string(what) + " must match: " + std::to_string(*vx) + " in " + describeInput(inputA) +
                   " but " + std::to_string(*vy) + " in " + describeInput(inputB));
    }
    return x;
  }
  if (vx) return x;  // the symbol must be that size: keep the static one
  if (vy) return y;
  if (x.expr() == y.expr() || x.expr().provablyEqual(y.expr()) == true) return x;
  inferencer_->unify(x.expr(), y.expr(), *node_);
  return canonical(x);
}

std::vector<InferredValue> ShapeContext::inferSubgraph(const Graph& body, std::vector<InferredValue> inputs) {
  return inferencer_->inferSubgraph(body, std::move(inputs));
}

Expected<size_t> ShapeContext::normalizeAxis(int64_t axis, size_t rank, std::string_view what) const {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    return error(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                 std::to_string(rank));
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace onyx
