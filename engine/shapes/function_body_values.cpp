#include "shapes/function_body_values.h"

#include <memory>

namespace onyx {
namespace {

std::shared_ptr<const DimOrigin> disagreement(const std::string& functionName, const std::string& what) {
  return std::make_shared<DimOrigin>(
      DimOrigin{kNoNode, {}, {}, "calls of function '" + functionName + "' disagree on " + what});
}

void mergeShape(InferredValue& kept, const InferredValue& call, const std::string& functionName) {
  const std::optional<Shape>& theirs = call.type.shape();
  std::optional<Shape>& ours = kept.type.mutableShape();
  if (!ours) return;
  if (!theirs || theirs->size() != ours->size()) {
    ours.reset();
    kept.rankOrigin = theirs ? disagreement(functionName, "the rank") : call.rankOrigin;
    return;
  }
  for (size_t d = 0; d < ours->size(); ++d) {
    if ((*ours)[d] == (*theirs)[d] || (*ours)[d].isUnknown()) continue;
    (*ours)[d] = (*theirs)[d].isUnknown() ? (*theirs)[d]
                                          : Dim::unknown(disagreement(functionName, "dim " + std::to_string(d)));
  }
}

void merge(InferredValue& kept, const InferredValue& call, const std::string& functionName) {
  bool sameKind = kept.type.kind() == call.type.kind() &&
                  (!kept.type.isTensor() || kept.type.elemType() == call.type.elemType());
  if (!sameKind) {
    kept = InferredValue{};
    kept.rankOrigin = disagreement(functionName, "the type");
    return;
  }
  if (kept.type.isTensor()) mergeShape(kept, call, functionName);
  if (kept.value != call.value) kept.value.reset();
  if (kept.constant != call.constant) kept.constant = nullptr;
  if (kept.sequenceElements != call.sequenceElements) kept.sequenceElements.reset();
}

}  // namespace

void keepFunctionBodyValues(std::unordered_map<const Value*, InferredValue>& kept,
                            const std::unordered_map<const Value*, InferredValue>& body,
                            const std::string& functionName) {
  for (const auto& [value, inferred] : body) {
    auto [slot, inserted] = kept.try_emplace(value, inferred);
    if (!inserted) merge(slot->second, inferred, functionName);
  }
}

}  // namespace onyx
