#include "inspector_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QScrollBar>
#include <algorithm>

#include "analysis/model_graphs.h"
#include "analysis/tensor_preview.h"
#include "explorer_text.h"
#include "onnx/node_metadata.h"
#include "op_documentation_rows.h"
#include "rich_text_delegate.h"
#include "shapes/shape_report.h"

namespace onyx::views {
namespace {

constexpr int kNameColumn = InspectorView::kNameColumn;
constexpr int kValueColumn = InspectorView::kValueColumn;
constexpr int kLinkColumn = InspectorView::kLinkColumn;

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& name, const QString& value) {
  return new QTreeWidgetItem(parent, {name, value});
}

void setTarget(QTreeWidgetItem* item, const Selection& target) {
  item->setData(kNameColumn, InspectorView::kTargetRole, QVariant::fromValue(target));
  item->setForeground(kNameColumn, QApplication::palette().color(QPalette::Link));
}

void setType(QTreeWidgetItem* item, const Type& type) {
  item->setText(kValueColumn, qs(type.toString()));
  item->setData(kValueColumn, RichTextDelegate::kHtmlRole, typeHtml(type));
}

void addPreviewRows(QTreeWidgetItem* parent, const Tensor& tensor) {
  TensorPreview preview = previewTensor(tensor);
  parent->setToolTip(kValueColumn, qs(preview.summary()));
  addRow(parent, QObject::tr("type"), qs(preview.dtype + preview.shape));
  addRow(parent, QObject::tr("elements"), QString::number(preview.elements));
  if (!preview.error.empty()) {
    addRow(parent, QObject::tr("data"), qs(preview.error))->setForeground(kValueColumn, unknownDimColor());
    return;
  }
  if (preview.hasStatistics) {
    addRow(parent, QObject::tr("min"), qs(formatNumber(preview.min)));
    addRow(parent, QObject::tr("max"), qs(formatNumber(preview.max)));
    addRow(parent, QObject::tr("mean"), qs(formatNumber(preview.mean)));
  }
  if (preview.nanCount > 0) addRow(parent, QObject::tr("NaN"), QString::number(preview.nanCount));
  QStringList values;
  for (const std::string& value : preview.firstValues) values << qs(value);
  if (preview.truncated) values << QStringLiteral("...");
  addRow(parent, QObject::tr("values"),
         QLatin1Char('[') + values.join(QStringLiteral(", ")) + QLatin1Char(']'));
}

// "main graph", "body 'then_branch' of If '/cond/If' (#7)", "function acme::Pool".
QString graphLabel(const Model& model, const Graph& graph) {
  if (&graph == &model.graph()) return QObject::tr("main graph");
  if (const Node* owner = graph.owner()) {
    for (const Attribute& attribute : owner->attributes())
      for (const Graph* body : attribute.subgraphs())
        if (body == &graph)
          return QObject::tr("body '%1' of %2").arg(qs(attribute.name()), qs(owner->describe()));
  }
  for (const auto& function : model.functions)
    if (function->body.get() == &graph)
      return QObject::tr("function %1")
          .arg(qs((function->domain.empty() ? "" : function->domain + "::") + function->name));
  return QObject::tr("body");
}

QString symbolsOf(const Dim& dim) {
  QStringList names;
  for (const std::string& symbol : dim.expr().symbols()) names << qs(symbol);
  return names.join(QStringLiteral(", "));
}

// Whether the selection still points into the model: edits may have removed what it named.
bool stillInModel(const Model& model, const Selection& selection) {
  auto graphs = allGraphs(model);
  if (std::find(graphs.begin(), graphs.end(), selection.graph) == graphs.end()) return false;
  if (selection.value) {
    auto defined = selection.graph->definedValues();
    return std::find(defined.begin(), defined.end(), selection.value) != defined.end();
  }
  return selection.graph->findNode(selection.node) != nullptr;
}

// "fused from Conv #12, BatchNormalization #13": the nodes of the model as first loaded that the passes made
// this node from (ir/node_origin.h); empty when none.
QString originText(const Node& node) {
  const std::vector<NodeOrigin> origins = nodeOrigins(node);
  if (origins.empty()) return {};
  QStringList parts;
  for (const NodeOrigin& origin : origins)
    parts << QStringLiteral("%1 #%2").arg(qs(origin.opType)).arg(origin.id);
  QString joined = parts.join(QStringLiteral(", "));
  return origins.size() > 1 ? QObject::tr("fused from %1").arg(joined)
                                   : QObject::tr("made from %1").arg(joined);
}

}  // namespace

InspectorView::InspectorView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("Property"), tr("Value"), QString()});
  header()->setSectionResizeMode(kNameColumn, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(false);
  header()->setSectionResizeMode(kValueColumn, QHeaderView::Stretch);
  header()->setSectionResizeMode(kLinkColumn, QHeaderView::ResizeToContents);
  setItemDelegate(new RichTextDelegate(this));
  setUniformRowHeights(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &InspectorView::showContextMenu);
  // The click rebuilds this tree (the selection changes): leave the view's click handling first.
  connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    if (auto target = targetOf(item))
      QMetaObject::invokeMethod(
          this,
          [this, target = *target] {
            if (document_) document_->focus(target);
          },
          Qt::QueuedConnection);
  });
}

void InspectorView::setDocument(ModelDocument* document) {
  if (document_) disconnect(document_, nullptr, this, nullptr);
  document_ = document;
  if (document_) {
    connect(document_, &ModelDocument::selectionChanged, this, &InspectorView::rebuild);
    connect(document_, &ModelDocument::shapesChanged, this, &InspectorView::rebuild);
    connect(document_, &ModelDocument::changesSettled, this, &InspectorView::onChangesSettled);
  }
  rebuild();
}

QTreeWidgetItem* InspectorView::section(const QString& title) const {
  for (int i = 0; i < topLevelItemCount(); ++i)
    if (topLevelItem(i)->text(kNameColumn) == title) return topLevelItem(i);
  return nullptr;
}

QTreeWidgetItem* InspectorView::row(const QString& sectionTitle, const QString& name) const {
  QTreeWidgetItem* parent = section(sectionTitle);
  if (!parent) return nullptr;
  for (int i = 0; i < parent->childCount(); ++i)
    if (parent->child(i)->text(kNameColumn) == name) return parent->child(i);
  return nullptr;
}

std::optional<Selection> InspectorView::targetOf(const QTreeWidgetItem* item) {
  if (!item) return std::nullopt;
  QVariant target = item->data(kNameColumn, kTargetRole);
  if (!target.canConvert<Selection>()) return std::nullopt;
  return target.value<Selection>();
}

void InspectorView::followLink(QTreeWidgetItem* item) {
  if (auto target = targetOf(item); target && document_) document_->focus(*target);
}

void InspectorView::onChangesSettled(const std::vector<ChangeEvent>& events) {
  if (!document_ || built_.empty()) return;
  if (std::any_of(events.begin(), events.end(), [this](const ChangeEvent& event) { return concerns(event); }))
    rebuild();
}

bool InspectorView::concerns(const ChangeEvent& event) const {
  using Kind = ChangeEvent::Kind;
  switch (event.kind) {
    case Kind::ValueRenamed:  // `name` is the old name
    case Kind::ValueTypeChanged:
    case Kind::InitializerChanged:
      if (shownValueNames_.contains(event.name)) return true;
      break;
    case Kind::NodeRenamed:
      if (linkedNodes_.contains(event.node)) return true;
      break;
    default:
      break;
  }
  // The node's own edits, and its outputs' (whose events name it as their producer). Only pointers are
  // compared: what the tree was built for may be gone with an undo history.
  if (built_.node != kNoNode) return event.graph == built_.graph && event.node == built_.node;
  // A value: any rewiring may add or drop one of its consumers, or remove the value with its producer.
  return event.kind == Kind::NodeAdded || event.kind == Kind::NodeRemoved || event.kind == Kind::InputsChanged ||
         event.kind == Kind::GraphInputsChanged || event.kind == Kind::GraphOutputsChanged;
}

void InspectorView::rebuild() {
  ++rebuilds_;
  const bool sameSelection = document_ && !built_.empty() && document_->selection() == built_;
  const int scroll = verticalScrollBar()->value();
  clear();
  if (!document_) {
    built_ = Selection{};
    return;
  }
  const Selection& selection = document_->selection();
  if (!sameSelection) {
    built_ = selection;
    builtDescription_.clear();
    shownValueNames_.clear();
    linkedNodes_.clear();
  }
  if (selection.empty()) return;
  if (!stillInModel(document_->model(), selection)) {
    showRemoved();
    return;
  }
  shownValueNames_.clear();
  linkedNodes_.clear();
  if (selection.value) {
    showValue(*selection.value);
  } else if (const Node* node = selection.graph->findNode(selection.node)) {
    showNode(*node);
  }
  expandAll();
  if (sameSelection) verticalScrollBar()->setValue(scroll);
}

void InspectorView::showRemoved() {
  // The selection stays: undoing the edit brings the node or value back, and this view with it.
  auto* removed = new QTreeWidgetItem(this, {tr("Removed")});
  addRow(removed, builtDescription_.isEmpty() ? tr("the selection") : builtDescription_, tr("removed by an edit"));
  expandAll();
}

void InspectorView::showNode(const Node& node) {
  builtDescription_ = qs(node.describe());
  linkedNodes_.insert(node.id());
  if (const Node* owner = node.graph()->owner()) linkedNodes_.insert(owner->id());  // named in "graph"
  for (const Value* value : node.inputs())
    if (value) shownValueNames_.insert(value->name());
  for (const Value* value : node.outputs())
    if (value) shownValueNames_.insert(value->name());
  auto* about = new QTreeWidgetItem(this, {tr("Node")});
  addRow(about, tr("op"), qs(node.opType()));
  addRow(about, tr("domain"), node.domain().empty() ? QStringLiteral("ai.onnx") : qs(node.domain()));
  addRow(about, tr("name"), node.name().empty() ? tr("(unnamed)") : qs(node.name()));
  addRow(about, tr("id"), QStringLiteral("#%1").arg(node.id()));
  QTreeWidgetItem* graphRow = addRow(about, tr("graph"), graphLabel(document_->model(), *node.graph()));
  if (const Node* owner = node.graph()->owner()) setTarget(graphRow, nodeSelection(*owner));
  if (!node.docString().empty()) addRow(about, tr("doc"), qs(node.docString()));
  if (QString origin = originText(node); !origin.isEmpty()) addRow(about, tr("origin"), origin);

  if (!node.attributes().empty()) {
    auto* attributes = new QTreeWidgetItem(this, {tr("Attributes")});
    for (const Attribute& attribute : node.attributes()) {
      QTreeWidgetItem* item = addRow(attributes, qs(attribute.name()), qs(attribute.valueToString()));
      if (attribute.isReference()) continue;
      if (const Tensor* tensor = attribute.getTensor()) {
        item->setText(kValueColumn, qs(previewTensor(*tensor).summary()));
        addPreviewRows(item, *tensor);
      }
      if (const Graph* body = attribute.getGraph())
        item->setText(kValueColumn, tr("graph, %n node(s)", nullptr, static_cast<int>(body->nodeCount())));
    }
  }
  addValueRows(new QTreeWidgetItem(this, {tr("Inputs")}), node.inputs(), tr("input"));
  addValueRows(new QTreeWidgetItem(this, {tr("Outputs")}), node.outputs(), tr("output"));
  addOpDocumentation(this, node, document_->model().opsetVersion(node.domain()));
}

void InspectorView::addValueRows(QTreeWidgetItem* section, const std::vector<Value*>& values,
                                 const QString& prefix) {
  for (size_t i = 0; i < values.size(); ++i) {
    const Value* value = values[i];
    if (!value) {
      addRow(section, QStringLiteral("(%1 %2 absent)").arg(prefix).arg(i), QString());
      continue;
    }
    QTreeWidgetItem* item = addRow(section, qs(value->name()), QString());
    setType(item, typeOf(*document_, *value));
    setTarget(item, valueSelection(*value));
    if (const Tensor* initializer = value->initializer()) addPreviewRows(item, *initializer);
  }
}

void InspectorView::showValue(const Value& value) {
  builtDescription_ = qs(value.name());
  shownValueNames_.insert(value.name());
  if (const Node* producer = value.producer()) linkedNodes_.insert(producer->id());
  for (const Use& use : value.uses())
    if (use.node) linkedNodes_.insert(use.node->id());
  const Type& type = typeOf(*document_, value);
  auto* about = new QTreeWidgetItem(this, {tr("Value")});
  addRow(about, tr("name"), qs(value.name()));
  setType(addRow(about, tr("type"), QString()), type);
  if (value.type() != type && !value.type().isNone())
    setType(addRow(about, tr("declared"), QString()), value.type());
  addRow(about, tr("graph"), graphLabel(document_->model(), *value.graph()));

  auto* producer = new QTreeWidgetItem(this, {tr("Producer")});
  if (const Node* node = value.producer()) {
    setTarget(addRow(producer, qs(node->describe()), tr("output %1").arg(value.producerOutput())),
              nodeSelection(*node));
  } else if (value.isInitializer()) {
    addRow(producer, tr("initializer"), QString());
  } else if (value.isGraphInput()) {
    addRow(producer, tr("graph input"), QString());
  } else {
    addRow(producer, tr("(undefined)"), tr("nothing defines this value"))
        ->setForeground(kValueColumn, unknownDimColor());
  }

  auto* consumers = new QTreeWidgetItem(this, {tr("Consumers")});
  for (const Use& use : value.uses()) {
    if (use.node) {
      setTarget(addRow(consumers, qs(use.node->describe()), tr("input %1").arg(use.index)),
                nodeSelection(*use.node));
    } else {
      addRow(consumers, tr("graph output"), tr("output %1").arg(use.index));
    }
  }
  if (value.uses().empty()) addRow(consumers, tr("(none)"), QString());

  if (type.isTensor() || type.kind() == Type::Kind::SparseTensor || type.isNone())
    addDimRows(new QTreeWidgetItem(this, {tr("Dims")}), value);
  if (const Tensor* initializer = value.initializer()) {
    auto* section = new QTreeWidgetItem(this, {tr("Initializer")});
    addPreviewRows(section, *initializer);
  }
}

void InspectorView::addDimRows(QTreeWidgetItem* section, const Value& value) {
  const Model& model = document_->model();
  const InferredValue* inferred = document_->shapes().find(&value);
  const Type& type = typeOf(*document_, value);
  auto addUnknown = [&](const QString& name, const std::shared_ptr<const DimOrigin>& origin) {
    QString reason = qs(describeOrigin(origin.get()));
    if (isDataDependent(origin.get())) reason += tr(" [data-dependent]");
    QTreeWidgetItem* item = addRow(section, name, QStringLiteral("? - ") + reason);
    item->setData(kValueColumn, RichTextDelegate::kHtmlRole,
                  QStringLiteral("<span style=\"color:%1\">?</span> - %2")
                      .arg(unknownDimColor().name(), reason.toHtmlEscaped()));
    item->setForeground(kNameColumn, unknownDimColor());
    item->setToolTip(kValueColumn, reason);
    const Node* originNode = origin ? findNodeInModel(model, origin->node) : nullptr;
    if (!originNode) return;
    item->setText(kLinkColumn, tr("why?"));
    item->setData(kNameColumn, kTargetRole, QVariant::fromValue(nodeSelection(*originNode)));
    item->setForeground(kLinkColumn, QApplication::palette().color(QPalette::Link));
    QFont link = item->font(kLinkColumn);
    link.setUnderline(true);
    item->setFont(kLinkColumn, link);
    item->setToolTip(kLinkColumn,
                     tr("Go to %1, where this dim became unknown").arg(qs(originNode->describe())));
  };
  if (!type.shape()) {
    addUnknown(tr("rank"), inferred ? inferred->rankOrigin : nullptr);
    return;
  }
  const onyx::Shape& shape = *type.shape();  // QFrame::Shape would shadow it
  if (shape.empty()) addRow(section, tr("(scalar)"), QString());
  for (size_t i = 0; i < shape.size(); ++i) {
    const Dim& dim = shape[i];
    const QString name = tr("dim %1").arg(i);
    if (dim.isUnknown()) {
      addUnknown(name, dim.origin());
    } else if (dim.isStatic()) {
      addRow(section, name, tr("%1 - static").arg(qs(dim.toString())));
    } else {
      addRow(section, name, tr("%1 - symbolic, in %2").arg(qs(dim.toString()), symbolsOf(dim)));
    }
  }
}

void InspectorView::showContextMenu(const QPoint& position) {
  QTreeWidgetItem* item = itemAt(position);
  if (!item || !document_) return;
  QMenu menu(this);
  std::optional<Selection> target = targetOf(item);
  const QString name = selectionName(target ? *target : document_->selection());
  QAction* copyName = menu.addAction(tr("Copy Name"), [name] { QApplication::clipboard()->setText(name); });
  copyName->setEnabled(!name.isEmpty());
  const QString text = item->text(kValueColumn);
  menu.addAction(tr("Copy Value"), [text] { QApplication::clipboard()->setText(text); })
      ->setEnabled(!text.isEmpty());
  menu.exec(viewport()->mapToGlobal(position));
}

}  // namespace onyx::views
