#include <algorithm>

#include "exec/cpu/window_geometry.h"

namespace onyx::exec {

Expected<WindowGeometry> windowGeometry(const KernelContext& ctx, const std::vector<int64_t>& spatial,
                                        const std::vector<int64_t>& kernel, bool ceilMode) {
  size_t n = spatial.size();
  WindowGeometry g;
  g.kernel = kernel;
  g.strides = ctx.attrInts("strides").value_or(std::vector<int64_t>(n, 1));
  g.dilations = ctx.attrInts("dilations").value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = ctx.attrInts("pads").value_or(std::vector<int64_t>(2 * n, 0));
  if (g.strides.size() != n || g.dilations.size() != n || pads.size() != 2 * n || kernel.size() != n)
    return ctx.error(
        "strides, dilations, pads or kernel_shape do not match the input's spatial rank " + std::to_string(n),
        0);
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  g.padsBegin.assign(pads.begin(), pads.begin() + long(n));
  g.padsEnd.assign(pads.begin() + long(n), pads.end());
  for (size_t i = 0; i < n; ++i) {
    if (g.strides[i] <= 0 || g.dilations[i] <= 0)
      return ctx.error("strides and dilations must be positive", 0);
    int64_t effective = (kernel[i] - 1) * g.dilations[i] + 1;
    int64_t out;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (spatial[i] + g.strides[i] - 1) / g.strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * g.strides[i] + effective - spatial[i]);
      g.padsBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.padsEnd[i] = total - g.padsBegin[i];
    } else {
      if (autoPad == "VALID") g.padsBegin[i] = g.padsEnd[i] = 0;
      int64_t span = spatial[i] + g.padsBegin[i] + g.padsEnd[i] - effective;
      if (span < 0) return ctx.error("the window is larger than the padded input", 0);
      out = (ceilMode ? (span + g.strides[i] - 1) / g.strides[i] : span / g.strides[i]) + 1;
      // With ceil_mode, a last window that starts in the end padding is dropped.
      if (ceilMode && (out - 1) * g.strides[i] >= spatial[i] + g.padsBegin[i]) --out;
    }
    g.outSize.push_back(out);
  }
  return g;
}

std::vector<int64_t> convTransposeOutputSize(const std::vector<int64_t>& spatial, const std::vector<int64_t>& kernel,
                                             const std::vector<int64_t>& strides,
                                             const std::vector<int64_t>& dilations,
                                             const std::vector<int64_t>& outputPadding, const std::string& autoPad,
                                             const std::optional<std::vector<int64_t>>& outputShape,
                                             std::vector<int64_t>& pads) {
  const size_t sr = spatial.size();
  std::vector<int64_t> out(sr);
  for (size_t d = 0; d < sr; ++d) {
    int64_t full = strides[d] * (spatial[d] - 1) + outputPadding[d] + (kernel[d] - 1) * dilations[d] + 1;
    auto padTo = [&](int64_t target) {
      int64_t total = full - target;
      bool upper = autoPad == "SAME_UPPER";
      pads[d] = upper ? total / 2 : total - total / 2;
      pads[d + sr] = upper ? total - total / 2 : total / 2;
      out[d] = target;
    };
    if (outputShape) {
      padTo((*outputShape)[outputShape->size() - sr + d]);
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      padTo(spatial[d] * strides[d]);
    } else {
      out[d] = full - pads[d] - pads[d + sr];
    }
  }
  return out;
}

}  // namespace onyx::exec
