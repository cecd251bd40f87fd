#include "rich_text_delegate.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QPainter>
#include <QTextDocument>

namespace onyx::views {
namespace {

void prepareDocument(QTextDocument& document, const QStyleOptionViewItem& option, const QString& html) {
  document.setDocumentMargin(0);
  document.setDefaultFont(option.font);
  document.setHtml(html);
}

}  // namespace

void RichTextDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  const QString html = index.data(kHtmlRole).toString();
  if (html.isEmpty()) {
    QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  QStyleOptionViewItem itemOption = option;
  initStyleOption(&itemOption, index);
  itemOption.text.clear();  // the style draws the background, selection and focus; the text is ours
  QStyle* style = itemOption.widget ? itemOption.widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &itemOption, painter, itemOption.widget);

  QTextDocument document;
  prepareDocument(document, itemOption, html);
  const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &itemOption, itemOption.widget);
  painter->save();
  painter->translate(textRect.left(), textRect.top() + (textRect.height() - document.size().height()) / 2);
  painter->setClipRect(QRect(QPoint(0, 0), textRect.size()));
  QAbstractTextDocumentLayout::PaintContext context;
  const bool selected = itemOption.state & QStyle::State_Selected;
  context.palette.setColor(QPalette::Text,
                           itemOption.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
  document.documentLayout()->draw(painter, context);
  painter->restore();
}

QSize RichTextDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  const QString html = index.data(kHtmlRole).toString();
  if (html.isEmpty()) return QStyledItemDelegate::sizeHint(option, index);
  QTextDocument document;
  prepareDocument(document, option, html);
  QSize base = QStyledItemDelegate::sizeHint(option, index);
  return QSize(static_cast<int>(document.idealWidth()) + 8,
               std::max(base.height(), int(document.size().height())));
}

}  // namespace onyx::views
