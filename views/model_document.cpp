#include "model_document.h"

#include <QThread>

#include "inference_snapshot.h"

namespace onyx::views {

namespace {
std::atomic<uint64_t> nextDocumentId{1};
}

ModelDocument::ModelDocument(std::shared_ptr<Model> model, QString path, QObject* parent)
    : ModelDocument(model, std::move(path), inferShapes(*model), parent) {}

ModelDocument::ModelDocument(std::shared_ptr<Model> model, QString path, ShapeInference inference,
                             QObject* parent)
    : QObject(parent),
      model_(std::move(model)),
      path_(std::move(path)),
      id_(nextDocumentId.fetch_add(1)),
      shapes_(std::make_shared<ShapeInference>(std::move(inference))),
      report_(std::make_shared<ShapeReport>(buildShapeReport(*model_, *shapes_))) {
  qRegisterMetaType<onyx::views::Selection>();
  // Edits happen on the UI thread (undo commands, passes applied from the GUI), so the relay is direct.
  listenerToken_ = model_->subscribe([this](const ChangeEvent& event) { takeChange(event); });
}

ModelDocument::~ModelDocument() {
  model_->unsubscribe(listenerToken_);
  // Workers call back into this object: none may outlive it.
  for (const QPointer<QThread>& worker : workers_)
    if (worker) worker->wait();
}

void ModelDocument::takeChange(const ChangeEvent& event) {
  ++revision_;
  ++editRevision_;
  if (event.kind == ChangeEvent::Kind::ValueTypeChanged && event.graph) {
    if (const Value* value = event.graph->findValue(event.name)) editedTypes_[value] = inferenceGeneration_;
  }
  if (pendingChanges_.empty())
    QMetaObject::invokeMethod(this, &ModelDocument::settleChanges, Qt::QueuedConnection);
  pendingChanges_.push_back(event);
  Q_EMIT modelChanged(event);
}

void ModelDocument::settleChanges() {
  std::vector<ChangeEvent> events = std::move(pendingChanges_);
  pendingChanges_.clear();
  if (!events.empty()) Q_EMIT changesSettled(events);
}

const Type& ModelDocument::shownType(const Value& value) const {
  if (editedTypes_.contains(&value)) return value.type();
  const InferredValue* inferred = shapes_->find(&value);
  return inferred ? inferred->type : value.type();
}

void ModelDocument::select(const Selection& selection) {
  if (selection == selection_) return;
  selection_ = selection;
  Q_EMIT selectionChanged(selection_);
}

void ModelDocument::focus(const Selection& selection) {
  select(selection);
  Q_EMIT focusRequested(selection);
}

void ModelDocument::setHighlight(const Highlight& highlight) {
  if (highlight == highlight_) return;
  highlight_ = highlight;
  Q_EMIT highlightChanged();
}

void ModelDocument::setBindings(const SymBindings& bindings) {
  bindings_ = bindings;
  startInference();
}

void ModelDocument::setGivenInputs(std::shared_ptr<const GivenInputs> inputs) {
  givenInputs_ = std::move(inputs);
  startInference();
}

void ModelDocument::reinfer() { startInference(); }

void ModelDocument::startInference() {
  uint64_t generation = ++inferenceGeneration_;
  // The UI thread goes on editing model_ (passes, undo) while the worker runs: it reads a copy.
  std::shared_ptr<const Model> snapshot = snapshotOf(*model_);
  const uint64_t snapshotRevision = editRevision_;
  ShapeInferenceOptions options;
  options.bindings = bindings_;
  // The worker holds the loaded tensors the options point at until it is done.
  std::shared_ptr<const GivenInputs> given = givenInputs_;
  if (given) given->applyTo(options);
  QThread* worker = QThread::create([this, snapshot, options, given, generation, snapshotRevision] {
    auto inference = std::make_shared<ShapeInference>(inferShapes(*snapshot, options));
    (void)given;  // held for the options' tensor pointers
    QMetaObject::invokeMethod(
        this,
        [this, snapshot, inference, generation, snapshotRevision] {
          adoptInference(snapshot, inference, generation, snapshotRevision);
        },
        Qt::QueuedConnection);
  });
  // An older run finishes on its own; its result is dropped by generation.
  connect(worker, &QThread::finished, worker, &QObject::deleteLater);
  std::erase_if(workers_, [](const QPointer<QThread>& w) { return w.isNull(); });
  workers_.push_back(worker);
  inferring_ = worker;
  Q_EMIT inferenceStarted();
  worker->start();
}

void ModelDocument::adoptInference(std::shared_ptr<const Model> snapshot, std::shared_ptr<ShapeInference> inference,
                                   uint64_t generation, uint64_t snapshotRevision) {
  if (generation != inferenceGeneration_) return;
  // Edited since the snapshot: the result describes a model that is gone, and no newer run is on its way.
  if (snapshotRevision != editRevision_) {
    startInference();
    return;
  }
  inferring_ = nullptr;
  shapes_ = std::make_shared<ShapeInference>(rebaseInference(std::move(*inference), *snapshot, *model_));
  shapesSnapshot_ = std::move(snapshot);
  std::erase_if(editedTypes_, [generation](const auto& edit) { return edit.second < generation; });
  report_ = std::make_shared<ShapeReport>(buildShapeReport(*model_, *shapes_));
  ++revision_;
  Q_EMIT shapesChanged();
}

}  // namespace onyx::views
