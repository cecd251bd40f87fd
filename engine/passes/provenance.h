#pragma once
// Provenance for every pass: after each rewrite (PassContext::endRewrite), the nodes it made name the nodes
// they came from (ir/node_origin.h). A node the rewrite added to a graph it removed nodes from, and a node it
// modified whose output took over a removed node's uses (the Conv a BatchNormalization folded into, which
// keeps itself as an origin), get the origins of the removed nodes: their own origins where they have some,
// else themselves, so origins always name nodes of the model as first loaded. Constant nodes are data, not
// computation: they neither give nor get origins.
#include "ir/rewriter.h"

namespace onyx::passes {

void recordProvenance(Rewriter& rewriter, const Rewriter::RewriteEdits& edits);

}  // namespace onyx::passes
