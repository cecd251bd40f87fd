#pragma once
// The walk behind inferShapes (internal to engine/shapes): the value table, the current function scope and
// the symbol unification that shape functions reach through ShapeContext.
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/model.h"
#include "shapes/shape_inference.h"

namespace onyx {

class ShapeContext;

class ShapeInferencer {
 public:
  ShapeInferencer(const Model& model, const ShapeInferenceOptions& options, ShapeInference& result);

  void run();
  void inferGraph(const Graph& graph);
  std::vector<InferredValue> inferSubgraph(const Graph& body, std::vector<InferredValue> inputs);

  const InferredValue& lookup(const Value* value) const;
  InferredValue& slot(const Value* value) { return (*table_)[value]; }
  // The attribute a function-body reference names, from the call being inferred; null outside functions.
  const Attribute* callAttribute(const std::string& name) const;
  // Keeps the first resource-policy limit a shape function hit (ShapeInference::overLimit).
  void noteOverLimit(Error error) {
    if (!result_.overLimit) result_.overLimit = std::move(error);
  }

  Dim canonical(const Dim& dim) const;
  SymExpr canonical(const SymExpr& expr) const;
  // Records `a == b` (already canonical, not provably equal) found at `node`, and unifies when one side is
  // a bare symbol.
  void unify(const SymExpr& a, const SymExpr& b, const Node& node);
  void addDiagnostic(Diagnostic::Severity severity, const Node& node, std::string message);
  size_t diagnosticCount() const { return result_.diagnostics.size(); }
  // Turns the errors recorded since `first` into warnings prefixed by `why` (a branch that never runs).
  void demoteErrorsSince(size_t first, const std::string& why);

 private:
  void inferNode(const Node& node);
  // Fractional float elements lent to element-moving shape functions as probe symbols.
  struct RealProbes {
    std::vector<const Value*> inputs;
    std::vector<RealElement> elements;  // by probe index
    bool empty() const { return inputs.empty(); }
  };
  bool movesElements(const Node& node) const;
  RealProbes probeRealInputs(const Node& node);
  void resolveRealProbes(const Node& node, ShapeContext& context, const RealProbes& probes);
  void inferFunctionCall(const Node& node, const Function& function);
  // `reason` is built only when some output is missing.
  // Outputs keep the types the file declares for them unless `keepDeclared` is false (after an error).
  void markMissingOutputs(const Node& node, const std::function<std::string()>& reason, bool keepDeclared = true);
  bool inputsReady(const Node& node, const Graph& graph) const;
  void setGraphInputs(const Graph& graph);
  void setInitializers(const Graph& graph);
  int64_t opsetFor(const std::string& domain) const;
  Dim inputDim(const Dim& dim, const std::string& inputName, size_t index) const;

  const Model& model_;
  const ShapeInferenceOptions& options_;
  ShapeInference& result_;
  std::unordered_map<const Value*, InferredValue>* table_;
  const std::vector<OpsetImport>* imports_;
  const Node* functionCall_ = nullptr;
  std::vector<Attribute> callAttributes_;  // the call's attributes, references resolved, defaults added
  int functionDepth_ = 0;
  // Topological orders of the graphs whose stored order is not one.
  std::unordered_map<const Graph*, std::vector<Node*>> sortedOrders_;
};

}  // namespace onyx
