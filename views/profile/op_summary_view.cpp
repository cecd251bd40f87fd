#include "op_summary_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "bar_chart.h"
#include "profile_session.h"

namespace onyx::views {

namespace {
constexpr int kSortRole = Qt::UserRole;
constexpr int kNodeRole = Qt::UserRole + 1;

QStandardItem* textItem(const QString& text) {
  auto* item = new QStandardItem(text);
  item->setData(text, kSortRole);
  item->setEditable(false);
  return item;
}
QStandardItem* numberItem(double value, const QString& shown) {
  auto* item = new QStandardItem(shown);
  item->setData(value, kSortRole);
  item->setData(int(Qt::AlignRight | Qt::AlignVCenter), Qt::TextAlignmentRole);
  item->setEditable(false);
  return item;
}
double gflops(int64_t flops, double ms) {
  return ms > 0 ? double(flops) / (ms * 1e6) : 0;
}
}  // namespace

OpSummaryView::OpSummaryView(ProfileSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  modeBox_ = new QComboBox(this);
  modeBox_->addItem(tr("By op type"));
  modeBox_->addItem(tr("By node"));
  modeBox_->addItem(tr("Fused kernels, attributed by FLOPs"));
  auto* exportButton = new QPushButton(tr("Export CSV…"), this);

  model_ = new QStandardItemModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(kSortRole);
  table_ = new QTableView(this);
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);

  chart_ = new HorizontalBarChart(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(modeBox_);
  bar->addStretch(1);
  bar->addWidget(exportButton);
  // Side by side: the table keeps the full height for its rows, the chart its labels in full.
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(table_);
  split->addWidget(chart_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(modeBox_, &QComboBox::currentIndexChanged, this, [this](int index) { setMode(Mode(index)); });
  connect(exportButton, &QPushButton::clicked, this, &OpSummaryView::exportRequested);
  connect(session_, &ProfileSession::profileChanged, this, &OpSummaryView::rebuild);
  connect(session_->document(), &ModelDocument::selectionChanged, this, &OpSummaryView::followSelection);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (following_ || !current.isValid()) return;
            NodeId node = nodeOfRow(sorted_->mapToSource(current).row());
            if (node != kNoNode) session_->selectNode(node);
          });
  rebuild();
}

void OpSummaryView::setMode(Mode mode) {
  mode_ = mode;
  if (modeBox_->currentIndex() != int(mode)) modeBox_->setCurrentIndex(int(mode));
  rebuild();
}

const std::vector<profile::SummaryRow>& OpSummaryView::rows() const {
  return mode_ == Mode::OpType ? session_->byOpType() : session_->byNode();
}

std::string OpSummaryView::csv() const {
  return profile::summaryCsv(rows());
}

NodeId OpSummaryView::nodeOfRow(int sourceRow) const {
  QStandardItem* item = model_->item(sourceRow, Key);
  return item ? NodeId(item->data(kNodeRole).toLongLong()) : kNoNode;
}

void OpSummaryView::rebuild() {
  following_ = true;
  model_->clear();
  model_->setHorizontalHeaderLabels({mode_ == Mode::OpType ? tr("Op type") : tr("Node"), tr("Op"),
                                     tr("Count"), tr("Total ms"), tr("Mean ms"), tr("Share %"), tr("FLOPs"),
                                     tr("GFLOP/s")});
  int iterations = std::max(1, session_->flameTree().iterations);
  auto addRow = [&](const QString& key, const std::string& op, int64_t count, double totalMs, double meanMs,
                    double share, int64_t flops, NodeId node, const QString& tip) {
    QList<QStandardItem*> items{
        textItem(key),
        textItem(QString::fromStdString(op)),
        numberItem(double(count), QString::number(count)),
        numberItem(totalMs, QString::number(totalMs, 'f', 3)),
        numberItem(meanMs, QString::number(meanMs, 'f', 4)),
        numberItem(share, QString::number(share, 'f', 1)),
        numberItem(double(flops) / iterations, QLocale().toString(double(flops) / iterations, 'g', 4)),
        numberItem(gflops(flops, totalMs), QString::number(gflops(flops, totalMs), 'f', 2))};
    items[Key]->setData(qlonglong(node), kNodeRole);
    if (!tip.isEmpty())
      for (QStandardItem* item : items) item->setToolTip(tip);
    model_->appendRow(items);
  };
  if (mode_ == Mode::Attributed) {
    double total = double(session_->metrics().totalNs) / 1e6;
    for (const profile::AttributedTime& a : session_->attributed()) {
      double ms = double(a.totalNs) / 1e6;
      addRow(tr("%1 in %2 (attributed)")
                 .arg(QString::fromStdString(a.bodyNode), QString::fromStdString(a.fusedName)),
             a.opType, a.count, ms, a.count ? ms / double(a.count) : 0, total > 0 ? 100 * ms / total : 0,
             a.flops * a.count, a.fusedNode,
             tr("%1 %% of the fused kernel %2, estimated from FLOPs, not measured")
                 .arg(100 * a.share, 0, 'f', 1)
                 .arg(QString::fromStdString(a.function)));
    }
  } else {
    for (const profile::SummaryRow& r : rows()) {
      NodeId node = r.node;
      if (mode_ == Mode::OpType)  // an op type row selects that op's costliest node
        for (const profile::SummaryRow& n : session_->byNode())
          if (n.opType == r.opType) {
            node = n.node;
            break;
          }
      addRow(QString::fromStdString(r.key), r.opType, r.count, r.totalMs, r.meanMs, r.percent, r.flops, node,
             {});
    }
  }
  table_->sortByColumn(TotalMs, Qt::DescendingOrder);
  table_->resizeColumnsToContents();
  following_ = false;
  rebuildChart();
  followSelection();
}

void OpSummaryView::rebuildChart() {
  chartCategories_.clear();
  std::vector<std::pair<QString, double>> top;
  for (int row = 0; row < model_->rowCount(); ++row)
    top.push_back({model_->item(row, Key)->text(), model_->item(row, TotalMs)->data(kSortRole).toDouble()});
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  top.resize(size_t(std::min(kChartRows, model_->rowCount())));
  for (const auto& [key, ms] : top) chartCategories_ << key;
  chart_->setBars(mode_ == Mode::OpType ? tr("Time by op type (ms, all iterations)")
                                        : tr("Slowest (ms, all iterations)"),
                  std::move(top));
}

QStringList OpSummaryView::chartCategories() const {
  return chartCategories_;
}

void OpSummaryView::followSelection() {
  NodeId selected = session_->selectedNode();
  const Node* node = session_->node(selected);
  if (!node) return;
  for (int row = 0; row < model_->rowCount(); ++row) {
    bool match = mode_ == Mode::OpType ? model_->item(row, OpType)->text().toStdString() == node->opType()
                                       : nodeOfRow(row) == selected;
    if (!match) continue;
    following_ = true;
    QModelIndex index = sorted_->mapFromSource(model_->index(row, Key));
    table_->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index);
    following_ = false;
    return;
  }
}

}  // namespace onyx::views
