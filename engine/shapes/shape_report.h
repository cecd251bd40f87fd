#pragma once
// What `onyx shapes` and the GUI show about an inference: per-value rows, counts, and the unresolved dims
// grouped by the node and reason where they arose.
#include <memory>
#include <string>
#include <vector>

#include "shapes/shape_inference.h"

namespace onyx {

struct ShapeSummary {
  size_t values = 0;      // graph inputs and node outputs (bodies included), initializers excluded
  size_t staticValues = 0;
  size_t symbolic = 0;    // all dims known, some expressions of graph symbols
  size_t unresolved = 0;  // an unknown rank or dim
  size_t dataDependent = 0;  // unresolved only because of data-dependent ops (NonZero, NonMaxSuppression...)
};

struct ShapeRow {
  const Value* value = nullptr;
  std::string dtype;  // "float32"; "seq(float32)" for sequences
  std::string shape;  // "[N, 3, 224, 224]", "?" for an unknown rank
  std::vector<std::shared_ptr<const DimOrigin>> unknownOrigins;  // one per unknown dim (or the rank)
  std::vector<size_t> unknownDims;  // indices of those dims; the rank's entry has index SIZE_MAX
  bool unresolved = false;
  bool dataDependent = false;
};

struct UnresolvedGroup {
  std::shared_ptr<const DimOrigin> origin;  // null: the model gave no information
  std::vector<const Value*> values;
  bool dataDependent = false;
};

struct ShapeReport {
  std::vector<ShapeRow> rows;
  ShapeSummary summary;
  std::vector<UnresolvedGroup> groups;  // in order of first appearance
};

// Whether an unknown dim with this origin is unknowable without running the model.
bool isDataDependent(const DimOrigin* origin);
// "NonZero '/m/NonZero' (#1433): NonZero: output count depends on the data", as `onyx shapes` names an
// origin; "the model: no size given" for none.
std::string describeOrigin(const DimOrigin* origin);

ShapeReport buildShapeReport(const Model& model, const ShapeInference& inference);

// "values: V, static: S, symbolic: Y, unresolved: U (data-dependent: D)".
std::string summaryLine(const ShapeSummary& summary);
// The table, the summary line and the grouped unresolved dims, as `onyx shapes` prints them.
std::string reportText(const ShapeReport& report);
std::string reportJson(const ShapeReport& report, const ShapeInference& inference);

}  // namespace onyx
