#include "onnx_text_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "explorer_text.h"
#include "onnx/onnx_io.h"

namespace onyx::views {

QString OnnxTextDialog::textFor(const Model& model, const Graph* graph) {
  if (!graph || graph == &model.graph()) return qs(printModelText(model));
  return qs(printGraphText(*graph));
}

OnnxTextDialog::OnnxTextDialog(const Model& model, const Graph* graph, const QString& title, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(title);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text_->setPlainText(textFor(model, graph));

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* copy = buttons->addButton(tr("Copy All"), QDialogButtonBox::ActionRole);
  connect(copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(text_->toPlainText()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(text_, 1);
  layout->addWidget(buttons);
  resize(820, 640);
}

}  // namespace onyx::views
