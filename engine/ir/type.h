#pragma once
// The type of a value: tensor, sequence, optional, map or sparse tensor, as onnx.proto's TypeProto.
#include <memory>
#include <optional>
#include <string>

#include "ir/data_type.h"
#include "ir/dim.h"

namespace onyx {

class Type {
 public:
  enum class Kind { None, Tensor, SparseTensor, Sequence, Optional, Map };

  Type() = default;  // no type known
  static Type tensor(DataType elem, std::optional<Shape> shape = std::nullopt);
  static Type sparseTensor(DataType elem, std::optional<Shape> shape = std::nullopt);
  static Type sequence(Type element);
  static Type optional(Type element);
  static Type map(DataType key, Type value);

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  // Element type of a tensor or sparse tensor, the key type of a map.
  DataType elemType() const { return elem_; }
  void setElemType(DataType elem) { elem_ = elem; }
  // Shape of a (sparse) tensor; nullopt when the rank is unknown.
  const std::optional<Shape>& shape() const { return shape_; }
  std::optional<Shape>& mutableShape() { return shape_; }
  void setShape(std::optional<Shape> shape) { shape_ = std::move(shape); }
  // Element type of a sequence or optional, the value type of a map.
  const Type& element() const;

  const std::string& denotation() const { return denotation_; }
  void setDenotation(std::string denotation) { denotation_ = std::move(denotation); }

  // "float32[N, 3, 224, 224]", "seq(float32[?])", "optional(int64[])", "map(int64, float32)".
  std::string toString() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::None;
  DataType elem_ = DataType::Undefined;
  std::optional<Shape> shape_;
  std::shared_ptr<const Type> element_;
  std::string denotation_;
};

}  // namespace onyx
