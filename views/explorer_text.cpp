#include "explorer_text.h"

namespace onyx::views {
namespace {

QString redText(const QString& text) {
  return QStringLiteral("<span style=\"color:%1\">%2</span>")
      .arg(unknownDimColor().name(), text.toHtmlEscaped());
}

}  // namespace

QColor unknownDimColor() {
  return QColor(0xc6, 0x28, 0x28);
}

QString typeHtml(const Type& type) {
  if (type.isNone()) return redText(QStringLiteral("?"));
  if (type.kind() != Type::Kind::Tensor && type.kind() != Type::Kind::SparseTensor)
    return qs(type.toString()).toHtmlEscaped();
  QString html = qs(std::string(dataTypeName(type.elemType()))).toHtmlEscaped();
  if (!type.shape()) return html + redText(QStringLiteral("[?]"));
  html += '[';
  const Shape& shape = *type.shape();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) html += QStringLiteral(", ");
    html += shape[i].isUnknown() ? redText(QStringLiteral("?")) : qs(shape[i].toString()).toHtmlEscaped();
  }
  return html + ']';
}

const Type& typeOf(const ModelDocument& document, const Value& value) {
  return document.shownType(value);
}

bool hasUnknownDims(const Type& type) {
  if (type.isNone()) return true;
  if (type.kind() != Type::Kind::Tensor && type.kind() != Type::Kind::SparseTensor) return false;
  if (!type.shape()) return true;
  for (const Dim& dim : *type.shape())
    if (dim.isUnknown()) return true;
  return false;
}

Selection nodeSelection(const Node& node) {
  return Selection{node.graph(), node.id(), nullptr};
}

Selection valueSelection(const Value& value) {
  return Selection{value.graph(), kNoNode, &value};
}

QString selectionName(const Selection& selection) {
  if (selection.value) return qs(selection.value->name());
  if (selection.node == kNoNode || !selection.graph) return {};
  const Node* node = selection.graph->findNode(selection.node);
  if (!node) return {};
  return qs(node->name().empty() ? node->describe() : node->name());
}

}  // namespace onyx::views
