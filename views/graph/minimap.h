#pragma once
// A small overview of the whole level in a corner of the canvas: the scene drawn once into a pixmap when
// the level changes, with the visible area outlined. Clicking or dragging in it moves the view there.
#include <QPixmap>
#include <QWidget>

namespace onyx::views {

class GraphView;

class Minimap : public QWidget {
  Q_OBJECT

 public:
  Minimap(GraphView* view, QWidget* parent = nullptr);
  // Redraws the overview (call after the scene changed).
  void refresh();
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRectF pictureRect() const;  // where the scene is drawn within the widget
  void centerViewAt(QPointF position);

  GraphView* view_;
  QPixmap picture_;
};

}  // namespace onyx::views
