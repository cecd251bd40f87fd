#pragma once
// Time of fused kernels attributed back to the nodes they replaced. A pass that fuses (elementwise-fusion)
// turns a group of nodes into one node calling a model-local function in domain "onyx.fused" whose body holds
// a copy of each original node. A profile sees only the fused kernel; this splits its time over the body's
// nodes in proportion to their FLOPs, and marks every such figure as attributed (estimated, not measured).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dim.h"
#include "profile/profile.h"

namespace onyx::profile {

constexpr std::string_view kFusedDomain = "onyx.fused";

struct AttributedTime {
  NodeId fusedNode = kNoNode;  // the main-graph node that called the fused function
  std::string fusedName;
  std::string function;  // "onyx.fused.Fused_Sigmoid_Mul"
  std::string bodyNode;  // the body's copy of an original node ("Sigmoid_0")
  std::string opType;
  int64_t flops = 0;    // of this body node per run (0 when the fused output's shape is not static)
  double share = 0;     // of the fused node's time, from FLOPs
  int64_t totalNs = 0;  // the fused node's time x share, over all its events
  int64_t count = 0;    // events of the fused node
  bool attributed = true;
};

// Floating-point operations per output element of an element-wise op evaluated directly: one for plain
// arithmetic, more for ops that are compositions (Sigmoid = neg, exp, add, div).
int64_t elementwiseFlopsPerElement(std::string_view opType);

// One row per body node of every fused node the profile's main-graph events name, in body order; the rows
// of one fused node add up to its time. Events need their node resolved (ours, or after mapOntoModel).
std::vector<AttributedTime> attributeFusedTime(const Profile& profile, const Model& model);

}  // namespace onyx::profile
