#include "passes/rewrite_overlay.h"

#include "graph/graph_canvas.h"
#include "passes/pass_session.h"

namespace onyx::views {

namespace {
const QColor kMatchedFill{0xf2, 0xb1, 0x3c};
const QColor kResultFill{0x52, 0xc0, 0x6e};
}  // namespace

void showRewriteFocus(GraphCanvas& canvas, const RewriteFocus& focus) {
  if (focus.phase == RewriteFocus::Phase::None) {
    canvas.clearNodeOverlay();
    return;
  }
  const bool matched = focus.phase == RewriteFocus::Phase::Matched;
  const QColor fill = matched ? kMatchedFill : kResultFill;
  const QString label = matched ? QObject::tr("match") : QObject::tr("new");
  std::unordered_map<NodeId, NodeOverlay> overlay;
  for (NodeId node : focus.nodes) overlay[node] = NodeOverlay{fill, label, 1};
  const QString where =
      QObject::tr("%1, rewrite %2 of %3").arg(focus.pass).arg(focus.rewrite).arg(focus.rewrites);
  std::vector<LegendEntry> legend{{fill, matched ? QObject::tr("matched by %1 (not yet applied)").arg(where)
                                                 : QObject::tr("made by %1").arg(where)}};
  canvas.setNodeOverlay(std::move(overlay), std::move(legend),
                        [](double count) { return QObject::tr("%1 in the rewrite").arg(count); });
}

}  // namespace onyx::views
