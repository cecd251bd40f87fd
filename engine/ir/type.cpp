#include "ir/type.h"

#include "util/limits.h"

namespace onyx {

std::string shapeToString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += shape[i].toString();
  }
  return text + "]";
}

std::optional<int64_t> staticElementCount(const Shape& shape) {
  int64_t count = 1;
  for (const Dim& dim : shape) {
    auto value = dim.value();
    if (!value) return std::nullopt;
    // Dims whose product does not fit in int64 (a hostile file's) have no count, not a wrapped one.
    auto product = checkedMul(count, *value);
    if (!product) return std::nullopt;
    count = *product;
  }
  return count;
}

std::optional<std::vector<int64_t>> staticDims(const Shape& shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (const Dim& dim : shape) {
    auto value = dim.value();
    if (!value) return std::nullopt;
    dims.push_back(*value);
  }
  return dims;
}

Type Type::tensor(DataType elem, std::optional<Shape> shape) {
  Type type;
  type.kind_ = Kind::Tensor;
  type.elem_ = elem;
  type.shape_ = std::move(shape);
  return type;
}

Type Type::sparseTensor(DataType elem, std::optional<Shape> shape) {
  Type type = tensor(elem, std::move(shape));
  type.kind_ = Kind::SparseTensor;
  return type;
}

Type Type::sequence(Type element) {
  Type type;
  type.kind_ = Kind::Sequence;
  type.element_ = std::make_shared<const Type>(std::move(element));
  return type;
}

Type Type::optional(Type element) {
  Type type = sequence(std::move(element));
  type.kind_ = Kind::Optional;
  return type;
}

Type Type::map(DataType key, Type value) {
  Type type = sequence(std::move(value));
  type.kind_ = Kind::Map;
  type.elem_ = key;
  return type;
}

const Type& Type::element() const {
  static const Type none;
  return element_ ? *element_ : none;
}

std::string Type::toString() const {
  switch (kind_) {
    case Kind::None:
      return "?";
    case Kind::Tensor:
    case Kind::SparseTensor: {
      std::string text = kind_ == Kind::SparseTensor ? "sparse(" : "";
      text += dataTypeName(elem_);
      text += shape_ ? shapeToString(*shape_) : "[...]";
      return kind_ == Kind::SparseTensor ? text + ")" : text;
    }
    case Kind::Sequence:
      return "seq(" + element().toString() + ")";
    case Kind::Optional:
      return "optional(" + element().toString() + ")";
    case Kind::Map:
      return "map(" + std::string(dataTypeName(elem_)) + ", " + element().toString() + ")";
  }
  return "?";
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_ || a.elem_ != b.elem_ || a.shape_ != b.shape_ || a.denotation_ != b.denotation_)
    return false;
  if (!a.element_ || !b.element_) return !a.element_ && !b.element_;
  return *a.element_ == *b.element_;
}

}  // namespace onyx
