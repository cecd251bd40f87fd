#pragma once
// Builds the LevelView the canvas and `onyx render` lay out: boxes measured with the graph style's fonts,
// edges labelled from shape inference.
#include <memory>

#include "layout/level_view.h"
#include "util/expected.h"

namespace onyx {
struct ShapeInference;
}

namespace onyx::views {

Expected<std::shared_ptr<const layout::LevelView>> buildStyledLevel(const layout::LevelRequest& request,
                                                                    const ScopeTree& scopes,
                                                                    const ShapeInference* inference);

}  // namespace onyx::views
