#pragma once
// The timeline: one lane per CPU thread, per Vulkan queue and for transfers, events as bars in time, the
// iterations as a band above and a time ruler (ms from the first event) under it. The wheel zooms around the cursor, dragging pans; clicking a bar selects its
// node, and the selected node's bars are outlined in every iteration.
#include <QStringList>
#include <QWidget>
#include <vector>

#include "exec/profiler.h"

namespace onyx::views {

class ProfileSession;

// The lane an event belongs to: "CPU thread 0", "Transfers", "Vulkan queue", "Vulkan transfers".
QString timelineLane(const exec::ProfileEvent& event);

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(ProfileSession* session, QWidget* parent = nullptr);

  const QStringList& lanes() const { return lanes_; }
  int laneOfEvent(size_t event) const { return laneOf_[event]; }
  // Where event `index` of the profile is drawn; empty when it is outside the visible range.
  QRectF eventRect(size_t index) const;
  // The event under a point, -1 for none.
  int eventAt(QPointF point) const;
  int64_t rangeStart() const { return start_; }
  int64_t rangeEnd() const { return end_; }
  void setRange(int64_t startNs, int64_t endNs);
  void resetRange();
  // factor < 1 zooms in, keeping `anchorNs` where it is on screen.
  void zoom(double factor, int64_t anchorNs);

  // A labelled tick of the time ruler: x in widget coordinates, the time since the first event.
  struct Tick {
    double x = 0;
    QString label;
  };
  // The ruler's labelled ticks for the range shown: 1-2-5 steps, at least kMinTickSpacing pixels apart.
  std::vector<Tick> rulerTicks() const;
  // Where each iteration's label is drawn; an iteration too narrow for its label (or one that would
  // overlap the previous label) gets none.
  std::vector<QRectF> iterationLabelRects() const;

  static constexpr int kHeaderWidth = 130;
  static constexpr int kIterationBandHeight = 18;
  static constexpr int kRulerHeight = 22;
  static constexpr int kTopHeight = kIterationBandHeight + kRulerHeight;  // lanes start here
  static constexpr int kLaneHeight = 26;
  static constexpr int kMinTickSpacing = 90;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void rebuild();
  void paintIterations(QPainter& painter) const;
  void paintRuler(QPainter& painter) const;
  QString iterationLabel(int iteration) const;
  double xOf(int64_t ns) const;
  int64_t nsAt(double x) const;

  ProfileSession* session_;
  QStringList lanes_;
  std::vector<int> laneOf_;  // per event, -1 for events not drawn (inside bodies)
  int64_t start_ = 0, end_ = 1;
  int64_t fullStart_ = 0, fullEnd_ = 1;
  bool dragging_ = false;
  double dragX_ = 0;
  int64_t dragStart_ = 0;
  bool dragged_ = false;
};

}  // namespace onyx::views
