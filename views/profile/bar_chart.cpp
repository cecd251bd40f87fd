#include "bar_chart.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

#include "profile_colors.h"

namespace onyx::views {

namespace {
constexpr int kMargin = 8;
constexpr int kValueWidth = 70;  // room after the longest bar for its value
}  // namespace

HorizontalBarChart::HorizontalBarChart(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void HorizontalBarChart::setBars(QString title, std::vector<std::pair<QString, double>> bars, int decimals) {
  title_ = std::move(title);
  bars_ = std::move(bars);
  decimals_ = decimals;
  updateGeometry();
  update();
}

int HorizontalBarChart::labelColumnWidth() const {
  QFontMetrics metrics(font());
  int widest = 0;
  for (const auto& [label, value] : bars_) widest = std::max(widest, metrics.horizontalAdvance(label));
  // Text plus a margin each side (elidedText rounds, and would cut a label exactly as wide as its room).
  return std::min(widest + 2 * kMargin, std::max(60, width() / 2));
}

QStringList HorizontalBarChart::shownLabels() const {
  QFontMetrics metrics(font());
  const int column = labelColumnWidth() - kMargin;
  QStringList labels;
  for (const auto& [label, value] : bars_) labels << metrics.elidedText(label, Qt::ElideMiddle, column);
  return labels;
}

QSize HorizontalBarChart::sizeHint() const {
  return {420, kTitleHeight + kBarHeight * int(std::max<size_t>(1, bars_.size())) + 2 * kMargin};
}

QSize HorizontalBarChart::minimumSizeHint() const {
  return {200, kTitleHeight + kBarHeight * 3};
}

void HorizontalBarChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(palette().text().color());
  p.drawText(QRect(kMargin, 0, width() - 2 * kMargin, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft, title_);
  p.setFont(font());
  if (bars_.empty()) return;
  double largest = 0;
  for (const auto& [label, value] : bars_) largest = std::max(largest, value);
  const int column = labelColumnWidth();
  const QStringList labels = shownLabels();
  const double room = std::max(10, width() - column - kMargin - kValueWidth);
  // Rows share the height left, but never get thinner than the text.
  const int rowHeight = std::clamp((height() - kTitleHeight - kMargin) / int(bars_.size()),
                                   QFontMetrics(font()).height() + 2, kBarHeight + 6);
  for (size_t i = 0; i < bars_.size(); ++i) {
    const int y = kTitleHeight + int(i) * rowHeight;
    p.setPen(palette().text().color());
    p.drawText(QRect(kMargin / 2, y, column - kMargin, rowHeight), Qt::AlignVCenter | Qt::AlignRight,
               labels[int(i)]);
    const double length = largest > 0 ? room * bars_[i].second / largest : 0;
    QRectF bar(column, y + 3, std::max(1.0, length), rowHeight - 6);
    p.fillRect(bar, heatColor(largest > 0 ? bars_[i].second / largest : 0));
    p.drawText(QRectF(bar.right() + 4, y, kValueWidth, rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
               QString::number(bars_[i].second, 'f', decimals_));
  }
}

}  // namespace onyx::views
