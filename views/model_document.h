#pragma once
// One open model as the views see it: the engine Model, its shape inference (with the user's symbol
// bindings), a revision bumped on every change event, and the shared selection. Every view (canvas,
// inspector, unknown-dim panel, search, pass panel, profile views) reads from and selects through this
// object, so selecting in one selects in all.
//
// Edits reach the views twice: modelChanged() per engine event as it happens, and changesSettled() once per
// burst (a transaction, a pass step, an undo) with every event of it, when control is back in the event
// loop. Views that react to what changed (the canvas patches labels or lays out again, the inspector
// rebuilds only for what it shows) read the burst, so one edit of many events leads to one decision.
#include <QObject>
#include <QPointer>
#include <QString>
#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/model.h"
#include "shapes/given_inputs.h"
#include "shapes/shape_inference.h"
#include "shapes/shape_report.h"

class QThread;

namespace onyx::views {

// What is selected: a node, or a value (an edge), in a given graph (the main graph or a body).
struct Selection {
  const Graph* graph = nullptr;
  NodeId node = kNoNode;
  const Value* value = nullptr;
  bool empty() const { return node == kNoNode && value == nullptr; }
  friend bool operator==(const Selection&, const Selection&) = default;
};

// Nodes and values marked for the user (search matches): the canvas draws them highlighted.
struct Highlight {
  std::unordered_set<NodeId> nodes;
  std::unordered_set<const Value*> values;
  bool empty() const { return nodes.empty() && values.empty(); }
  friend bool operator==(const Highlight&, const Highlight&) = default;
};

class ModelDocument : public QObject {
  Q_OBJECT

 public:
  // Takes the model and infers shapes at once (the caller is usually a worker that already did the slow
  // part: pass a finished inference to skip it).
  ModelDocument(std::shared_ptr<Model> model, QString path, QObject* parent = nullptr);
  ModelDocument(std::shared_ptr<Model> model, QString path, ShapeInference inference, QObject* parent = nullptr);
  ~ModelDocument() override;

  Model& model() { return *model_; }
  const Model& model() const { return *model_; }
  const std::shared_ptr<Model>& sharedModel() const { return model_; }
  const QString& path() const { return path_; }
  // Unique for the process's lifetime (LayoutKey::document).
  uint64_t id() const { return id_; }
  // Bumped by every change event of the model and every re-inference.
  uint64_t revision() const { return revision_; }
  // Bumped by every change event only: background work started at one edit revision and finished at another
  // read a model that is no longer this one (its result is dropped or re-run).
  uint64_t editRevision() const { return editRevision_; }

  const ShapeInference& shapes() const { return *shapes_; }
  // The type the views show for `value`: the inferred one, except for a value whose type was edited after
  // the newest inference started (that inference, or the one before, still says the old type): then the
  // declared type, until an inference that saw the edit lands.
  const Type& shownType(const Value& value) const;
  const ShapeReport& shapeReport() const { return *report_; }
  const SymBindings& bindings() const { return bindings_; }
  // Graph-input tensors inference reads the values of (a test_data_set folder), or null.
  const std::shared_ptr<const GivenInputs>& givenInputs() const { return givenInputs_; }
  bool isInferring() const { return inferring_ != nullptr; }

  const Selection& selection() const { return selection_; }
  const Highlight& highlight() const { return highlight_; }

 public Q_SLOTS:
  void select(const Selection& selection);
  void clearSelection() { select(Selection{}); }
  // Selects and asks the canvas to centre on it (a click in the unknown-dim panel, "why?", search).
  void focus(const Selection& selection);
  // Re-runs shape inference with these bindings off the UI thread; shapesChanged() follows.
  void setBindings(const SymBindings& bindings);
  // Re-runs inference with these input tensors' values (null: dims and bindings only).
  void setGivenInputs(std::shared_ptr<const GivenInputs> inputs);
  // Re-runs inference with the current bindings (after an edit). The worker reads a snapshot of the model
  // (inference_snapshot.h); a result that lands after another edit is dropped and inference runs again.
  void reinfer();
  void setHighlight(const Highlight& highlight);
  void clearHighlight() { setHighlight(Highlight{}); }

 Q_SIGNALS:
  void selectionChanged(const Selection& selection);
  void focusRequested(const Selection& selection);
  void shapesChanged();
  void highlightChanged();
  void inferenceStarted();
  // Relayed from the engine on the UI thread; the revision is already bumped.
  void modelChanged(const ChangeEvent& event);
  // Every event of one burst of edits, in order, once the burst is over (queued to the event loop).
  void changesSettled(const std::vector<onyx::ChangeEvent>& events);

 private:
  void startInference();
  void adoptInference(std::shared_ptr<const Model> snapshot, std::shared_ptr<ShapeInference> inference,
                      uint64_t generation, uint64_t snapshotRevision);
  void takeChange(const ChangeEvent& event);
  void settleChanges();

  std::shared_ptr<Model> model_;
  QString path_;
  uint64_t id_;
  uint64_t revision_ = 0;
  uint64_t editRevision_ = 0;
  std::shared_ptr<ShapeInference> shapes_;
  // The snapshot the shapes were inferred on: their constant tensors point into it.
  std::shared_ptr<const Model> shapesSnapshot_;
  std::shared_ptr<ShapeReport> report_;
  SymBindings bindings_;
  std::shared_ptr<const GivenInputs> givenInputs_;
  Selection selection_;
  Highlight highlight_;
  int listenerToken_ = 0;
  QThread* inferring_ = nullptr;              // the newest run
  std::vector<QPointer<QThread>> workers_;  // every run not yet finished, waited for on destruction
  uint64_t inferenceGeneration_ = 0;
  std::vector<ChangeEvent> pendingChanges_;  // the burst so far; settled from the event loop
  // Values whose type was set since an inference started: the generation current at the edit. An inference
  // of a later generation saw the edit.
  std::unordered_map<const Value*, uint64_t> editedTypes_;
};

}  // namespace onyx::views

Q_DECLARE_METATYPE(onyx::views::Selection)
