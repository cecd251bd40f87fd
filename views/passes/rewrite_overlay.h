#pragma once
// Step Into on the canvas: before a rewrite applies, the nodes it matches are painted in the match colour;
// after, the nodes it made or modified in the result colour, through the canvas's node overlay with a legend.
// No focus clears the overlay.
namespace onyx::views {

class GraphCanvas;
struct RewriteFocus;

void showRewriteFocus(GraphCanvas& canvas, const RewriteFocus& focus);

}  // namespace onyx::views
