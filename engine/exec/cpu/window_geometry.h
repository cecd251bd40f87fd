#pragma once
// Output sizes and padding of convolution and pooling windows (auto_pad, pads, strides, dilations,
// ceil_mode), shared by the reference kernels and the oneDNN ones.
#include <optional>
#include <string>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations, padsBegin, padsEnd, outSize;
};

// `spatial`: input spatial dims; `kernel`: window; reads strides/dilations/pads/auto_pad/ceil_mode.
Expected<WindowGeometry> windowGeometry(const KernelContext& ctx, const std::vector<int64_t>& spatial,
                                        const std::vector<int64_t>& kernel, bool ceilMode);

}  // namespace onyx::exec
