#pragma once
// Which scopes are structurally the same: the same ops, attributes and wiring in the same order, whatever
// their names and weights (the 12 layers of a transformer, the repeated blocks of a CNN). The graph view
// marks such groups "×12 alike" so a level of repeated blocks says so at a glance.
#include <cstdint>
#include <vector>

#include "ir/scopes.h"

namespace onyx {

// A hash of the scope's structure, child scopes included: per node (in scope order, then each child's) its
// domain, op type, attributes other than tensors and graphs, and where each input comes from (a node of
// the scope by position and output slot, a weight or folded constant, or the n-th distinct value entering
// from outside). Names, weights and folded Constant nodes do not count.
uint64_t structureHash(const Scope& scope);

// For each scope of `scopes`, how many of them (itself included) share its structure.
std::vector<size_t> repeatCounts(const std::vector<const Scope*>& scopes);

}  // namespace onyx
