// Background work against edits on the UI thread (issue #25, "workers on snapshots"): shape inference and
// profiling run on worker threads while passes, undo and redo edit the model on the UI thread. The workers
// read snapshots, so nothing they read changes under them (the ThreadSanitizer build, packaging/sanitize.sh,
// runs this test to prove it), and a result that lands after an edit is re-run or dropped, never shown.
#include <QDeadlineTimer>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>
#include <memory>
#include <string>
#include <unordered_set>

#include "ir/rewriter.h"
#include "model_document.h"
#include "onnx/onnx_io.h"
#include "passes/pass_session.h"
#include "profile/profile_session.h"
#include "profile/run_dialog.h"

namespace onyx::views {
namespace {

constexpr int kWaitMs = 120000;

// A chain of blocks each pass has something to do in: an Identity, a pair of Transposes that cancel, a
// Constant product to fold, an element-wise run to fuse, and an unused Exp. Enough nodes that inference
// takes a while, so edits land while it runs.
std::shared_ptr<Model> chainModel(int blocks) {
  std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8, 16] x0) => (float[N, 8, 16] y) {
)";
  for (int i = 0; i < blocks; ++i) {
    const std::string k = std::to_string(i);
    const std::string next = std::to_string(i + 1);
    text += "  i" + k + " = Identity(x" + k + ")\n";
    text += "  t" + k + " = Transpose <perm = [0, 2, 1]> (i" + k + ")\n";
    text += "  u" + k + " = Transpose <perm = [0, 2, 1]> (t" + k + ")\n";
    text += "  c" + k + " = Constant <value = float[1] {1.5}> ()\n";
    text += "  s" + k + " = Mul(c" + k + ", c" + k + ")\n";
    text += "  a" + k + " = Add(u" + k + ", s" + k + ")\n";
    text += "  r" + k + " = Relu(a" + k + ")\n";
    text += "  x" + next + " = Neg(r" + k + ")\n";
    text += "  d" + k + " = Exp(x" + k + ")\n";
  }
  text += "  y = Identity(x" + std::to_string(blocks) + ")\n}";
  auto parsed = parseModelText(text);
  if (!parsed) return nullptr;
  return std::shared_ptr<Model>(std::move(*parsed));
}

// Every value of the graph and its bodies.
void collectValues(const Graph& graph, std::unordered_set<const Value*>& values) {
  for (const Value* input : graph.inputs()) values.insert(input);
  for (const Value* initializer : graph.initializers()) values.insert(initializer);
  for (const Node* node : graph.nodes()) {
    for (const Value* output : node->outputs())
      if (output) values.insert(output);
    for (const Graph* body : node->subgraphs())
      if (body) collectValues(*body, values);
  }
}

// Waits until the newest inference (re-runs of outdated results included) has been adopted.
bool settle(const ModelDocument& document) {
  QDeadlineTimer deadline(kWaitMs);
  while (document.isInferring() && !deadline.hasExpired()) QTest::qWait(5);
  return !document.isInferring();
}

// The document's shapes are those of a fresh inference of the model as it is now, keyed by its own values.
void expectShapesOfLiveModel(const ModelDocument& document) {
  const ShapeInference fresh = inferShapes(document.model());
  std::unordered_set<const Value*> live;
  collectValues(document.model().graph(), live);
  for (const std::shared_ptr<Function>& function : document.model().functions)  // fused bodies
    if (function && function->body) collectValues(*function->body, live);
  for (const auto& [value, inferred] : document.shapes().values)
    QVERIFY2(live.contains(value), qPrintable("a shape is keyed by a value that is not in the live model: " +
                                              QString::fromStdString(value->name()) + (fresh.find(value) ? " (fresh has it)" : "")));
  QCOMPARE(document.shapes().values.size(), fresh.values.size());
  for (const Value* value : live) {
    const InferredValue* expected = fresh.find(value);
    const InferredValue* shown = document.shapes().find(value);
    QCOMPARE(shown != nullptr, expected != nullptr);
    if (expected) QCOMPARE(QString::fromStdString(shown->type.toString()), QString::fromStdString(expected->type.toString()));
  }
}

}  // namespace

class BackgroundWorkTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Passes, undo and redo on the UI thread while inference after inference runs in the background; once
  // everything settles the shapes are those of the live model (values added by undo included).
  void passesAndUndoDuringInference() {
    std::shared_ptr<Model> model = chainModel(200);
    QVERIFY(model);
    ModelDocument document(model, QStringLiteral("chain"));
    QUndoStack undoStack;
    PassSession session(document, undoStack);
    QSignalSpy started(&document, &ModelDocument::inferenceStarted);
    QSignalSpy adopted(&document, &ModelDocument::shapesChanged);
    const QStringList pipeline = {QStringLiteral("identity-elimination"), QStringLiteral("transpose-cancellation"),
                                  QStringLiteral("constant-folding"), QStringLiteral("dead-code-elimination"),
                                  QStringLiteral("elementwise-fusion")};
    for (int round = 0; round < 3; ++round) {
      QSignalSpy finished(&session, &PassSession::finished);
      PassRequest request;
      request.passes = pipeline;
      document.reinfer();  // runs while the passes edit the model step by step
      session.run(request);
      QVERIFY(finished.wait(kWaitMs));
      QVERIFY(undoStack.count() > 0);
      // Undo and redo everything, one step per turn of the event loop, each starting another inference
      // while the one before is still running.
      while (undoStack.canUndo()) {
        undoStack.undo();
        QCoreApplication::processEvents();
      }
      QVERIFY(settle(document));
      expectShapesOfLiveModel(document);
      while (undoStack.canRedo()) {
        undoStack.redo();
        QCoreApplication::processEvents();
      }
      QVERIFY(settle(document));
      expectShapesOfLiveModel(document);
      // Back to the original for the next round, without waiting for the inferences this starts.
      while (undoStack.canUndo()) undoStack.undo();
      undoStack.clear();
    }
    QVERIFY(settle(document));
    expectShapesOfLiveModel(document);
    QVERIFY(started.count() > 10);
    QVERIFY(adopted.count() >= 1);
  }

  // An edit after inference started, with no new inference asked for: the result of the old snapshot is
  // not adopted, inference runs again and its result includes what the edit added.
  void resultOfAnOutdatedSnapshotIsRerun() {
    std::shared_ptr<Model> model = chainModel(40);
    QVERIFY(model);
    ModelDocument document(model, QStringLiteral("chain"));
    QSignalSpy started(&document, &ModelDocument::inferenceStarted);
    document.reinfer();
    Value* added = nullptr;
    {
      Rewriter rewriter(document.model());
      Graph& graph = document.model().graph();
      Value* y = graph.outputs().front();
      Node* relu = rewriter.addNode(graph, {.opType = "Relu", .inputs = {y}, .outputNames = {"added"}});
      added = relu->output(0);
      rewriter.setGraphOutputs(graph, {added});
    }
    QVERIFY(settle(document));
    QCOMPARE(started.count(), 2);  // the one asked for, and the re-run of its outdated result
    const InferredValue* inferred = document.shapes().find(added);
    QVERIFY(inferred);
    QCOMPARE(QString::fromStdString(inferred->type.toString()), QStringLiteral("float32[N, 8, 16]"));
    expectShapesOfLiveModel(document);
  }

  // A profiling run during which the model is edited reports that its results are outdated instead of
  // showing them; a run without edits is adopted, each event naming a node of the live model.
  void profileRunDuringEditsIsDropped() {
    std::shared_ptr<Model> model = chainModel(30);
    QVERIFY(model);
    ModelDocument document(model, QStringLiteral("chain"));
    QUndoStack undoStack;
    PassSession passes(document, undoStack);
    ProfileSession profiles(&document);
    RunDialog dialog(&profiles);
    profile::RunRequest request;
    request.threads = 1;
    request.bindings = {{"N", 2}};
    request.warmup = 0;
    request.iterations = 3;
    dialog.setRequest(request);
    QSignalSpy finished(&passes, &PassSession::finished);
    PassRequest edit;
    edit.passes = {QStringLiteral("identity-elimination"), QStringLiteral("dead-code-elimination")};
    passes.run(edit);
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(undoStack.canUndo());

    // The result comes back as a queued call: the undo before the next turn of the event loop lands first,
    // however fast the run is.
    QSignalSpy runs(&dialog, &RunDialog::finished);
    dialog.start();
    QVERIFY(dialog.isRunning());
    undoStack.undo();
    QVERIFY(runs.wait(kWaitMs) || runs.count() == 1);
    QCOMPARE(runs.front().at(0).toBool(), false);
    QVERIFY2(dialog.statusText().contains(QStringLiteral("edited during the run")), qPrintable(dialog.statusText()));
    QVERIFY(!profiles.hasProfile());

    request.iterations = 2;
    dialog.setRequest(request);
    runs.clear();
    dialog.start();
    QVERIFY(runs.wait(kWaitMs) || runs.count() == 1);
    QVERIFY2(runs.front().at(0).toBool(), qPrintable(dialog.statusText()));
    QVERIFY(profiles.hasProfile());
    for (const exec::ProfileEvent& event : profiles.profile().events)
      if (event.node != kNoNode) QVERIFY(document.model().graph().findNode(event.node));
    QVERIFY(settle(document));
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::BackgroundWorkTest)
#include "tst_background_work.moc"
