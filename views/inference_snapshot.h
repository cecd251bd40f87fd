#pragma once
// Background work on a model reads a snapshot, never the model the UI thread edits. The snapshot is a
// Rewriter::copyModel copy taken on the UI thread when the job starts (nodes keep their ids, tensors share
// their immutable bytes); the job's result names the snapshot's values, so before the views use it the
// result is moved onto the live model by stable identity: a graph by its owner node's id (bodies) or its
// function's name, a value by its name within its graph. Only a result whose snapshot is still what the
// live model is (no edit since the copy) is moved; an outdated one is dropped by the caller and re-run.
#include <memory>

#include "ir/model.h"
#include "shapes/shape_inference.h"

namespace onyx::views {

// A copy of `live` for a worker to read while the UI thread edits `live`.
std::shared_ptr<const Model> snapshotOf(const Model& live);

// `inference` (computed on `snapshot`) keyed by the values of `live` instead. Values of the snapshot with no
// counterpart in `live` are left out. Constant tensors still point into the snapshot: the caller keeps it
// alive as long as the result.
ShapeInference rebaseInference(ShapeInference inference, const Model& snapshot, const Model& live);

}  // namespace onyx::views
