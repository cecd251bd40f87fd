#include "op_documentation_rows.h"

#include <QObject>
#include <QStringList>

#include "catalog/op_registry.h"
#include "onnx/op_documentation.h"
#include "ops/op_report.h"

namespace onyx::views {
namespace {

QString qs(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& name, const QString& value,
                        const QString& tip = {}) {
  auto* row = new QTreeWidgetItem(parent, {name, value});
  // The value column is one line: the whole text is in the tooltip.
  row->setToolTip(1, tip.isEmpty() ? value : tip);
  return row;
}

// "cpu: reference, dnnl; vulkan", from the catalogue's kernel list (as `onyx ops NAME` lists them).
QString kernelsText(const Node& node) {
  static const std::vector<ops::OpInfo> catalogue = ops::describeOps();
  QStringList cpu;
  bool vulkan = false;
  for (const ops::OpInfo& op : catalogue) {
    const OpSchema& schema = *op.schema;
    const bool sameDomain = schema.domain == node.domain() || (schema.domain.empty() && node.domain() == "ai.onnx");
    if (schema.opType != node.opType() || !sameDomain) continue;
    for (const ops::OpKernelInfo& kernel : op.kernels) {
      if (kernel.backend == "cpu") cpu << qs(kernel.variant);
      else vulkan = true;
    }
  }
  if (cpu.isEmpty() && !vulkan) return QObject::tr("none");
  QString text = cpu.isEmpty() ? QObject::tr("cpu: none") : QObject::tr("cpu: %1").arg(cpu.join(QStringLiteral(", ")));
  return vulkan ? text + QObject::tr("; vulkan") : text;
}

void addParameters(QTreeWidgetItem* section, const std::vector<OpParameterDoc>& parameters) {
  for (const OpParameterDoc& parameter : parameters) {
    QString name = qs(parameter.name);
    if (parameter.optional) name += QObject::tr(" (optional)");
    if (parameter.variadic) name += QObject::tr(" (variadic)");
    QString type = qs(parameter.typeText);
    QString value = parameter.description.empty() ? type : type + QStringLiteral(": ") + qs(parameter.description);
    QString tip = value;
    if (!parameter.allowedTypes.empty()) tip += QStringLiteral("\n") + type + QStringLiteral(" in ") + qs(parameter.allowedTypes);
    addRow(section, name, value, tip);
  }
}

}  // namespace

QTreeWidgetItem* addOpDocumentation(QTreeWidget* tree, const Node& node, int64_t opset) {
  auto* section = new QTreeWidgetItem(tree, {QObject::tr("Op")});
  const std::optional<OpDocumentation> doc =
      onnxOpDocumentation(node.domain(), node.opType(), opset > 0 ? opset : 1 << 20);
  if (doc) {
    addRow(section, QObject::tr("summary"), qs(doc->summary), qs(doc->doc).trimmed());
    addRow(section, QObject::tr("schema"),
           QObject::tr("%1 %2, since opset %3%4")
               .arg(doc->domain.empty() ? QStringLiteral("ai.onnx") : qs(doc->domain), qs(doc->opType))
               .arg(doc->sinceVersion)
               .arg(doc->deprecated ? QObject::tr(" (deprecated)") : QString()));
  } else {
    addRow(section, QObject::tr("summary"),
           QObject::tr("no ONNX schema for %1 in domain %2")
               .arg(qs(node.opType()), node.domain().empty() ? QStringLiteral("ai.onnx") : qs(node.domain())));
  }
  const OpSchema* known = opRegistry().find(node.domain(), node.opType());
  addRow(section, QObject::tr("category"),
         known ? qs(opCategoryName(known->category)) : QObject::tr("not in Onyx's catalogue"));
  addRow(section, QObject::tr("kernels"), kernelsText(node));
  if (!doc) return section;
  auto* inputs = addRow(section, QObject::tr("inputs"), QString::number(doc->inputs.size()));
  addParameters(inputs, doc->inputs);
  auto* outputs = addRow(section, QObject::tr("outputs"), QString::number(doc->outputs.size()));
  addParameters(outputs, doc->outputs);
  auto* attributes = addRow(section, QObject::tr("attributes"), QString::number(doc->attributes.size()));
  for (const OpAttributeDoc& attribute : doc->attributes) {
    QString value = qs(attribute.type);
    if (attribute.required) value += QObject::tr(", required");
    else if (!attribute.defaultValue.empty()) value += QStringLiteral(" = ") + qs(attribute.defaultValue);
    if (!attribute.description.empty()) value += QStringLiteral(": ") + qs(attribute.description);
    addRow(attributes, qs(attribute.name), value);
  }
  return section;
}

}  // namespace onyx::views
