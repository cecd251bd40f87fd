#include "model_summary_view.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFont>
#include <QFontDatabase>
#include <QHeaderView>

namespace onyx::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}
QString count(int64_t number) {
  return qs(groupThousands(number));
}
QString orNone(const std::string& text) {
  return text.empty() ? QStringLiteral("(none)") : qs(text);
}

// Columns: the item, its count right next to it (so an op list reads like a table), then its value.
constexpr int kCountColumn = ModelSummaryView::kCountColumn;
constexpr int kValueColumn = ModelSummaryView::kValueColumn;

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& name, const QString& value,
                        const QString& count = {}) {
  auto* item = new QTreeWidgetItem(parent, {name, count, value});
  item->setTextAlignment(kCountColumn, Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

ModelSummaryView::ModelSummaryView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("Item"), tr("Count"), tr("Value")});
  headerItem()->setTextAlignment(kCountColumn, Qt::AlignRight | Qt::AlignVCenter);
  setAlternatingRowColors(true);
  setUniformRowHeights(true);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  header()->setStretchLastSection(false);
  header()->setSectionResizeMode(0, QHeaderView::Interactive);
  header()->setSectionResizeMode(kCountColumn, QHeaderView::Interactive);
  header()->setSectionResizeMode(kValueColumn, QHeaderView::Stretch);
  setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* copy = new QAction(tr("Copy Summary as Text"), this);
  connect(copy, &QAction::triggered, this, &ModelSummaryView::copyAsText);
  addAction(copy);
}

QTreeWidgetItem* ModelSummaryView::addSection(const QString& title, const QString& summary,
                                              const QString& count) {
  auto* item = new QTreeWidgetItem(this, {title, count, summary});
  item->setTextAlignment(kCountColumn, Qt::AlignRight | Qt::AlignVCenter);
  QFont bold = item->font(0);
  bold.setBold(true);
  item->setFont(0, bold);
  return item;
}

void ModelSummaryView::clearInfo() {
  info_ = {};
  clear();
}

void ModelSummaryView::setInfo(const ModelInfo& info) {
  info_ = info;
  clear();
  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);

  std::string producer = info.producerName;
  if (!info.producerVersion.empty()) producer += (producer.empty() ? "" : " ") + info.producerVersion;
  QTreeWidgetItem* model = addSection(tr("Model"), orNone(info.graphName), {});
  addRow(model, tr("IR version"), QString::number(info.irVersion));
  addRow(model, tr("Producer"), orNone(producer));
  addRow(model, tr("Domain"), orNone(info.domain));
  addRow(model, tr("Model version"), QString::number(info.modelVersion));
  addRow(model, tr("Graph name"), orNone(info.graphName));
  QStringList opsets;
  for (const OpsetImport& import : info.opsetImports)
    opsets << (import.domain.empty() ? QStringLiteral("ai.onnx") : qs(import.domain)) + " " +
                  QString::number(import.version);
  addRow(model, tr("Opsets"), opsets.isEmpty() ? tr("(none)") : opsets.join(", "));
  QTreeWidgetItem* metadata =
      addRow(model, tr("Metadata"), info.metadata.empty() ? tr("(none)") : QString(),
             info.metadata.empty() ? QString() : QString::number(info.metadata.size()));
  for (const StringPair& entry : info.metadata) addRow(metadata, qs(entry.key), qs(entry.value));

  for (auto [title, values] :
       {std::pair{tr("Inputs"), &info.inputs}, std::pair{tr("Outputs"), &info.outputs}}) {
    QTreeWidgetItem* section = addSection(title, {}, QString::number(values->size()));
    for (const auto& value : *values)
      addRow(section, qs(value.name), qs(value.type))->setFont(kValueColumn, mono);
  }

  QTreeWidgetItem* ops = addSection(tr("Operators"), tr("nodes in the main graph, %1 op types").arg(info.opCounts.size()),
                                    count(info.nodeCount));
  for (const auto& op : info.opCounts) addRow(ops, qs(op.label()), {}, count(op.count));

  QTreeWidgetItem* subgraphs = addSection(
      tr("Subgraphs"), tr("nodes in %1 bodies").arg(info.subgraphs.size()), count(info.subgraphNodeCount));
  std::vector<QTreeWidgetItem*> parents = {subgraphs};  // parents[d - 1] holds bodies of depth d
  for (const auto& subgraph : info.subgraphs) {
    size_t depth = size_t(std::max(subgraph.depth, 1));
    parents.resize(std::min(parents.size(), depth));
    while (parents.size() < depth) parents.push_back(parents.back());
    QTreeWidgetItem* item =
        addRow(parents[depth - 1], qs(subgraph.owner), qs(subgraph.attribute), count(subgraph.nodeCount));
    parents.push_back(item);
  }

  QTreeWidgetItem* parameters =
      addSection(tr("Parameters"), tr("elements, %1").arg(qs(humanBytes(info.parameterBytes))),
                 count(info.parameterCount));
  addRow(parameters, tr("Initializers"), {}, count(info.initializerCount));
  addRow(parameters, tr("Elements"), {}, count(info.parameterCount));
  addRow(parameters, tr("Bytes"), qs(humanBytes(info.parameterBytes)), count(info.parameterBytes));
  QTreeWidgetItem* external =
      addRow(parameters, tr("External data"), info.externalData.empty() ? tr("(none)") : QString(),
             info.externalData.empty() ? QString() : QString::number(info.externalData.size()));
  for (const auto& file : info.externalData)
    addRow(external, qs(file.location),
           tr("%1 tensors, %2").arg(file.tensorCount).arg(qs(humanBytes(file.bytes))), count(file.bytes));

  QTreeWidgetItem* functions = addSection(tr("Functions"), {}, QString::number(info.functions.size()));
  for (const auto& function : info.functions) {
    QString name = qs(function.domain + "::" + function.name);
    if (!function.overload.empty()) name += ":" + qs(function.overload);
    addRow(functions, name, tr("nodes"), count(function.nodeCount));
  }

  expandAll();
  // Long lists stay folded so the window opens on the overview.
  for (QTreeWidgetItem* section : {subgraphs, functions})
    if (section->childCount() > 20) section->setExpanded(false);
  resizeColumnToContents(kItemColumn);
  itemContentWidth_ = columnWidth(kItemColumn) + 24;
  resizeColumnToContents(kCountColumn);
  setColumnWidth(kCountColumn, columnWidth(kCountColumn) + 16);  // keeps counts apart from values
  fitColumns();
}

void ModelSummaryView::fitColumns() {
  // At most 45% of the width (a long metadata key or body owner is elided), so Value keeps the rest.
  const int available = viewport()->width();
  setColumnWidth(kItemColumn, std::clamp(std::min(itemContentWidth_, available * 45 / 100), 80, 420));
}

void ModelSummaryView::resizeEvent(QResizeEvent* event) {
  QTreeWidget::resizeEvent(event);
  fitColumns();
}

QTreeWidgetItem* ModelSummaryView::section(const QString& title) const {
  for (int i = 0; i < topLevelItemCount(); ++i)
    if (topLevelItem(i)->text(0) == title) return topLevelItem(i);
  return nullptr;
}

void ModelSummaryView::copyAsText() const {
  QApplication::clipboard()->setText(qs(formatModelInfoText(info_)));
}

}  // namespace onyx::views
