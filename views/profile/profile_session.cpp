#include "profile_session.h"

#include <QFileInfo>
#include <QSaveFile>

#include "onnx/onnx_io.h"

namespace onyx::views {

ProfileSession::ProfileSession(ModelDocument* document, QObject* parent)
    : QObject(parent), document_(document) {
  flame_ = profile::buildFlameTree(profile_);
}

NodeId ProfileSession::selectedNode() const {
  const Selection& s = document_->selection();
  if (s.node == kNoNode || (s.graph && s.graph != &document_->model().graph())) return kNoNode;
  return s.node;
}

const Node* ProfileSession::node(NodeId id) const {
  return id == kNoNode ? nullptr : document_->model().graph().findNode(id);
}

void ProfileSession::selectNode(NodeId id) {
  if (id == kNoNode || !node(id)) return;
  document_->select(Selection{&document_->model().graph(), id, nullptr});
}

void ProfileSession::setProfile(profile::Profile profile, const QString& source) {
  showProfile(std::move(profile), source, std::nullopt);
}

void ProfileSession::showProfile(profile::Profile profile, const QString& source,
                                 std::optional<profile::OriginProfile> origins) {
  origins_ = std::move(origins);
  profile_ = std::move(profile);
  source_ = source;
  if (profile_.mapped.size() != profile_.events.size() ||
      profile_.format == profile::TraceFormat::OnnxRuntime) {
    mapping_ = profile::mapOntoModel(profile_, document_->model());
  } else {
    mapping_ = {};
    mapping_.events = profile_.events.size();
    for (bool m : profile_.mapped) mapping_.mapped += m;
    profile::assignScopes(profile_, document_->model());
  }
  flame_ = profile::buildFlameTree(profile_);
  byOpType_ = profile::summarize(profile_.events, profile::SummaryKey::OpType);
  byNode_ = profile::summarize(profile_.events, profile::SummaryKey::Node);
  metrics_ = profile::nodeMetrics(profile_);
  attributed_ = profile::attributeFusedTime(profile_, document_->model());
  Q_EMIT profileChanged();
}

void ProfileSession::setRunResult(const profile::RunResult& result) {
  lastRun_ = result;
  memory_ = result.memory;
  if (!result.profile.events.empty()) setProfile(result.profile, QStringLiteral("run"));
  Q_EMIT runFinished();
}

Expected<void> ProfileSession::importTrace(const QString& path) {
  auto read = profile::readTrace(path.toStdString());
  if (!read) return read.error();
  read->mapped.clear();  // map by name onto this model, whatever model recorded it
  setProfile(std::move(*read), QFileInfo(path).fileName());
  return {};
}

namespace {

// The painted shares as a profile of this model: one event per node with time, in graph order, its events'
// time in one span; the optimized run's iteration marks keep per-iteration figures right.
profile::Profile paintedProfile(const profile::OriginProfile& origins, const profile::Profile& optimized) {
  profile::Profile painted;
  painted.iterations = optimized.iterations;
  int64_t start = 0;
  for (const profile::OriginTime& row : origins.nodes) {
    if (row.fate == profile::OriginFate::Removed) continue;
    exec::ProfileEvent event;
    event.node = row.node;
    event.name = row.name;
    event.opType = row.opType;
    event.variant = row.fate == profile::OriginFate::Merged ? "attributed" : "";
    event.startNs = start;
    event.durationNs = row.totalNs;
    event.flops = row.flops * origins.iterations;
    start += row.totalNs;
    painted.events.push_back(std::move(event));
  }
  painted.mapped.assign(painted.events.size(), true);
  return painted;
}

}  // namespace

Expected<void> ProfileSession::importOptimizedTrace(const QString& tracePath, const QString& optimizedModel) {
  auto trace = profile::readTrace(tracePath.toStdString());
  if (!trace) return trace.error();
  auto optimized = loadModel(optimizedModel.toStdString());
  if (!optimized) return optimized.error();
  const Model& original = document_->model();
  if (!profile::descendsFrom(**optimized, original)) {
    return makeError("has nodes that stand for no node of the open model: it was not optimized from it",
                     optimizedModel.toStdString());
  }
  profile::mapOntoModel(*trace, **optimized);
  profile::OriginProfile origins =
      profile::paintOnOriginal(*trace, **optimized, original, document_->bindings());
  profile::Profile painted = paintedProfile(origins, *trace);
  showProfile(std::move(painted),
              QFileInfo(tracePath).fileName() + tr(" (painted from %1)").arg(QFileInfo(optimizedModel).fileName()),
              std::move(origins));
  return {};
}

Expected<void> writeTextFile(const QString& path, const std::string& text) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return makeError("cannot write: " + file.errorString().toStdString(), path.toStdString());
  file.write(text.data(), qint64(text.size()));
  if (!file.commit())
    return makeError("cannot write: " + file.errorString().toStdString(), path.toStdString());
  return {};
}

Expected<void> ProfileSession::exportChromeTrace(const QString& path) const {
  return writeTextFile(path, exec::chromeTraceJson(profile_.events, profile_.iterations));
}

Expected<void> ProfileSession::exportSpeedscope(const QString& path) const {
  return writeTextFile(
      path, profile::speedscopeJson(profile_, QFileInfo(document_->path()).fileName().toStdString()));
}

Expected<void> ProfileSession::exportCsv(const QString& path, profile::SummaryKey key) const {
  return writeTextFile(path, profile::summaryCsv(key == profile::SummaryKey::Node ? byNode_
                                                 : key == profile::SummaryKey::OpType
                                                     ? byOpType_
                                                     : profile::summarize(profile_.events, key)));
}

}  // namespace onyx::views
