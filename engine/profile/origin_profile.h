#pragma once
// A profile of an optimized model painted on the model it was optimized from, through provenance (each node a
// pass makes names the original nodes it came from, ir/node_origin.h). An optimized node standing for one
// original node gives it all its time; one standing for several (a Conv with its folded BatchNormalization, a
// fused element-wise chain) splits its time over them by their estimated FLOPs (static_flops.h), as the
// fused-kernel attribution does, and the last takes the rounding remainder so the shares add up exactly.
// Original nodes no optimized node stands for (removed as dead, identities, folded into constants) get zero
// and say so.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/model.h"
#include "profile/node_metrics.h"
#include "profile/profile.h"

namespace onyx::profile {

enum class OriginFate {
  Kept,      // runs as itself in the optimized model: its time is measured
  Merged,    // one of several nodes one optimized node stands for: its time is a FLOPs share, estimated
  Removed,   // nothing in the optimized model stands for it: no time
};
const char* fateName(OriginFate fate);  // "kept", "merged", "removed"

struct OriginTime {
  NodeId node = kNoNode;  // in the original model
  std::string name;
  std::string opType;
  OriginFate fate = OriginFate::Removed;
  int64_t flops = 0;    // estimated per run: its weight among the nodes it was merged with
  int64_t totalNs = 0;  // its share of the optimized nodes' time, over all their events
  int64_t count = 0;    // events of the optimized nodes it has a share of
  std::vector<std::string> from;  // the optimized nodes it has a share of, by name
};

struct OriginProfile {
  std::vector<OriginTime> nodes;  // every node of the original main graph, in graph order
  int64_t totalNs = 0;            // all main-graph node time of the optimized profile
  int64_t placedNs = 0;           // the part given to original nodes (totalNs unless some is unplaced)
  std::vector<std::string> unplaced;  // optimized nodes with time that stand for no original node
  int iterations = 1;
  size_t count(OriginFate fate) const;
};

// `optimizedProfile`'s events must name nodes of `optimized` (a run of it, or mapOntoModel). `bindings` size
// the original's symbolic input dims for the FLOPs estimates (the run's bindings); a group none of whose
// FLOPs are known shares equally.
OriginProfile paintOnOriginal(const Profile& optimizedProfile, const Model& optimized, const Model& original,
                              const SymBindings& bindings = {});

// The original nodes' figures for the graph overlay (node_metrics.h): time per node; removed nodes are absent.
ProfileMetrics originMetrics(const OriginProfile& origins);

// Whether `optimized` can be painted on `original`: every node of its main graph stands for nodes of
// `original`, through its origins or as itself (found by name, or by id and op type).
bool descendsFrom(const Model& optimized, const Model& original);

}  // namespace onyx::profile
