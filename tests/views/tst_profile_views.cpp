// The profiling views on a recorded profile of a shared model (squeezenet1_1, run here with profiling on),
// under the offscreen platform: flame widths add up, overlay colours follow the metric, selection links the
// views and the document both ways, the op summary sorts and exports summaryCsv, the Run dialog runs off
// the UI thread and cancels, ONNX Runtime profiles map onto the graph. Screenshots of each view are written
// to the build folder (the README's come from there).
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <set>

#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_style.h"
#include "graph/graph_view.h"
#include "gui/main_window.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "support/named_text_model.h"
#include "profile/bar_chart.h"
#include "profile/flame_view.h"
#include "profile/memory_view.h"
#include "profile/op_summary_view.h"
#include "profile/profile_panel.h"
#include "profile/profile_session.h"
#include "profile/run_dialog.h"
#include "profile/run_results_panel.h"
#include "profile/timeline_view.h"
#include "support/test_data.h"

namespace onyx::views {

// QSKIP and QVERIFY return from the function they are in: in a helper they let the test go on without a
// profile (a null panel when the shared data is absent: a segfault, not a skip).
#define REQUIRE_PROFILE()                                       \
  do {                                                          \
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_)); \
    QVERIFY(session()->hasProfile());                           \
  } while (false)

class TestProfileViews : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<ModelDocument> document_;
  std::unique_ptr<ProfilePanel> panel_;
  QString skipReason_;

  static QString sharedModel(const char* name) {
    auto path = testing::sharedPath(std::string("models/") + name + "/model.onnx");
    return path.empty() ? QString() : QString::fromStdString(path.string());
  }

  static std::unique_ptr<ModelDocument> openDocument(const QString& path) {
    auto model = loadModel(path.toStdString());
    if (!model) return nullptr;
    return std::make_unique<ModelDocument>(std::shared_ptr<Model>(std::move(*model)), path);
  }

  ProfileSession* session() { return panel_->session(); }


  static void grab(QWidget* widget, const QString& name) {
    QDir dir(QStringLiteral(ONYX_BINARY_DIR "/screenshots"));
    dir.mkpath(QStringLiteral("."));
    widget->grab().save(dir.filePath(name));
  }

 private Q_SLOTS:
  void initTestCase() {
    QString path = sharedModel("squeezenet1_1");
    if (path.isEmpty()) {
      skipReason_ = QStringLiteral("test data not found: models/squeezenet1_1 (set ONYX_TEST_DATA)");
      return;
    }
    document_ = openDocument(path);
    QVERIFY(document_);
    panel_ = std::make_unique<ProfilePanel>(document_.get());
    panel_->resize(1100, 700);
    panel_->show();
    profile::RunRequest request;
    // Its batch and image size are symbolic: run on the recorded inputs beside it.
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = std::filesystem::path(path.toStdString()).parent_path() / "test_data_set_0";
    request.warmup = 1;
    request.iterations = 2;
    auto run = profile::runProfiled(document_->model(), request);
    QVERIFY2(run.ok(), run ? "" : run.error().toString().c_str());
    session()->setRunResult(*run);
  }

  // A dynamo export names its nodes "node_..." and keeps the module in metadata: the flame view groups its
  // time by module (model > layers.1 > self_attn), not one flat row of nodes under the model.
  void theFlameOfADynamoExportFollowsItsModules() {
    auto document = openDocument(QStringLiteral(ONYX_SOURCE_DIR "/tests/data/dynamo/tiny_llama_dynamo.onnx"));
    QVERIFY(document);
    profile::Profile profile;
    for (const Node* node : document->model().graph().nodes()) {
      exec::ProfileEvent event;
      event.node = node->id();
      event.name = node->name();
      event.opType = node->opType();
      event.durationNs = 1000;
      profile.events.push_back(event);
    }
    profile.mapped.assign(profile.events.size(), true);  // as a run of Onyx records them
    ProfileSession session(document.get());
    session.setProfile(std::move(profile), QStringLiteral("synthetic"));
    FlameCanvas canvas(&session);
    canvas.resize(1000, canvas.sizeHint().height());
    std::set<std::string> paths;
    const profile::FlameNode* layer = nullptr;
    for (const auto& frame : canvas.frames()) {
      if (frame.node->isLeaf()) continue;
      paths.insert(frame.node->path);
      if (frame.node->path == "/model/layers.1") layer = frame.node;
    }
    QVERIFY(paths.count("/model"));
    QVERIFY(paths.count("/model/layers.1/self_attn"));
    QVERIFY(paths.count("/lm_head"));
    QVERIFY(layer);
    QCOMPARE(layer->name, std::string("layers.1"));
    // Zooming into a module shows its own nodes only.
    canvas.zoomTo(layer);
    for (const auto& frame : canvas.frames())
      QVERIFY2(frame.node->path.starts_with("/model/layers.1"), frame.node->path.c_str());
  }

  void flameWidthsAddUpToTheTotalAndClicksZoom() {
    REQUIRE_PROFILE();
    FlameView* view = panel_->flameView();
    panel_->tabs()->setCurrentWidget(view);
    FlameCanvas* canvas = view->canvas();
    canvas->resize(1000, canvas->sizeHint().height());
    auto frames = canvas->frames();
    QVERIFY(frames.size() > 60);
    QCOMPARE(frames.front().node, session()->flameTree().root.get());
    const double width = canvas->width();  // the scroll area fits the canvas to its viewport
    QCOMPARE(frames.front().rect.width(), width);
    std::map<const profile::FlameNode*, double> childWidths, widths;
    for (const auto& f : frames) {
      widths[f.node] = f.rect.width();
      if (f.node->parent) childWidths[f.node->parent] += f.rect.width();
    }
    int scopes = 0;
    for (const auto& [node, sum] : childWidths) {
      QVERIFY2(std::abs(sum - widths[node]) < 1e-6, node->name.c_str());
      ++scopes;
    }
    QVERIFY(scopes > 5);
    grab(view, QStringLiteral("profile-flame.png"));

    // Clicking a scope zooms into it: it spans the width; the breadcrumb names it; zoom out goes back.
    const profile::FlameNode* scope = nullptr;
    QRectF scopeRect;
    for (const auto& f : frames)
      if (!f.node->isLeaf() && f.node->parent && f.rect.width() > 20) {
        scope = f.node;
        scopeRect = f.rect;
        break;
      }
    QVERIFY(scope);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, scopeRect.center().toPoint());
    QCOMPARE(canvas->zoomRoot(), scope);
    QCOMPARE(canvas->frames().front().rect.width(), width);
    QVERIFY(view->breadcrumbText().endsWith(QString::fromStdString(scope->name)));
    canvas->zoomTo(nullptr);
    QCOMPARE(view->breadcrumbText(), QStringLiteral("model"));

    canvas->setSearch(QStringLiteral("Concat"));
    QCOMPARE(canvas->matchCount(), 8);  // squeezenet 1.1 has eight Fire modules, one Concat each
    canvas->setSearch({});
  }

  void overlayColoursFollowTheMetricOrder() {
    REQUIRE_PROFILE();
    for (profile::OverlayMetric metric : profile::allMetrics()) {
      panel_->setOverlayMetric(metric);
      const ProfileOverlay& overlay = panel_->overlay();
      QCOMPARE(overlay.nodes.size(), session()->metrics().nodes.size());
      std::vector<const OverlayEntry*> entries;
      for (const auto& [id, e] : overlay.nodes) entries.push_back(&e);
      std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->metric < b->metric; });
      for (size_t i = 1; i < entries.size(); ++i) {
        // Hotter (larger) never lighter; strictly darker where the value is clearly larger.
        QVERIFY(entries[i]->fill.lightnessF() <= entries[i - 1]->fill.lightnessF() + 1e-6);
        if (entries[i]->metric > entries[i - 1]->metric * 1.5 + 1e-9)
          QVERIFY(entries[i]->fill.lightnessF() < entries[i - 1]->fill.lightnessF());
      }
      QVERIFY(entries.back()->fill != entries.front()->fill);
      QCOMPARE(overlay.legend.size(), size_t(5));
      QVERIFY(entries.back()->label.endsWith(QStringLiteral("s")) ||
              metric != profile::OverlayMetric::SelfTime);
    }
    panel_->setOverlayMetric(profile::OverlayMetric::SelfTime);
  }

  void selectionLinksTheViewsAndTheDocumentBothWays() {
    REQUIRE_PROFILE();
    FlameCanvas* canvas = panel_->flameView()->canvas();
    OpSummaryView* summary = panel_->opSummaryView();
    summary->setMode(OpSummaryView::Mode::Node);
    document_->clearSelection();

    // Flame -> document -> op summary.
    const profile::FlameNode* leaf = nullptr;
    QRectF leafRect;
    for (const auto& f : canvas->frames())
      if (f.node->isLeaf() && f.rect.width() > 4 && (!leaf || f.rect.width() > leafRect.width())) {
        leaf = f.node;
        leafRect = f.rect;
      }
    QVERIFY(leaf);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, leafRect.center().toPoint());
    QCOMPARE(document_->selection().node, leaf->node);
    QCOMPARE(document_->selection().graph, &document_->model().graph());
    QModelIndex current = summary->sorted()->mapToSource(summary->table()->currentIndex());
    QVERIFY(current.isValid());
    QVERIFY(summary->table()
                ->model()
                ->data(summary->table()->currentIndex())
                .toString()
                .contains(QStringLiteral("(#%1)").arg(leaf->node)));

    // Op summary -> document -> flame (a zoom that hides the node is undone) and timeline.
    canvas->zoomTo(leaf->parent);
    QVERIFY(canvas->zoomRoot() != nullptr);
    std::set<NodeId> shown;
    for (const auto& f : canvas->frames())
      if (f.node->isLeaf()) shown.insert(f.node->node);
    int otherRow = -1;
    for (int row = 0; row < summary->sorted()->rowCount() && otherRow < 0; ++row)
      if (!shown.count(NodeId(summary->sorted()->index(row, 0).data(Qt::UserRole + 1).toLongLong())))
        otherRow = row;
    QVERIFY(otherRow >= 0);
    summary->table()->setCurrentIndex(summary->sorted()->index(otherRow, 0));
    NodeId picked = document_->selection().node;
    QVERIFY(picked != leaf->node);
    QVERIFY(picked != kNoNode);
    bool visible = false;
    for (const auto& f : canvas->frames()) visible |= f.node->node == picked;
    QVERIFY(visible);

    // Timeline -> document -> op summary.
    TimelineView* timeline = panel_->timelineView();
    panel_->tabs()->setCurrentWidget(timeline);
    timeline->resize(1000, 200);
    const auto& events = session()->profile().events;
    int target = -1;
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i].node != picked && timeline->eventRect(i).width() > 3) {
        target = int(i);
        break;
      }
    QVERIFY(target >= 0);
    QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->eventRect(size_t(target)).center().toPoint());
    QCOMPARE(document_->selection().node, events[size_t(target)].node);
    QVERIFY(summary->table()->currentIndex().data().toString().contains(
        QStringLiteral("(#%1)").arg(events[size_t(target)].node)));
  }

  void timelineHasLanesPerThreadAndDeviceAndZooms() {
    REQUIRE_PROFILE();
    TimelineView* timeline = panel_->timelineView();
    QVERIFY(timeline->lanes().contains(QStringLiteral("CPU thread 0")));
    grab(timeline, QStringLiteral("profile-timeline.png"));
    int64_t span = timeline->rangeEnd() - timeline->rangeStart();
    timeline->zoom(0.5, timeline->rangeStart());
    QCOMPARE(timeline->rangeEnd() - timeline->rangeStart(), span / 2);
    timeline->resetRange();

    // Device events get their own lanes: the Vulkan queue and its transfers.
    profile::Profile p = session()->profile();
    exec::ProfileEvent upload = p.events[0];
    upload.backend = "vulkan";
    upload.variant = "transfer";
    exec::ProfileEvent kernel = p.events[1];
    kernel.backend = "vulkan";
    kernel.variant = "conv";
    QCOMPARE(timelineLane(upload), QStringLiteral("Vulkan transfers"));
    QCOMPARE(timelineLane(kernel), QStringLiteral("Vulkan queue"));
    exec::ProfileEvent second = p.events[2];
    second.thread = 1;
    QCOMPARE(timelineLane(second), QStringLiteral("CPU thread 1"));
  }

  void timelineHasATimeRulerAndIterationLabelsThatNeverOverlap() {
    REQUIRE_PROFILE();
    TimelineView* timeline = panel_->timelineView();
    panel_->tabs()->setCurrentWidget(timeline);
    timeline->resize(1000, 200);
    timeline->resetRange();
    auto checkRuler = [&](const char* when) {
      std::vector<TimelineView::Tick> ticks = timeline->rulerTicks();
      QVERIFY2(ticks.size() >= 3, when);
      for (size_t i = 0; i < ticks.size(); ++i) {
        QVERIFY2(ticks[i].label.endsWith(QLatin1String(" ms")) || ticks[i].label.endsWith(QStringLiteral(" µs")) ||
                     ticks[i].label.endsWith(QLatin1String(" s")),
                 qPrintable(ticks[i].label));
        QVERIFY2(!ticks[i].label.contains(QLatin1Char('e')), qPrintable(ticks[i].label));  // no 1.28e+03
        if (i > 0) {
          QVERIFY(ticks[i].x - ticks[i - 1].x >= TimelineView::kMinTickSpacing - 1);
          QVERIFY(ticks[i].label != ticks[i - 1].label);
        }
      }
      std::vector<QRectF> labels = timeline->iterationLabelRects();
      QCOMPARE(labels.size(), session()->profile().iterations.size());
      for (size_t i = 0; i < labels.size(); ++i) {
        for (size_t j = i + 1; j < labels.size(); ++j) {
          QVERIFY2(labels[i].isEmpty() || labels[j].isEmpty() || !labels[i].intersects(labels[j]), when);
        }
      }
    };
    checkRuler("whole run");
    // Each iteration gets its label once it is wide enough: zoomed onto an iteration, its label shows.
    const auto& marks = session()->profile().iterations;
    QVERIFY(!marks.empty());
    for (size_t i = 0; i < marks.size(); ++i) {
      timeline->setRange(marks[i].startNs, marks[i].startNs + marks[i].durationNs);
      QVERIFY2(!timeline->iterationLabelRects()[i].isEmpty(), qPrintable(QString::number(i)));
      checkRuler("one iteration");
    }
    timeline->resetRange();
    // Zoomed far out the iterations crowd together: labels drop out rather than overlap.
    const int64_t span = timeline->rangeEnd() - timeline->rangeStart();
    timeline->setRange(timeline->rangeStart() - 40 * span, timeline->rangeEnd() + 40 * span);
    checkRuler("zoomed out");
    timeline->resetRange();
    timeline->zoom(0.01, timeline->rangeStart() + span / 2);
    checkRuler("zoomed in");
    timeline->resetRange();
    grab(timeline, QStringLiteral("profile-timeline-ruler.png"));
  }

  void opSummaryShowsLabelsInFullAndManyRows() {
    REQUIRE_PROFILE();
    OpSummaryView* summary = panel_->opSummaryView();
    panel_->tabs()->setCurrentWidget(summary);
    summary->setMode(OpSummaryView::Mode::OpType);
    QVERIFY(QTest::qWaitForWindowExposed(panel_.get()));
    QTest::qWait(20);
    QVERIFY2(summary->chart()->width() >= 300, qPrintable(QString::number(summary->chart()->width())));
    // Op type names are short: every bar label is drawn in full.
    QCOMPARE(summary->chart()->shownLabels(), summary->chartCategories());
    for (const QString& label : summary->chart()->shownLabels()) QVERIFY(!label.contains(QChar(0x2026)));
    // The table has the panel's height: by node, far more than two rows are visible.
    summary->setMode(OpSummaryView::Mode::Node);
    QCoreApplication::processEvents();
    QTableView* table = summary->table();
    const int rows = table->model()->rowCount();
    QVERIFY(rows > 20);
    const int lastVisible = table->rowAt(table->viewport()->height() - 2);
    const int visible = lastVisible < 0 ? rows : lastVisible + 1;
    QVERIFY2(visible >= 15, qPrintable(QString::number(visible)));
    grab(summary, QStringLiteral("profile-op-summary-by-node.png"));
    summary->setMode(OpSummaryView::Mode::OpType);
  }

  void opSummarySortsAndItsCsvIsSummaryCsv() {
    REQUIRE_PROFILE();
    OpSummaryView* summary = panel_->opSummaryView();
    panel_->tabs()->setCurrentWidget(summary);
    for (auto mode : {OpSummaryView::Mode::OpType, OpSummaryView::Mode::Node}) {
      summary->setMode(mode);
      const auto& rows = mode == OpSummaryView::Mode::OpType ? session()->byOpType() : session()->byNode();
      QCOMPARE(summary->sorted()->rowCount(), int(rows.size()));
      QCOMPARE(summary->csv(), profile::summaryCsv(rows));
      auto column = [&](int c) {
        std::vector<double> v;
        for (int r = 0; r < summary->sorted()->rowCount(); ++r)
          v.push_back(summary->sorted()->index(r, c).data(Qt::UserRole).toDouble());
        return v;
      };
      auto total = column(OpSummaryView::TotalMs);
      QVERIFY(std::is_sorted(total.rbegin(), total.rend()));
      summary->table()->sortByColumn(OpSummaryView::Count, Qt::AscendingOrder);
      auto count = column(OpSummaryView::Count);
      QVERIFY(std::is_sorted(count.begin(), count.end()));
      QVERIFY(count.front() < count.back() || mode == OpSummaryView::Mode::Node);
      QCOMPARE(summary->chartCategories().size(),
               std::min<qsizetype>(OpSummaryView::kChartRows, qsizetype(rows.size())));
      QCOMPARE(summary->chartCategories().front(), QString::fromStdString(rows.front().key));
    }
    summary->setMode(OpSummaryView::Mode::OpType);
    grab(summary, QStringLiteral("profile-op-summary.png"));

    QTemporaryDir dir;
    QString csvPath = dir.filePath(QStringLiteral("ops.csv"));
    QVERIFY(session()->exportCsv(csvPath, profile::SummaryKey::OpType).ok());
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().toStdString(), profile::summaryCsv(session()->byOpType()));
  }

  void exportsReadBack() {
    REQUIRE_PROFILE();
    QTemporaryDir dir;
    QString trace = dir.filePath(QStringLiteral("run.trace.json"));
    QVERIFY(session()->exportChromeTrace(trace).ok());
    auto back = profile::readTrace(trace.toStdString());
    QVERIFY(back.ok());
    QCOMPARE(back->events.size(), session()->profile().events.size());
    QString speedscope = dir.filePath(QStringLiteral("run.speedscope.json"));
    QVERIFY(session()->exportSpeedscope(speedscope).ok());
    QFile file(speedscope);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonParseError error;
    QJsonDocument json = QJsonDocument::fromJson(file.readAll(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(json.object().contains(QStringLiteral("profiles")));
    // A bad path is an error value naming it, not a crash.
    auto bad = session()->exportChromeTrace(dir.filePath(QStringLiteral("missing/folder/x.json")));
    QVERIFY(!bad.ok());
  }

  void memoryViewShowsThePlanAndThePeak() {
    REQUIRE_PROFILE();
    MemoryView* memory = panel_->memoryView();
    panel_->tabs()->setCurrentWidget(memory);
    QVERIFY(session()->memory().has_value());
    const exec::MemoryReport& report = *session()->memory();
    QVERIFY(!report.buffers.empty());
    QCOMPARE(memory->aliveAtPeak()->rowCount(), int(report.aliveAtPeak.size()));
    QVERIFY(memory->summaryText().contains(QStringLiteral("peak")));
    memory->chart()->resize(800, 300);
    size_t biggest = 0;
    for (size_t i = 0; i < report.buffers.size(); ++i)
      if (report.buffers[i].bytes > report.buffers[biggest].bytes) biggest = i;
    QRectF bar = memory->chart()->bufferRect(biggest);
    QVERIFY(bar.width() >= 1 && bar.height() >= 1);
    int hit = memory->chart()->bufferAt(bar.center());
    QVERIFY(hit >= 0);
    QTest::mouseClick(memory->chart(), Qt::LeftButton, {}, bar.center().toPoint());
    QCOMPARE(document_->selection().node, report.stepNodes[size_t(report.buffers[size_t(hit)].firstStep)]);
    grab(memory, QStringLiteral("profile-memory.png"));
  }

  void runDialogRunsOffTheUiThreadAndCancels() {
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
    RunDialog* dialog = panel_->showRunDialog();
    profile::RunRequest request;
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = std::filesystem::path(document_->path().toStdString()).parent_path() / "test_data_set_0";
    request.warmup = 0;
    request.iterations = 100000;
    dialog->setRequest(request);
    QSignalSpy finished(dialog, &RunDialog::finished);
    QSignalSpy progressed(dialog, &RunDialog::progressed);
    dialog->start();
    QVERIFY(dialog->isRunning());
    // Progress arrives while this (UI) thread spins its event loop: the run is on another thread.
    QTRY_VERIFY_WITH_TIMEOUT(progressed.count() >= 2, 20000);
    QVERIFY(dialog->isRunning());
    QVERIFY(dialog->statusText().startsWith(QStringLiteral("Iteration ")));
    QVERIFY(dialog->statusText().endsWith(QStringLiteral(" of 100000")));
    dialog->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    QVERIFY(!dialog->isRunning());
    QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
    QVERIFY(panel_->resultsPanel()->latencyText().contains(QStringLiteral("(cancelled)")));

    request.iterations = 3;
    request.inputs = profile::InputSource::Zeros;
    request.bindings = {{"batch", 1}, {"height", 224}, {"width", 224}};  // symbolic in the model
    dialog->setRequest(request);
    dialog->start();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, 30000);
    QVERIFY(finished.at(1).at(0).toBool());
    RunResultsPanel* results = panel_->resultsPanel();
    QVERIFY(results->latencyText().startsWith(QStringLiteral("3 timed iterations on cpu: median ")));
    QCOMPARE(results->outputs()->rowCount(), 1);
    QVERIFY(results->outputs()->item(0, RunResultsPanel::Type)->text().contains(QStringLiteral("1000")));
    QVERIFY(!results->outputs()->item(0, RunResultsPanel::First)->text().isEmpty());
    QCOMPARE(session()->profile().iterationCount(), 3);
    QVERIFY(results->deviceText().isEmpty());  // a CPU run moves nothing to a device
    QVERIFY2(results->threadsText().startsWith(QStringLiteral("Threads: %1 threads").arg(request.threads)),
             qPrintable(results->threadsText()));
    // A run of many threads that kept half of them says so, with the first runs' times.
    profile::RunResult tunedRun = *session()->lastRun();
    tunedRun.threadsAsked = 16;
    tunedRun.device = exec::RunReport();  // a quiet machine's, whatever this one's last run saw
    tunedRun.device.threads = 8;
    tunedRun.device.threadChoice = exec::ThreadTuner::Decision{16, 8, 39.4, 30.3, 8};
    session()->setRunResult(tunedRun);
    QVERIFY2(results->threadsText().contains(
                 QStringLiteral("16 threads, 8 used: the first runs took 30.300 ms on 8 against 39.400 ms on 16")),
             qPrintable(results->threadsText()));
    // A device run's counters and CPU nodes show under the latency.
    profile::RunResult deviceRun = *session()->lastRun();
    deviceRun.device.device = {1, 1, 602112, 4000};
    deviceRun.device.hostNodes = {{"Trilu 'mask' (#7)", "no Vulkan kernel for Trilu at opset 14"}};
    session()->setRunResult(deviceRun);
    QVERIFY(results->deviceText().startsWith(
        QStringLiteral("Last run on the device: 1 queue submits, 1 host waits, 602112 bytes up, 4000 bytes down")));
    QVERIFY(results->deviceText().contains(QStringLiteral("On the CPU: Trilu 'mask' (#7) (no Vulkan kernel for Trilu")));
    grab(panel_.get(), QStringLiteral("profile-results.png"));
    grab(dialog, QStringLiteral("profile-run-dialog.png"));
    dialog->close();
  }

  void runDialogReportsBadInputsAsErrors() {
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
    RunDialog* dialog = panel_->showRunDialog();
    profile::RunRequest request;
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = "/nonexistent/test_data_set_0";
    dialog->setRequest(request);
    QSignalSpy finished(dialog, &RunDialog::finished);
    dialog->start();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 20000);
    QVERIFY(!finished.at(0).at(0).toBool());
    QVERIFY(dialog->statusText().contains(QStringLiteral("test_data_set")));
    dialog->close();
  }

  void onnxRuntimeProfileMapsOntoTheOpenModel() {
    QString path = sharedModel("resnet18");
    if (path.isEmpty()) QSKIP("test data not found: models/resnet18 (set ONYX_TEST_DATA)");
    auto document = openDocument(path);
    QVERIFY(document);
    ProfilePanel panel(document.get());
    QVERIFY(panel.importProfile(QStringLiteral(ONYX_SOURCE_DIR "/tests/data/ort-profiles/resnet18.json")));
    QVERIFY(panel.session()->mapping().mappedShareOfModelNodes() >= 0.95);
    QVERIFY(panel.statusText().contains(QStringLiteral("% of events mapped")));
    QVERIFY(panel.session()->flameTree().root->totalNs > 0);
    QVERIFY(!panel.overlay().nodes.empty());
    // A file that is not a profile leaves the last one and says why.
    QTemporaryDir dir;
    QFile junk(dir.filePath(QStringLiteral("junk.json")));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("{\"not\": \"a trace\"}");
    junk.close();
    QVERIFY(!panel.importProfile(junk.fileName()));
    QVERIFY(panel.statusText().startsWith(QStringLiteral("error: ")));
    QVERIFY(panel.session()->hasProfile());
  }

  void fusedKernelTimeIsAttributedToTheBodyNodesInTheOverlay() {
    // What elementwise-fusion writes: the Sigmoid and Mul run as one kernel of a model-local function.
    auto model = testing::parseNamedModelText(R"(
<ir_version: 8, opset_import: ["" : 17, "onyx.fused" : 1]>
fused (float[64, 256] x) => (float[64, 256] y) {
  r = Relu <name = "/relu/Relu"> (x)
  y = onyx.fused.Fused_Sigmoid_Mul <name = "/act/Fused"> (r)
}
<domain: "onyx.fused", opset_import: ["" : 17]>
Fused_Sigmoid_Mul (in0) => (out) {
  t0 = Sigmoid <name = "Sigmoid_0"> (in0)
  out = Mul <name = "Mul_1"> (in0, t0)
}
)");
    QVERIFY2(model, model ? "" : model.error().toString().c_str());
    ModelDocument document(std::shared_ptr<Model>(std::move(*model)), QStringLiteral("fused.onnx"));
    ProfilePanel panel(&document);
    profile::RunRequest request;
    request.iterations = 3;
    auto run = profile::runProfiled(document.model(), request);
    QVERIFY2(run, run ? "" : run.error().toString().c_str());
    panel.session()->setRunResult(*run);
    const Function& function = *document.model().functions.front();
    int attributed = 0;
    double bodyMs = 0;
    for (const Node* inner : function.body->nodes()) {
      auto entry = panel.overlay().nodes.find(inner->id());
      QVERIFY2(entry != panel.overlay().nodes.end(), inner->name().c_str());
      QVERIFY(entry->second.attributed);
      QVERIFY(entry->second.label.endsWith(QStringLiteral("(attributed)")));
      bodyMs += entry->second.value;
      ++attributed;
    }
    QCOMPARE(attributed, 2);
    const Node* fusedNode = nullptr;
    for (const Node* node : document.model().graph().nodes())
      if (node->name() == "/act/Fused") fusedNode = node;
    QVERIFY(fusedNode);
    const OverlayEntry& fusedEntry = panel.overlay().nodes.at(fusedNode->id());
    QVERIFY(!fusedEntry.attributed);
    QVERIFY(std::abs(bodyMs - fusedEntry.value) <= 1e-6 + 1e-3 * fusedEntry.value);  // the split adds up
  }

  void mainWindowPaintsTheRunOnTheCanvas() {
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
    MainWindow window;
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(document_->path());
    QVERIFY(loaded.wait(60000));
    QVERIFY(window.profilePanel());
    GraphCanvas* canvas = window.canvas();
    if (!canvas->shownLayout() || canvas->isLayingOut()) {
      QSignalSpy shown(canvas, &GraphCanvas::levelShown);
      QVERIFY(shown.wait(60000));
    }
    profile::RunRequest request;
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = std::filesystem::path(document_->path().toStdString()).parent_path() / "test_data_set_0";
    request.iterations = 2;
    auto run = profile::runProfiled(*window.model(), request);
    QVERIFY(run);
    window.profilePanel()->session()->setRunResult(*run);
    // Every box on the canvas carries its node's time (or its group's total) from the overlay.
    int painted = 0, nodes = 0;
    QStringList unpainted;
    for (BoxItem* box : canvas->scene()->boxes()) {
      if (box->nodeId() == kNoNode) continue;  // graph inputs and outputs
      ++nodes;
      if (box->overlay().has_value() && !box->overlay()->label.isEmpty())
        ++painted;
      else
        unpainted << QString::number(box->nodeId());
    }
    QVERIFY(painted > 0);
    QVERIFY2(painted == nodes, qPrintable(unpainted.join(",")));
  }

  // At fit zoom (and in the overview painting below it) the canvas shows each node's heat colour, and a
  // selected box gets a ring that stands out over heat colours.
  void heatColoursShowAtFitZoomWithAVisibleSelection() {
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(document_->path());
    QVERIFY(loaded.wait(60000));
    GraphCanvas* canvas = window.canvas();
    if (!canvas->shownLayout() || canvas->isLayingOut()) {
      QSignalSpy shown(canvas, &GraphCanvas::levelShown);
      QVERIFY(shown.wait(60000));
    }
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    GraphView* view = canvas->view();
    // Zoomed out to the overview painting before the run: the run's colours must replace what is on
    // screen, not only what a later repaint would draw.
    view->setTransform(QTransform::fromScale(0.12, 0.12));
    QTest::qWait(50);
    QVERIFY(canvas->scene()->isOverview());
    profile::RunRequest request;
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = std::filesystem::path(document_->path().toStdString()).parent_path() / "test_data_set_0";
    request.iterations = 1;
    auto run = profile::runProfiled(*window.model(), request);
    QVERIFY(run);
    window.profilePanel()->session()->setRunResult(*run);
    QTest::qWait(50);
    // What the screen shows (the window's backing store); a fresh render where the platform has none.
    auto onScreen = [&] {
      QWidget* viewport = view->viewport();
      QPoint origin = viewport->mapTo(&window, QPoint(0, 0));
      QImage shown = window.screen()
                         ->grabWindow(window.winId(), origin.x(), origin.y(), viewport->width(), viewport->height())
                         .toImage();
      return shown.isNull() || shown.size() != viewport->size() ? viewport->grab().toImage() : shown;
    };
    auto close = [](QColor a, QColor b) {
      return std::abs(a.red() - b.red()) < 24 && std::abs(a.green() - b.green()) < 24 &&
             std::abs(a.blue() - b.blue()) < 24;
    };
    // Boxes on screen, and how many of them are mostly their overlay's heat colour.
    auto heatShown = [&](const QImage& image) {
      int boxes = 0, heated = 0;
      for (BoxItem* box : canvas->scene()->boxes()) {
        if (!box->overlay() || !box->overlay()->fill.isValid()) continue;
        QRect r = view->mapFromScene(box->box()).boundingRect().adjusted(1, 1, -1, -1);
        if (r.width() < 2 || r.height() < 2 || !image.rect().contains(r)) continue;
        ++boxes;
        int matching = 0, total = 0;
        for (int y = r.top(); y <= r.bottom(); ++y) {
          for (int x = r.left(); x <= r.right(); ++x, ++total)
            matching += close(image.pixelColor(x, y), box->overlay()->fill);
        }
        heated += matching * 10 >= total * 3;
      }
      return std::pair{boxes, heated};
    };
    for (double scale : {0.12, 0.0}) {  // 0: the whole level in the window
      if (scale == 0) {
        // What Fit showed before it stopped at the op-title scale: every box, far below any text.
        const QRectF whole = view->sceneRect();
        const double fit = std::min(view->viewport()->width() / whole.width(),
                                    view->viewport()->height() / whole.height());
        view->setTransform(QTransform::fromScale(fit, fit));
        view->centerOn(whole.center());
        QTest::qWait(50);
      }
      QImage image = onScreen();
      auto [boxes, heated] = heatShown(image);
      QVERIFY2(boxes > 20, qPrintable(QString::number(boxes)));
      QVERIFY2(heated * 10 >= boxes * 9, qPrintable(QStringLiteral("%1 of %2 at scale %3")
                                                        .arg(heated).arg(boxes).arg(view->transform().m11())));
      if (scale == 0) image.save(QStringLiteral(ONYX_BINARY_DIR "/screenshots/profile-heat-at-fit.png"));

      // The selection: a ring in the selection colour just outside the box.
      BoxItem* hottest = nullptr;  // the hottest box on screen (the window's docks may hide part of the level)
      for (BoxItem* box : canvas->scene()->boxes()) {
        QRect r = view->mapFromScene(box->box()).boundingRect().adjusted(-8, -8, 8, 8);
        if (!image.rect().contains(r)) continue;
        if (box->overlay() && (!hottest || box->overlay()->value > hottest->overlay()->value)) hottest = box;
      }
      QVERIFY(hottest);
      window.document()->select(Selection{&window.model()->graph(), hottest->nodeId(), nullptr});
      QTest::qWait(50);
      QImage selected = onScreen();
      const QColor ring = GraphStyle::standard().selectionColor;
      QRect around = view->mapFromScene(hottest->box()).boundingRect().adjusted(-8, -8, 8, 8);
      int ringPixels = 0;
      for (int y = std::max(0, around.top()); y <= std::min(selected.height() - 1, around.bottom()); ++y) {
        for (int x = std::max(0, around.left()); x <= std::min(selected.width() - 1, around.right()); ++x)
          ringPixels += close(selected.pixelColor(x, y), ring);
      }
      QVERIFY2(ringPixels >= 12, qPrintable(QString::number(ringPixels)));
      window.document()->select(Selection{});
    }
    window.grab().save(QStringLiteral(ONYX_BINARY_DIR "/screenshots/profile-heat-main-window.png"));
  }

  // A trace of the optimized squeezenet1_1 (optimized, saved, run and traced as `onyx optimize` and `onyx run
  // --profile` would) imported on the original: painted through provenance, every original node the
  // optimized model stands for has time, the removed ones have none, and the painted times add up to the
  // trace's total. A model not optimized from the open one (resnet18) is refused.
  void aProfileOfTheOptimizedModelIsPaintedOnTheOriginal() {
    if (!skipReason_.isEmpty()) QSKIP(qPrintable(skipReason_));
    QTemporaryDir dir;
    auto optimized = Rewriter::copyModel(document_->model());
    passes::PassManager manager(*optimized);
    QVERIFY(!manager.run(passes::defaultPipeline()).error);
    const QString modelPath = dir.filePath(QStringLiteral("optimized.onnx"));
    QVERIFY(saveModel(*optimized, modelPath.toStdString()).ok());
    profile::RunRequest request;
    request.inputs = profile::InputSource::TestDataSet;
    request.dataSet = std::filesystem::path(document_->path().toStdString()).parent_path() / "test_data_set_0";
    request.iterations = 2;
    auto run = profile::runProfiled(*optimized, request);
    QVERIFY2(run.ok(), run ? "" : run.error().toString().c_str());
    const QString tracePath = dir.filePath(QStringLiteral("trace.json"));
    QVERIFY(writeTextFile(tracePath, exec::chromeTraceJson(run->profile.events, run->profile.iterations)).ok());

    ProfilePanel panel(document_.get());
    size_t overlayNodes = 0;
    connect(&panel, &ProfilePanel::overlayChanged, this,
            [&](const ProfileOverlay& overlay) { overlayNodes = overlay.nodes.size(); });
    QVERIFY2(panel.importOptimizedProfile(tracePath, modelPath), qPrintable(panel.statusText()));
    const auto& origins = panel.session()->origins();
    QVERIFY(origins);
    QCOMPARE(origins->nodes.size(), document_->model().graph().nodes().size());
    QVERIFY(origins->unplaced.empty());
    const size_t painted = origins->nodes.size() - origins->count(profile::OriginFate::Removed);
    QCOMPARE(panel.session()->metrics().nodes.size(), painted);
    int64_t sum = 0;
    for (const auto& [id, metrics] : panel.session()->metrics().nodes) sum += metrics.totalNs;
    QCOMPARE(sum, origins->totalNs);
    QCOMPARE(overlayNodes, painted);
    QVERIFY2(panel.statusText().contains(QStringLiteral("removed")), qPrintable(panel.statusText()));

    const QString unrelated = sharedModel("resnet18");
    if (unrelated.isEmpty()) return;
    QVERIFY(!panel.importOptimizedProfile(tracePath, unrelated));
    QVERIFY2(panel.statusText().contains(QStringLiteral("not optimized from it")), qPrintable(panel.statusText()));
  }

  void cleanupTestCase() {
    panel_.reset();
    document_.reset();
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestProfileViews)
#include "tst_profile_views.moc"
