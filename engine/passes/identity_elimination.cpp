// identity-elimination: nodes that pass their input through unchanged. Reshape, Expand, Squeeze, Unsqueeze
// and Flatten count when the inferred output shape equals the input shape dim by dim (symbolic dims compare
// as expressions), as in PFVM's "this Reshape can be Identity"; unknown dims keep the node, with the reason.
#include <fmt/format.h>

#include <cctype>

#include "passes/all_passes.h"

namespace onyx::passes {

namespace {

const Type* typeOf(PatternContext& context, const Value* value) {
  if (!value) return nullptr;
  if (const InferredValue* inferred = context.pass().shapes().find(value)) return &inferred->type;
  return &value->type();
}

// Whether the node's output 0 has the same shape as its input 0; a reason when that cannot be shown.
std::optional<std::string> whyShapeMayDiffer(PatternContext& context, const Node& node) {
  const Value* in = node.input(0);
  const Value* out = node.output(0);
  const Type* inType = typeOf(context, in);
  const Type* outType = typeOf(context, out);
  if (!inType || !inType->shape()) return "shape of " + valueRef(in) + " unknown";
  if (!outType || !outType->shape()) return "shape of " + valueRef(out) + " unknown";
  const Shape& a = *inType->shape();
  const Shape& b = *outType->shape();
  if (a.size() != b.size()) return fmt::format("rank changes from {} to {}", a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].isUnknown()) return fmt::format("dim {} of {} unknown", i, valueRef(in));
    if (b[i].isUnknown()) return fmt::format("dim {} of {} unknown", i, valueRef(out));
    if (!(a[i].expr() == b[i].expr()))
      return fmt::format("dim {} changes from {} to {}", i, a[i].toString(), b[i].toString());
  }
  return std::nullopt;
}

bool isIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return false;
  return true;
}

// Why the node is not an identity; nullopt when it is (output 0 equals input 0).
std::optional<std::string> whyNotIdentity(PatternContext& context, const Node& node) {
  const std::string& op = node.opType();
  if (op == "Identity") {
    const Type* type = typeOf(context, node.input(0));
    if (type && !type->isNone() && !type->isTensor() && node.input(0)->graph() != node.graph())
      return "passes an outer-scope " + type->toString();
    return std::nullopt;
  }
  if (op == "Dropout") {
    if (const Value* mask = node.output(1); mask && !mask->uses().empty())
      return "its mask output " + valueRef(mask) + " is used";
    if (const Value* training = node.input(2)) {
      std::optional<Tensor> mode = constantValue(training);
      if (!mode) return "training_mode " + valueRef(training) + " is not a constant";
      auto bytes = mode->bytesOrEmpty();
      if (bytes.empty() || bytes[0] != std::byte{0}) return "training_mode is true";
    }
    if (node.attrInt("is_test", 1) == 0 && context.opsetVersion("") < 7) return "is_test is 0";
    return std::nullopt;
  }
  if (op == "Cast") {
    const Type* type = typeOf(context, node.input(0));
    if (!type || type->elemType() == DataType::Undefined)
      return "element type of " + valueRef(node.input(0)) + " unknown";
    if (int64_t(type->elemType()) != node.attrInt("to", -1))
      return "casts " + std::string(dataTypeName(type->elemType())) + " to another type";
    return std::nullopt;
  }
  if (op == "Transpose") {
    if (auto perm = node.attrInts("perm")) {
      if (!isIdentityPermutation(*perm)) return "perm is not the identity";
      return std::nullopt;
    }
    const Type* type = typeOf(context, node.input(0));
    if (!type || !type->shape()) return "rank of " + valueRef(node.input(0)) + " unknown";
    if (type->shape()->size() > 1) return "the default perm reverses the dims";
    return std::nullopt;
  }
  if (op == "Reshape" || op == "Expand" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten")
    return whyShapeMayDiffer(context, node);
  return "not an identity op";
}

bool isUndecided(const std::string& reason) {
  return reason.find("unknown") != std::string::npos || reason.find("not a constant") != std::string::npos ||
         reason.find("is used") != std::string::npos || reason.find("outer-scope") != std::string::npos ||
         reason.find("training_mode") != std::string::npos;
}

std::string counterName(const std::string& op) {
  std::string name;
  for (char c : op) {
    if (std::isupper(static_cast<unsigned char>(c)) && !name.empty()) name += '-';
    name += char(std::tolower(static_cast<unsigned char>(c)));
  }
  if (name.ends_with('y')) return name.substr(0, name.size() - 1) + "ies-removed";  // identities
  return name + "s-removed";
}

}  // namespace

std::span<const std::string_view> IdentityElimination::rootOps() const {
  static constexpr std::string_view kOps[] = {"Identity", "Dropout", "Cast",      "Transpose", "Reshape",
                                              "Expand",   "Squeeze", "Unsqueeze", "Flatten"};
  return kOps;
}

PatternResult IdentityElimination::matchAndRewrite(Node& node, PatternContext& context) {
  if (!node.input(0) || !node.output(0)) return PatternResult::noMatch();
  if (auto reason = whyNotIdentity(context, node)) {
    // Only undecided candidates are worth a reason; a Reshape that visibly changes the shape is not one.
    return isUndecided(*reason) ? PatternResult::skipped(*reason) : PatternResult::noMatch();
  }
  std::vector<Value*> replacements(node.outputCount(), nullptr);
  replacements[0] = node.input(0);
  if (auto reason = whyNotReplaceable(node, replacements)) return PatternResult::skipped(*reason);
  std::string counter = counterName(node.opType());
  replaceNode(context.rewriter(), &node, replacements);
  return PatternResult::rewritten(counter);
}

}  // namespace onyx::passes
