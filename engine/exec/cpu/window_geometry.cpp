#include <algorithm>
#include <string_view>
#include <utility>

#include "exec/cpu/window_geometry.h"
#include "util/limits.h"

namespace onyx::exec {

namespace {

std::string listText(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// MaxPool and LpPool: a window wholly in the padding has no input to take the max or norm of. (AveragePool
// defines it, as 0 or the padding's average, and models and tests rely on that.)
bool isPool(const Node& node) { return node.opType() == "MaxPool" || node.opType() == "LpPool"; }

// What ONNX's own checker refuses and the arithmetic below would turn into a wrong size instead of an
// error: an empty or negative window (MaxPool kernel 0 made 4x4 into 5x5), negative pads, a pool window that
// lies wholly in the padding, or a kernel_shape that disagrees with the weights it describes.
// Windows, pads, strides and dilations past 2^61 are no real model's, and the window arithmetic below (padded
// sizes, a dilated window, checked to stay under the same bound) would overflow int64 with them.
constexpr int64_t kWindowLimit = int64_t(1) << 61;

Expected<void> checkLimit(const KernelContext& ctx, std::string_view name, const std::vector<int64_t>& values) {
  for (int64_t v : values)
    if (v > kWindowLimit || v < -kWindowLimit)
      return ctx.error(std::string(name) + " " + listText(values) + " must be within 2^61", 0);
  return {};
}

Expected<void> checkWindow(const KernelContext& ctx, const std::vector<int64_t>& kernel,
                           const std::vector<int64_t>& pads, const std::vector<int64_t>& dilations) {
  for (auto [name, values] : {std::pair{"kernel_shape", &kernel}, {"pads", &pads}, {"dilations", &dilations}})
    if (auto within = checkLimit(ctx, name, *values); !within) return within.error();
  for (int64_t k : kernel)
    if (k <= 0) return ctx.error("kernel_shape " + listText(kernel) + " must be positive on every axis", 0);
  if (auto declared = ctx.attrInts("kernel_shape"); declared && *declared != kernel)
    return ctx.error("kernel_shape " + listText(*declared) + " does not match the weights' window " + listText(kernel),
                     1);
  for (int64_t p : pads)
    if (p < 0) return ctx.error("pads " + listText(pads) + " must not be negative", 0);
  // As ONNX's checker: against the dilated window.
  if (isPool(ctx.node()))
    for (size_t i = 0; i < pads.size(); ++i) {
      size_t axis = i % kernel.size();
      int64_t dilation = axis < dilations.size() ? dilations[axis] : 1;
      const auto reach = checkedMul(kernel[axis] - 1, dilation);  // past int64: the window is wider than any pad
      if (reach && pads[i] >= *reach + 1)
        return ctx.error("pads " + listText(pads) + " must be smaller than the window (kernel_shape " +
                             listText(kernel) + ", dilations " + listText(dilations) + "): a window would hold only padding",
                         0);
    }
  return {};
}

}  // namespace

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
  if (auto checked = checkWindow(ctx, kernel, pads, g.dilations); !checked) return checked.error();
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  g.padsBegin.assign(pads.begin(), pads.begin() + long(n));
  g.padsEnd.assign(pads.begin() + long(n), pads.end());
  for (size_t i = 0; i < n; ++i) {
    if (g.strides[i] <= 0 || g.dilations[i] <= 0)
      return ctx.error("strides and dilations must be positive", 0);
    if (g.strides[i] > kWindowLimit) return ctx.error("strides " + listText(g.strides) + " must be within 2^61", 0);
    const auto reach = checkedMul(kernel[i] - 1, g.dilations[i]);
    if (!reach || *reach >= kWindowLimit)
      return ctx.error("kernel_shape " + listText(kernel) + " dilated by " + listText(g.dilations) +
                           " spans past 2^61",
                       0);
    int64_t effective = *reach + 1;
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

Expected<void> checkConvTransposeWindow(const KernelContext& ctx, const std::vector<int64_t>& weightsWindow,
                                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                        const std::vector<int64_t>& pads) {
  for (size_t i = 0; i < strides.size(); ++i)
    if (strides[i] <= 0 || (i < dilations.size() && dilations[i] <= 0))
      return ctx.error("strides " + listText(strides) + " and dilations " + listText(dilations) + " must be positive",
                       0);
  return checkWindow(ctx, weightsWindow, pads, dilations);
}

std::optional<std::vector<int64_t>> convTransposeOutputSize(
    const std::vector<int64_t>& spatial, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
    const std::vector<int64_t>& dilations, const std::vector<int64_t>& outputPadding, const std::string& autoPad,
    const std::optional<std::vector<int64_t>>& outputShape, std::vector<int64_t>& pads) {
  const size_t sr = spatial.size();
  std::vector<int64_t> out(sr);
  for (size_t d = 0; d < sr; ++d) {
    // strides * (spatial - 1) + output_padding + (kernel - 1) * dilations + 1, every step checked.
    auto full = checkedMul(strides[d], spatial[d] - 1);
    if (full) full = checkedAdd(*full, outputPadding[d]);
    auto reach = checkedMul(kernel[d] - 1, dilations[d]);
    if (reach) reach = checkedAdd(*reach, 1);
    full = full && reach ? checkedAdd(*full, *reach) : std::nullopt;
    if (!full) return std::nullopt;
    auto padTo = [&](std::optional<int64_t> target) {
      const auto total = target ? checkedSub(*full, *target) : std::nullopt;
      if (!total) return false;
      bool upper = autoPad == "SAME_UPPER";
      pads[d] = upper ? *total / 2 : *total - *total / 2;
      pads[d + sr] = upper ? *total - *total / 2 : *total / 2;
      out[d] = *target;
      return true;
    };
    if (outputShape) {
      if (!padTo((*outputShape)[outputShape->size() - sr + d])) return std::nullopt;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      if (!padTo(checkedMul(spatial[d], strides[d]))) return std::nullopt;
    } else {
      auto size = checkedSub(*full, pads[d]);
      if (size) size = checkedSub(*size, pads[d + sr]);
      if (!size) return std::nullopt;
      out[d] = *size;
    }
  }
  return out;
}

}  // namespace onyx::exec
