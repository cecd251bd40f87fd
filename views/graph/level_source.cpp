#include "graph/level_source.h"

#include "graph/edge_label.h"
#include "graph/graph_style.h"

namespace onyx::views {

Expected<std::shared_ptr<const layout::LevelView>> buildStyledLevel(const layout::LevelRequest& request,
                                                                    const ScopeTree& scopes,
                                                                    const ShapeInference* inference) {
  layout::EdgeLabeler labeler;
  labeler.label = [inference](const Value* value) {
    return edgeLabelOf(value, inference).plainText().toStdString();
  };
  labeler.unresolved = [inference](const Value* value) { return edgeLabelOf(value, inference).unresolved; };
  auto level = layout::buildLevel(request, scopes, labeler, GraphStyle::standard().textWidth());
  if (!level) return level.error();
  return std::make_shared<const layout::LevelView>(std::move(level).value());
}

}  // namespace onyx::views
