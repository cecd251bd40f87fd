#pragma once
// How the canvas answers a burst of edits (ModelDocument::changesSettled): read each event's kind and
// graph, and decide once for the whole burst whether the shown level must be laid out again or only its
// text changed. Laying out runs Graphviz (seconds on big levels) and moves every box; a rename or an
// attribute edit should not. The decision is checked, not trusted: a patch is applied only when a level
// built afresh from the edited IR has the same boxes and edges as the one on screen and its text still
// fits the boxes laid out for it.
#include <memory>
#include <vector>

#include "ir/changes.h"
#include "layout/layout_result.h"

namespace onyx::views {

enum class LevelImpact {
  None,      // nothing the level draws can have changed (edits of other graphs or functions' bodies)
  Relabel,   // text or types may have changed: patch the items if the structure is unchanged
  Relayout,  // boxes or edges were added, removed or rewired in the shown graph
};

// Whether an event of this kind can add, remove or rewire boxes and edges by itself.
bool isStructural(ChangeEvent::Kind kind);

// The burst's effect on a level showing `shown`. Structural edits of the shown graph itself (and
// function edits, which add or remove bodies to enter) lay out again. Edits of a graph nested in it (a
// body of one of its nodes) or enclosing it (a body level shows the outer values it uses as ports) can
// change what the level draws only through the values it shares with them: Relabel, whose structure check
// falls back to a layout when they did. Edits of unrelated graphs: None.
LevelImpact impactOn(const std::vector<ChangeEvent>& events, const Graph& shown);

// Whether the two levels draw the same boxes and edges, index for index (so one layout serves both):
// the same nodes, groups, terminals and ports, edges between the same items carrying the same values,
// and the same frames. Text (titles, attribute lines, names, tags, types) may differ.
bool sameStructure(const layout::LevelView& shown, const layout::LevelView& fresh);

// The shown layout with `fresh` as its level, when the structure is the same and every fresh box fits
// the box laid out for it; null otherwise (the caller lays out again).
//
// Why fit and not elide: a box's width comes from its widest line and its height from its line count. A
// longer attribute value or name on a box with room to spare fits as it is. Text that would overflow is
// not elided: the box then hides what it exists to show (an elided shape or kernel reads as another
// value), so that case, rare for renames and attribute edits, pays for one layout. A box whose text got
// shorter keeps its laid-out size: it is only roomier than a fresh layout would make it.
std::shared_ptr<const layout::LevelLayout> patchedLayout(const layout::LevelLayout& shown,
                                                         std::shared_ptr<const layout::LevelView> fresh);

}  // namespace onyx::views
