#include "graph/edge_label.h"

#include "ir/data_type.h"
#include "model_document.h"
#include "shapes/shape_inference.h"

namespace onyx::views {
namespace {

void appendType(const Type& type, EdgeLabel& label) {
  auto add = [&](QString text, bool unresolved = false) {
    if (!unresolved && !label.runs.empty() && !label.runs.back().unresolved) {
      label.runs.back().text += text;
    } else {
      label.runs.push_back({std::move(text), unresolved});
    }
    label.unresolved = label.unresolved || unresolved;
  };
  switch (type.kind()) {
    case Type::Kind::Tensor:
    case Type::Kind::SparseTensor: {
      add(QString::fromStdString(std::string(dataTypeName(type.elemType()))));
      if (!type.shape()) {
        add(QStringLiteral("[?]"), true);
        return;
      }
      add(QStringLiteral("["));
      const Shape& shape = *type.shape();
      for (size_t i = 0; i < shape.size(); ++i) {
        if (i) add(QStringLiteral(", "));
        add(QString::fromStdString(shape[i].toString()), shape[i].isUnknown());
      }
      add(QStringLiteral("]"));
      return;
    }
    case Type::Kind::None:
      return;
    default:
      add(QString::fromStdString(type.toString()));
      return;
  }
}

}  // namespace

QString EdgeLabel::plainText() const {
  QString text;
  for (const LabelRun& run : runs) text += run.text;
  return text;
}

EdgeLabel edgeLabelOf(const Value* value, const ShapeInference* inference) {
  EdgeLabel label;
  if (!value) return label;
  const InferredValue* inferred = inference ? inference->find(value) : nullptr;
  const Type& type = inferred && !inferred->type.isNone() ? inferred->type : value->type();
  appendType(type, label);
  return label;
}

EdgeLabelSource edgeLabelsFrom(const ShapeInference* inference) {
  return [inference](const Value* value) { return edgeLabelOf(value, inference); };
}

EdgeLabelSource edgeLabelsFrom(const ModelDocument& document) {
  return [&document](const Value* value) {
    EdgeLabel label;
    if (!value) return label;
    const Type& shown = document.shownType(*value);
    appendType(shown.isNone() ? value->type() : shown, label);
    return label;
  };
}

}  // namespace onyx::views
