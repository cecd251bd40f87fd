#pragma once
// One dimension of a tensor shape: a static size, a symbolic expression over graph symbols (`N`,
// `M + N`, `floor((H - 1)/2) + 1`), or unknown. An unknown dim remembers where and why it became unknown,
// so users can be sent to the node that lost the information rather than to each consumer.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/sym_expr.h"

namespace onyx {

using NodeId = uint64_t;
constexpr NodeId kNoNode = 0;

struct DimOrigin {
  NodeId node = kNoNode;  // kNoNode: the model itself (a graph input without a shape, say)
  std::string nodeName;   // for messages; the id is what tools key on
  std::string opType;
  std::string reason;     // "NonZero: output count depends on the data"
};

class Dim {
 public:
  Dim() = default;  // unknown, without origin (as loaded from a file that gives neither value nor param)
  Dim(int64_t value) : expr_(value), known_(true) {}  // NOLINT: implicit, shapes read `{1, 3, 224, 224}`
  Dim(SymExpr expr) : expr_(std::move(expr)), known_(true) {}  // NOLINT
  static Dim symbol(std::string_view name) { return Dim(SymExpr::symbol(name)); }
  static Dim unknown(std::shared_ptr<const DimOrigin> origin) {
    Dim dim;
    dim.origin_ = std::move(origin);
    return dim;
  }

  bool isUnknown() const { return !known_; }
  bool isStatic() const { return known_ && expr_.isConstant(); }
  bool isSymbolic() const { return known_ && !expr_.isConstant(); }
  // Static value; nullopt for symbolic and unknown dims.
  std::optional<int64_t> value() const { return isStatic() ? expr_.constantValue() : std::nullopt; }
  const SymExpr& expr() const { return expr_; }  // meaningful unless isUnknown()
  const std::shared_ptr<const DimOrigin>& origin() const { return origin_; }

  // The ONNX TensorShapeProto.Dimension.denotation, kept for lossless round trips.
  const std::string& denotation() const { return denotation_; }
  void setDenotation(std::string denotation) { denotation_ = std::move(denotation); }

  std::string toString() const { return known_ ? expr_.toString() : "?"; }

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.known_ == b.known_ && (!a.known_ || a.expr_ == b.expr_) && a.denotation_ == b.denotation_;
  }

 private:
  SymExpr expr_;
  bool known_ = false;
  std::shared_ptr<const DimOrigin> origin_;
  std::string denotation_;
};

using Shape = std::vector<Dim>;

// "[N, 3, 224, 224]"; "[]" for a scalar.
std::string shapeToString(const Shape& shape);
// Product of static dims; nullopt if any dim is not static.
std::optional<int64_t> staticElementCount(const Shape& shape);
std::optional<std::vector<int64_t>> staticDims(const Shape& shape);

}  // namespace onyx
