#pragma once
// Draws an item's text as HTML when the item carries some under kHtmlRole (a type whose unknown dims are
// red), and as plain text otherwise. Tree widgets cannot colour part of a cell without it.
#include <QStyledItemDelegate>

namespace onyx::views {

class RichTextDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  static constexpr int kHtmlRole = Qt::UserRole + 100;

  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace onyx::views
