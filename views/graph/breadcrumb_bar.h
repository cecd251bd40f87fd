#pragma once
// Where the canvas is: "main graph › /encoder › layer.3 › Loop body". Clicking a crumb goes back there.
#include <QStringList>
#include <QWidget>

class QHBoxLayout;

namespace onyx::views {

class BreadcrumbBar : public QWidget {
  Q_OBJECT

 public:
  explicit BreadcrumbBar(QWidget* parent = nullptr);
  void setCrumbs(const QStringList& crumbs);
  const QStringList& crumbs() const { return crumbs_; }

 Q_SIGNALS:
  void crumbClicked(int index);

 private:
  QHBoxLayout* layout_;
  QStringList crumbs_;
};

}  // namespace onyx::views
