#pragma once
// Planning step 5, choose layouts: which steps may leave output 0 channels-last (Step::channelsLastOut).
// Kernels that write it (oneDNN's Conv) or layout-transparent nodes qualify when every reader takes that
// layout (a Conv's data input or residual, another such node). The runtime side (views of channels-last
// tensors, conversions) is exec/channels_last.h.
// Of those, a kernel's output whose readers all take channel blocks of 16 too (a Conv's data input or
// residual: Step::blocked16Out) may be written so. oneDNN's Winograd convolutions work in that layout, and
// resnet18's chains of them had spent 1.3 of 10 ms a run in reorders to and from channels-last.
#include <unordered_set>

#include "exec/graph_plan.h"

namespace onyx::exec {

// Readers come later in the schedule, so one backward sweep decides every step. `pinned` values (graph
// outputs, values read by bodies: everything read outside this graph's steps) stay plain.
// `channelBlocks`: whether steps may also be given Step::blocked16Out.
void chooseChannelsLastOutputs(GraphPlan& plan, const std::unordered_set<const onyx::Value*>& pinned,
                               bool channelBlocks);

}  // namespace onyx::exec
