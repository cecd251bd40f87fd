#pragma once
// A horizontal bar chart whose category labels are drawn in full: the label column is as wide as the
// longest label (up to half the widget), and a label is elided only when even that is too narrow. (Qt
// Charts' category axis elided every label to "..." once the chart was shorter than its label heights.)
#include <QString>
#include <QStringList>
#include <QWidget>
#include <utility>
#include <vector>

namespace onyx::views {

class HorizontalBarChart : public QWidget {
  Q_OBJECT

 public:
  explicit HorizontalBarChart(QWidget* parent = nullptr);

  // Bars top to bottom; `format` writes a value at the end of its bar.
  void setBars(QString title, std::vector<std::pair<QString, double>> bars, int decimals = 2);
  const QString& title() const { return title_; }
  // The labels as they are drawn at the current width (elided where they must be).
  QStringList shownLabels() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

  static constexpr int kBarHeight = 22;
  static constexpr int kTitleHeight = 26;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  int labelColumnWidth() const;

  QString title_;
  std::vector<std::pair<QString, double>> bars_;
  int decimals_ = 2;
};

}  // namespace onyx::views
