#include "shapes/shape_inference.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "catalog/op_registry.h"
#include "ir/nesting.h"
#include "shapes/dim_math.h"
#include "shapes/function_body_values.h"
#include "shapes/inferencer.h"
#include "shapes/shape_context.h"
#include "shapes/shape_rules.h"
#include "shapes/value_constants.h"

namespace onyx {

bool ShapeInference::hasErrors() const { return firstError() != nullptr; }

const Diagnostic* ShapeInference::firstError() const {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity == Diagnostic::Severity::Error) return &diagnostic;
  }
  return nullptr;
}

std::string generatedInputSymbol(const std::string& inputName, size_t dimIndex) {
  std::string symbol;
  symbol.reserve(inputName.size() + 4);
  for (char c : inputName) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    symbol += keep ? c : '_';
  }
  if (symbol.empty() || (symbol[0] >= '0' && symbol[0] <= '9') || symbol[0] == '.') symbol.insert(0, "_");
  return symbol + "_d" + std::to_string(dimIndex);
}

ShapeInference inferShapes(const Model& model, const ShapeInferenceOptions& options) {
  ShapeInference result;
  ShapeInferencer inferencer(model, options, result);
  inferencer.run();
  return result;
}

ShapeInferencer::ShapeInferencer(const Model& model, const ShapeInferenceOptions& options, ShapeInference& result)
    : model_(model), options_(options), result_(result), table_(&result.values), imports_(&model.opsetImports) {}

void ShapeInferencer::run() {
  // Inference recurses into bodies and function calls: a recursive function would never return.
  if (auto nesting = checkNesting(model_); !nesting) {
    result_.diagnostics.push_back(
        {Diagnostic::Severity::Error, nesting.error().message, kNoNode, nesting.error().where});
    return;
  }
  result_.values.reserve(model_.graph().nodeCount() * 2 + model_.graph().initializers().size() + 16);
  setGraphInputs(model_.graph());
  inferGraph(model_.graph());
  if (result_.unified.empty()) return;
  for (auto& [value, inferred] : result_.values) {
    if (auto& shape = inferred.type.mutableShape()) {
      for (Dim& dim : *shape) dim = canonical(dim);
    }
    if (inferred.value) {
      for (Dim& dim : *inferred.value) dim = canonical(dim);
    }
  }
}

Dim ShapeInferencer::inputDim(const Dim& dim, const std::string& inputName, size_t index) const {
  if (dim.isUnknown()) {
    std::string symbol = generatedInputSymbol(inputName, index);
    auto bound = options_.bindings.find(symbol);
    return bound != options_.bindings.end() ? Dim(bound->second) : Dim::symbol(symbol);
  }
  SymExpr expr = dim.expr();
  if (expr.isSymbol()) {
    // A dim_param may hold an expression written by an earlier write-back (`floor((H - 1)/2) + 1`); plain
    // names such as `batch-size` stay names.
    const std::string name = expr.symbolName();
    if (name.find_first_of(" ()*+%^`") != std::string::npos) {
      if (auto parsed = SymExpr::parse(name)) expr = *parsed;
    }
  }
  if (!options_.bindings.empty() && !expr.isConstant()) {
    SymSubstitution substitution;
    for (const std::string& symbol : expr.symbols()) {
      auto bound = options_.bindings.find(symbol);
      if (bound != options_.bindings.end()) substitution.emplace(symbol, SymExpr(bound->second));
    }
    if (!substitution.empty()) expr = expr.substitute(substitution);
  }
  return Dim(expr);
}

void ShapeInferencer::setGraphInputs(const Graph& graph) {
  for (const Value* input : graph.inputs()) {
    if (auto given = options_.inputValues.find(input->name()); given != options_.inputValues.end() && given->second) {
      const Tensor& tensor = *given->second;
      InferredValue inferred;
      inferred.type = Type::tensor(tensor.dtype(), dimsFromInts(tensor.dims()));
      inferred.value = smallTensorValue(tensor);
      inferred.constant = &tensor;
      (*table_)[input] = std::move(inferred);
      continue;
    }
    InferredValue inferred;
    auto retyped = options_.inputTypes.find(input->name());
    inferred.type = retyped != options_.inputTypes.end() ? retyped->second : input->type();
    if (inferred.type.isNone() && !input->isInitializer()) {
      inferred.rankOrigin = std::make_shared<DimOrigin>(
          DimOrigin{kNoNode, {}, {}, "graph input '" + input->name() + "' has no type in the model"});
    } else if (inferred.type.isTensor() && !inferred.type.shape() && !input->isInitializer()) {
      inferred.rankOrigin = std::make_shared<DimOrigin>(
          DimOrigin{kNoNode, {}, {}, "graph input '" + input->name() + "' has no shape in the model"});
    }
    if (auto& shape = inferred.type.mutableShape()) {
      for (size_t i = 0; i < shape->size(); ++i) (*shape)[i] = inputDim((*shape)[i], input->name(), i);
    }
    (*table_)[input] = std::move(inferred);
  }
}

void ShapeInferencer::setInitializers(const Graph& graph) {
  for (const Value* value : graph.initializers()) {
    const Tensor* tensor = value->initializer();
    InferredValue inferred;
    inferred.type = Type::tensor(tensor->dtype(), dimsFromInts(tensor->dims()));
    inferred.value = smallTensorValue(*tensor);
    inferred.constant = tensor;
    (*table_)[value] = std::move(inferred);
  }
  for (const Value* value : graph.sparseInitializers()) {
    const SparseTensor* sparse = value->sparseInitializer();
    InferredValue inferred;
    inferred.type = Type::sparseTensor(sparse->values.dtype(), dimsFromInts(sparse->dims));
    (*table_)[value] = std::move(inferred);
  }
}

// Whether every value `node` reads (its bodies included) that a node of `graph` produces has been inferred:
// nodes are almost always stored in topological order, and checking as we go costs far less than sorting.
bool ShapeInferencer::inputsReady(const Node& node, const Graph& graph) const {
  auto ready = [&](const Value* input) {
    return !input || !input->producer() || input->producer()->graph() != &graph || table_->count(input);
  };
  for (const Value* input : node.inputs()) {
    if (!ready(input)) return false;
  }
  for (const Attribute& attribute : node.attributes()) {
    if (attribute.kind() != Attribute::Kind::Graph && attribute.kind() != Attribute::Kind::Graphs) continue;
    for (const Graph* body : attribute.subgraphs()) {
      for (const Node* inner : body->nodes()) {
        if (!inputsReady(*inner, graph)) return false;
      }
      for (const Value* output : body->outputs()) {
        if (!ready(output)) return false;
      }
    }
  }
  return true;
}

void ShapeInferencer::inferGraph(const Graph& graph) {
  setInitializers(graph);
  // A graph is walked in stored order while that order is topological; the first node that reads a value
  // not inferred yet switches to a sorted order for the nodes not inferred so far.
  if (auto sorted = sortedOrders_.find(&graph); sorted != sortedOrders_.end()) {
    // Walked before (a Loop body inferred again): its values are in the table already, so the check below
    // would pass whatever the order.
    for (Node* node : sorted->second) inferNode(*node);
    return;
  }
  const Node* outOfOrder = nullptr;
  for (Node* node : graph.nodes()) {
    if (!inputsReady(*node, graph)) {
      outOfOrder = node;
      break;
    }
    inferNode(*node);
  }
  if (!outOfOrder) return;
  std::unordered_set<const Node*> done;
  for (Node* node : graph.nodes()) {
    if (node == outOfOrder) break;
    done.insert(node);
  }
  auto order = topologicalOrder(graph);
  if (!order) {
    result_.diagnostics.push_back(
        {Diagnostic::Severity::Error, order.error().message, kNoNode, order.error().where});
    for (Node* node : graph.nodes()) markMissingOutputs(*node, [] { return std::string("the graph has a cycle through this node"); });
    return;
  }
  for (Node* node : *order) {
    if (!done.count(node)) inferNode(*node);
  }
  sortedOrders_[&graph] = std::move(*order);
}

std::vector<InferredValue> ShapeInferencer::inferSubgraph(const Graph& body, std::vector<InferredValue> inputs) {
  for (size_t i = 0; i < body.inputs().size(); ++i) {
    InferredValue inferred = i < inputs.size() ? std::move(inputs[i]) : InferredValue{};
    // A body input may declare more than the caller knows (a static dim where the loop carries `?`).
    const Type& declared = body.inputs()[i]->type();
    if (declared.isTensor() && declared.shape() && inferred.type.isTensor() && !inferred.type.shape()) {
      inferred.type.setShape(declared.shape());
      inferred.rankOrigin = nullptr;
    } else if (inferred.type.isNone() && !declared.isNone()) {
      inferred.type = declared;
    }
    (*table_)[body.inputs()[i]] = std::move(inferred);
  }
  inferGraph(body);
  std::vector<InferredValue> outputs;
  outputs.reserve(body.outputs().size());
  for (const Value* output : body.outputs()) outputs.push_back(lookup(output));
  return outputs;
}

const InferredValue& ShapeInferencer::lookup(const Value* value) const {
  static const InferredValue kUndefined;
  if (!value) return kUndefined;
  auto found = table_->find(value);
  return found == table_->end() ? kUndefined : found->second;
}

int64_t ShapeInferencer::opsetFor(const std::string& domain) const {
  std::string_view wanted = domain == "ai.onnx" ? std::string_view() : std::string_view(domain);
  for (const OpsetImport& import : *imports_) {
    std::string_view have = import.domain == "ai.onnx" ? std::string_view() : std::string_view(import.domain);
    if (have == wanted) return import.version;
  }
  if (imports_ != &model_.opsetImports) return model_.opsetVersion(domain);
  return 0;
}

const Attribute* ShapeInferencer::callAttribute(const std::string& name) const {
  if (!functionCall_) return nullptr;
  for (const Attribute& attribute : callAttributes_) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

void ShapeInferencer::addDiagnostic(Diagnostic::Severity severity, const Node& node, std::string message) {
  result_.diagnostics.push_back({severity, std::move(message), node.id(), node.describe()});
}

void ShapeInferencer::demoteErrorsSince(size_t first, const std::string& why) {
  for (size_t i = first; i < result_.diagnostics.size(); ++i) {
    Diagnostic& diagnostic = result_.diagnostics[i];
    if (diagnostic.severity != Diagnostic::Severity::Error) continue;
    diagnostic.severity = Diagnostic::Severity::Warning;
    diagnostic.message = why + ": " + diagnostic.message;
  }
}

void ShapeInferencer::markMissingOutputs(const Node& node, const std::function<std::string()>& reason,
                                         bool keepDeclared) {
  std::shared_ptr<const DimOrigin> origin;
  for (size_t i = 0; i < node.outputCount(); ++i) {
    const Value* output = node.output(i);
    if (!output || table_->count(output)) continue;
    if (!origin) origin = std::make_shared<DimOrigin>(DimOrigin{node.id(), node.name(), node.opType(), reason()});
    InferredValue inferred;
    inferred.type = output->type();  // whatever the file declared
    if (!keepDeclared && inferred.type.isTensor()) inferred.type.setShape(std::nullopt);
    if (inferred.type.isTensor() && inferred.type.shape()) {
      for (Dim& dim : *inferred.type.mutableShape()) {
        if (dim.isUnknown()) dim = Dim::unknown(origin);
      }
    } else {
      inferred.rankOrigin = origin;
    }
    (*table_)[output] = std::move(inferred);
  }
}

void ShapeInferencer::inferNode(const Node& node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    if (const Function* function = model_.findFunction(node.domain(), node.opType(), node.overload())) {
      inferFunctionCall(node, *function);
      return;
    }
  }
  const OpSchema* schema = opRegistry().find(node.domain(), node.opType());
  if (!schema || !schema->shape) {
    if (const Function* function = model_.findFunction(node.domain(), node.opType(), node.overload())) {
      inferFunctionCall(node, *function);
      return;
    }
    auto qualified = [&node] {
      return (node.domain().empty() ? std::string("ai.onnx") : node.domain()) + "::" + node.opType();
    };
    if (options_.rules && options_.rules->find(node.domain(), node.opType())) {
      ShapeContext context(*this, node, opsetFor(node.domain()), functionCall_);
      auto applied = options_.rules->apply(context);
      if (!applied) addDiagnostic(Diagnostic::Severity::Error, node, applied.error().message);
      markMissingOutputs(node, [&] {
        return applied ? "shape rule for " + qualified() + " does not give this output"
                       : "shape rule failed: " + applied.error().message;
      });
      return;
    }
    markMissingOutputs(node, [&] { return "no shape function for " + qualified(); });
    return;
  }
  // Outputs are overwritten when a body is inferred twice (a Loop inside a Loop body, say).
  for (size_t i = 0; i < node.outputCount(); ++i) {
    if (const Value* output = node.output(i)) table_->erase(output);
  }
  int64_t opset = opsetFor(node.domain());
  ShapeContext context(*this, node, opset, functionCall_);
  RealProbes probes = movesElements(node) ? probeRealInputs(node) : RealProbes{};
  auto inferred = schema->shape(context);
  if (!probes.empty()) resolveRealProbes(node, context, probes);
  if (!inferred) {
    const std::string& message = inferred.error().message;
    addDiagnostic(Diagnostic::Severity::Error, node, message);
    // The file's declared types are not trusted past an inconsistency: the outputs stay unknown.
    bool prefixed = message.size() > node.opType().size() && message.compare(0, node.opType().size(), node.opType()) == 0 &&
                    message[node.opType().size()] == ':';
    markMissingOutputs(
        node, [&] { return prefixed ? message : node.opType() + ": " + message; }, /*keepDeclared=*/false);
    return;
  }
  markMissingOutputs(node, [&node] { return node.opType() + " gives no shape for this output"; });
}

namespace {

// Ops whose output elements are input elements moved around: a fractional float value (a resize scale, say)
// moves with them as it is.
const std::unordered_set<std::string>& elementMovingOps() {
  static const std::unordered_set<std::string> ops = {"Identity", "Concat", "Gather", "GatherElements", "Unsqueeze",
                                                      "Squeeze", "Reshape", "Flatten", "Slice", "Expand", "Tile",
                                                      "Transpose", "Split", "Where"};
  return ops;
}

std::string probeName(size_t index) { return "__real_element_" + std::to_string(index); }

}  // namespace

bool ShapeInferencer::movesElements(const Node& node) const {
  return (node.domain().empty() || node.domain() == "ai.onnx") && elementMovingOps().count(node.opType());
}

// The element-moving shape functions move dims; a fractional element is lent to them as a probe symbol, and
// wherever a probe lands in an output value the element is put back (resolveRealProbes).
ShapeInferencer::RealProbes ShapeInferencer::probeRealInputs(const Node& node) {
  RealProbes probes;
  for (const Value* input : node.inputs()) {
    if (!input) continue;
    InferredValue& slot = (*table_)[input];
    if (!slot.real || slot.value) continue;
    std::vector<Dim> standIns;
    for (const RealElement& element : *slot.real) {
      standIns.push_back(Dim::symbol(probeName(probes.elements.size())));
      probes.elements.push_back(element);
    }
    slot.value = std::move(standIns);
    probes.inputs.push_back(input);
  }
  return probes;
}

void ShapeInferencer::resolveRealProbes(const Node& node, ShapeContext& context, const RealProbes& probes) {
  for (const Value* input : probes.inputs) (*table_)[input].value.reset();
  const std::string prefix = probeName(0).substr(0, probeName(0).size() - 1);
  for (size_t i = 0; i < node.outputCount(); ++i) {
    const Value* output = node.output(i);
    auto found = output ? table_->find(output) : table_->end();
    if (found == table_->end() || !found->second.value) continue;
    std::vector<RealElement> elements;
    bool probed = false;
    for (const Dim& dim : *found->second.value) {
      std::vector<std::string> symbols = dim.isSymbolic() ? dim.expr().symbols() : std::vector<std::string>{};
      bool hasProbe = std::any_of(symbols.begin(), symbols.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
      probed = probed || hasProbe;
      if (!hasProbe) elements.push_back(RealElement::fromDim(dim));
      else if (dim.expr().isSymbol()) elements.push_back(probes.elements[std::stoul(symbols[0].substr(prefix.size()))]);
      else elements.push_back(RealElement::unknown());
    }
    if (!probed) continue;
    found->second.value.reset();
    context.setOutputReal(i, std::move(elements));
  }
}

void ShapeInferencer::inferFunctionCall(const Node& node, const Function& function) {
  constexpr int kMaxFunctionDepth = 32;
  if (functionDepth_ >= kMaxFunctionDepth || !function.body) {
    markMissingOutputs(node, [&] {
      return std::string(functionDepth_ >= kMaxFunctionDepth ? "function calls nest too deep (recursion?)"
                                                             : "function has no body");
    });
    return;
  }
  // The call's attributes as the body sees them: references resolved in the caller's scope, defaults added.
  std::vector<Attribute> attributes;
  for (const Attribute& attribute : node.attributes()) {
    if (attribute.isReference()) {
      if (const Attribute* resolved = callAttribute(attribute.refAttrName())) {
        attributes.emplace_back(attribute.name(), resolved->kind(), resolved->payload());
      }
    } else {
      attributes.push_back(attribute);
    }
  }
  for (const Attribute& fallback : function.attributeDefaults) {
    bool given = std::any_of(attributes.begin(), attributes.end(),
                             [&](const Attribute& a) { return a.name() == fallback.name(); });
    if (!given) attributes.push_back(fallback);
  }

  std::unordered_map<const Value*, InferredValue> bodyTable;
  const Graph& body = *function.body;
  for (size_t i = 0; i < body.inputs().size(); ++i) bodyTable[body.inputs()[i]] = lookup(node.input(i));

  auto* savedTable = table_;
  auto* savedImports = imports_;
  const Node* savedCall = functionCall_;
  std::vector<Attribute> savedAttributes = std::move(callAttributes_);
  table_ = &bodyTable;
  imports_ = function.opsetImports.empty() ? &model_.opsetImports : &function.opsetImports;
  functionCall_ = &node;
  callAttributes_ = std::move(attributes);
  ++functionDepth_;
  inferGraph(body);
  --functionDepth_;
  std::vector<InferredValue> outputs;
  for (const Value* output : body.outputs()) outputs.push_back(lookup(output));
  keepFunctionBodyValues(result_.values, bodyTable, function.name);
  table_ = savedTable;
  imports_ = savedImports;
  functionCall_ = savedCall;
  callAttributes_ = std::move(savedAttributes);

  for (size_t i = 0; i < node.outputCount() && i < outputs.size(); ++i) {
    if (const Value* output = node.output(i)) (*table_)[output] = std::move(outputs[i]);
  }
  markMissingOutputs(node, [&] { return "function " + function.name + " does not define this output"; });
}

SymExpr ShapeInferencer::canonical(const SymExpr& expr) const {
  if (result_.unified.empty() || expr.isConstant()) return expr;
  return expr.substitute(result_.unified);
}

Dim ShapeInferencer::canonical(const Dim& dim) const {
  if (result_.unified.empty() || !dim.isSymbolic()) return dim;
  return Dim(canonical(dim.expr()));
}

void ShapeInferencer::unify(const SymExpr& a, const SymExpr& b, const Node& node) {
  result_.constraints.push_back({a, b, node.id(), node.describe()});
  auto contains = [](const SymExpr& expr, const std::string& symbol) {
    auto symbols = expr.symbols();
    return std::binary_search(symbols.begin(), symbols.end(), symbol);
  };
  std::string replaced;
  SymExpr by;
  if (a.isSymbol() && b.isSymbol()) {
    // Keep the name that sorts first, so the result does not depend on operand order.
    bool keepA = a.symbolName() < b.symbolName();
    replaced = keepA ? b.symbolName() : a.symbolName();
    by = keepA ? a : b;
  } else if (b.isSymbol() && !contains(a, b.symbolName())) {
    replaced = b.symbolName();
    by = a;
  } else if (a.isSymbol() && !contains(b, a.symbolName())) {
    replaced = a.symbolName();
    by = b;
  } else {
    return;
  }
  SymSubstitution step{{replaced, by}};
  for (auto& [symbol, expr] : result_.unified) expr = expr.substitute(step);
  result_.unified.insert_or_assign(replaced, by);
}

}  // namespace onyx
