#pragma once
// Stores inferred shapes in the model as value_info, so other tools see them: symbolic dims become dim_param
// strings (`floor((H - 1)/2) + 1`, which inference reads back as expressions), unknown dims stay empty.
#include <memory>

#include "ir/rewriter.h"
#include "shapes/shape_inference.h"

namespace onyx {

// The type as written to a file: expressions as named dims (Dim::symbol of their printed form).
Type typeForFile(const Type& inferred);

// Sets the type of every node output in the model (bodies included) to its inferred type, and lists the
// values that are not graph outputs in value_info, in one transaction; returns it for undo.
std::shared_ptr<ChangeLog> writeBack(Model& model, const ShapeInference& inference);

}  // namespace onyx
