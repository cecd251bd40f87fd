#pragma once
// The results of the last run: latency statistics over the timed iterations and each output's type with
// summary values (min, max, mean, first values); on a device backend, what the last run moved: queue submits,
// host waits, bytes up and down, and the nodes that ran on the CPU with why.
#include <QWidget>

class QLabel;
class QTableWidget;

namespace onyx::views {

class ProfileSession;

class RunResultsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunResultsPanel(ProfileSession* session, QWidget* parent = nullptr);
  QString latencyText() const;
  QString deviceText() const;
  // The threads asked for and what the last iteration used instead, and why (exec/run_threads.h).
  QString threadsText() const;
  QTableWidget* outputs() const { return outputs_; }
  enum Column { Name, Type, Min, Max, Mean, First, ColumnCount };

 private:
  void rebuild();
  ProfileSession* session_;
  QLabel* latency_;
  QLabel* threads_;
  QLabel* device_;
  QTableWidget* outputs_;
};

}  // namespace onyx::views
