#pragma once
// "View as ONNX text": the model, or one of its bodies, in ONNX's textual syntax (the engine's printer) in
// a read-only, non-modal window.
#include <QDialog>

#include "ir/model.h"

class QPlainTextEdit;

namespace onyx::views {

class OnnxTextDialog : public QDialog {
  Q_OBJECT

 public:
  // The whole model when `graph` is its main graph or null; the body alone otherwise.
  OnnxTextDialog(const Model& model, const Graph* graph, const QString& title, QWidget* parent = nullptr);

  static QString textFor(const Model& model, const Graph* graph);
  QPlainTextEdit* textView() const { return text_; }

 private:
  QPlainTextEdit* text_ = nullptr;
};

}  // namespace onyx::views
