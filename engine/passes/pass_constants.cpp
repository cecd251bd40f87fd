// The constant and shape queries of pass_util.h: what a value holds when it is constant, and its shape as the
// passes see it.
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

template <class T>
Tensor vectorTensor(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& values) {
  return Tensor::fromValues(dtype, std::move(dims), values);
}

// A constant's elements of type `From` as `To`; nullopt when the storage does not hold them all.
template <class To, class From>
std::optional<std::vector<To>> elements(const Tensor& tensor) {
  auto values = tensor.values<From>();
  if (int64_t(values.size()) != tensor.elementCount()) return std::nullopt;
  return std::vector<To>(values.begin(), values.end());
}

std::optional<Tensor> loadedConstant(const Value* value) {
  auto tensor = constantValue(value);
  if (!tensor || tensor->isExternal()) return std::nullopt;  // not read for a pattern: weights stay mapped
  return tensor;
}

}  // namespace

const Tensor* fixedInitializer(const Value* value) {
  if (!value || value->isGraphInput()) return nullptr;
  return value->initializer();
}

std::optional<Tensor> constantValue(const Value* value) {
  if (!value) return std::nullopt;
  if (const Tensor* tensor = fixedInitializer(value)) return *tensor;
  const Node* node = value->producer();
  if (!node || node->opType() != "Constant" || !isStandardDomain(node->domain()) ||
      node->attributes().size() != 1)
    return std::nullopt;
  const Attribute& a = node->attributes().front();
  if (a.isReference()) return std::nullopt;
  if (a.name() == "value" && a.getTensor()) return *a.getTensor();
  if (a.name() == "value_float" && a.getFloat())
    return vectorTensor(DataType::Float, {}, std::vector<float>{*a.getFloat()});
  if (a.name() == "value_int" && a.getInt())
    return vectorTensor(DataType::Int64, {}, std::vector<int64_t>{*a.getInt()});
  if (a.name() == "value_floats" && a.getFloats())
    return vectorTensor(DataType::Float, {int64_t(a.getFloats()->size())}, *a.getFloats());
  if (a.name() == "value_ints" && a.getInts())
    return vectorTensor(DataType::Int64, {int64_t(a.getInts()->size())}, *a.getInts());
  if (a.name() == "value_string" && a.getString()) return Tensor::strings({}, {*a.getString()});
  if (a.name() == "value_strings" && a.getStrings())
    return Tensor::strings({int64_t(a.getStrings()->size())}, *a.getStrings());
  return std::nullopt;
}

std::optional<std::vector<double>> constantReals(const Value* value) {
  auto tensor = loadedConstant(value);
  if (!tensor) return std::nullopt;
  if (tensor->dtype() == DataType::Float) return elements<double, float>(*tensor);
  if (tensor->dtype() == DataType::Double) return elements<double, double>(*tensor);
  return std::nullopt;
}

std::optional<std::vector<int64_t>> constantInts(const Value* value) {
  auto tensor = loadedConstant(value);
  if (!tensor) return std::nullopt;
  if (tensor->dtype() == DataType::Int64) return elements<int64_t, int64_t>(*tensor);
  if (tensor->dtype() == DataType::Int32) return elements<int64_t, int32_t>(*tensor);
  return std::nullopt;
}

std::optional<std::vector<float>> constantFloats(const Value* value) {
  auto tensor = loadedConstant(value);
  if (!tensor || tensor->dtype() != DataType::Float) return std::nullopt;
  return elements<float, float>(*tensor);
}

std::optional<double> constantScalar(const Value* value) {
  auto reals = constantReals(value);
  if (reals && reals->size() == 1) return (*reals)[0];
  auto ints = constantInts(value);
  if (ints && ints->size() == 1) return double((*ints)[0]);
  return std::nullopt;
}

std::optional<Shape> shapeOf(PassContext& context, const Value* value) {
  if (!value) return std::nullopt;
  if (const InferredValue* inferred = context.shapes().find(value)) {
    if (inferred->type.isTensor() && inferred->type.shape()) return inferred->type.shape();
  }
  if (value->type().isTensor() && value->type().shape()) return value->type().shape();
  if (auto tensor = constantValue(value)) {
    Shape shape;
    for (int64_t d : tensor->dims()) shape.push_back(Dim(d));
    return shape;
  }
  return std::nullopt;
}

DataType elemTypeOf(PassContext& context, const Value* value) {
  if (!value) return DataType::Undefined;
  if (value->type().isTensor() && value->type().elemType() != DataType::Undefined)
    return value->type().elemType();
  if (const InferredValue* inferred = context.shapes().find(value))
    if (inferred->type.isTensor()) return inferred->type.elemType();
  if (auto tensor = constantValue(value)) return tensor->dtype();
  return DataType::Undefined;
}

}  // namespace onyx::passes
