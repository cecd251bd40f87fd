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

// ConvTranspose's strides and dilations positive, its kernel_shape (if given) the weights' window, its pads
// not negative: the arithmetic of convTransposeOutputSize assumes them.
Expected<void> checkConvTransposeWindow(const KernelContext& ctx, const std::vector<int64_t>& weightsWindow,
                                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                        const std::vector<int64_t>& pads);

// ConvTranspose's output size per spatial dim. output_shape and SAME_* fix it; the difference is split as
// padding (written into `pads`, begins then ends), the odd unit going to the end for SAME_UPPER and to the
// start otherwise. Shared by the CPU and Vulkan kernels. Nullopt when a size passes int64 (strides of 2^40,
// an output_shape of INT64_MIN): the callers' error.
std::optional<std::vector<int64_t>> convTransposeOutputSize(const std::vector<int64_t>& spatial, const std::vector<int64_t>& kernel,
                                                            const std::vector<int64_t>& strides,
                                                            const std::vector<int64_t>& dilations,
                                                            const std::vector<int64_t>& outputPadding,
                                                            const std::string& autoPad,
                                                            const std::optional<std::vector<int64_t>>& outputShape,
                                                            std::vector<int64_t>& pads);

}  // namespace onyx::exec
