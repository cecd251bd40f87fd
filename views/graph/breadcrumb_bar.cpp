#include "graph/breadcrumb_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace onyx::views {

BreadcrumbBar::BreadcrumbBar(QWidget* parent) : QWidget(parent), layout_(new QHBoxLayout(this)) {
  layout_->setContentsMargins(4, 0, 4, 0);
  layout_->setSpacing(2);
}

void BreadcrumbBar::setCrumbs(const QStringList& crumbs) {
  crumbs_ = crumbs;
  while (QLayoutItem* child = layout_->takeAt(0)) {
    delete child->widget();
    delete child;
  }
  for (int i = 0; i < crumbs.size(); ++i) {
    if (i > 0) layout_->addWidget(new QLabel(QStringLiteral("›"), this));
    auto* button = new QToolButton(this);
    button->setText(crumbs[i]);
    button->setAutoRaise(true);
    button->setEnabled(i + 1 < crumbs.size());  // the last crumb is where we are
    connect(button, &QToolButton::clicked, this, [this, i] { Q_EMIT crumbClicked(i); });
    layout_->addWidget(button);
  }
  layout_->addStretch(1);
}

}  // namespace onyx::views
