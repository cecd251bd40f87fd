// Shape functions of convolutions and pools: output spatial dims are floor((in + pads - dilated kernel) /
// stride) + 1, kept as expressions when the input's spatial dims are symbolic.
#include "ops/nn/nn_shapes.h"
#include "util/limits.h"

namespace onyx::nn_shapes {

using namespace shapes;

namespace {

std::vector<int64_t> intsOr(const ShapeContext& ctx, std::string_view name, size_t count, int64_t fallback) {
  auto given = ctx.attrInts(name);
  return given && given->size() == count ? *given : std::vector<int64_t>(count, fallback);
}

}  // namespace

Expected<Shape> windowOutput(ShapeContext& ctx, const Shape& input, const std::vector<Dim>& kernel, bool ceilMode) {
  size_t spatial = kernel.size();
  if (input.size() != spatial + 2) {
    return ctx.error(ctx.node().opType() + " input " + ctx.describeInput(0) + " has rank " + std::to_string(input.size()) +
                     " but the kernel has " + std::to_string(spatial) + " spatial dims");
  }
  auto strides = intsOr(ctx, "strides", spatial, 1);
  auto dilations = intsOr(ctx, "dilations", spatial, 1);
  auto pads = intsOr(ctx, "pads", 2 * spatial, 0);
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  const std::string& op = ctx.node().opType();
  bool pool = op == "MaxPool" || op == "LpPool";  // as exec/cpu/window_geometry: AveragePool defines it
  Shape out;
  out.reserve(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    const Dim& in = input[i + 2];
    if (strides[i] <= 0 || dilations[i] <= 0) return ctx.error("strides and dilations must be positive");
    // The kernels refuse these too (exec/cpu/window_geometry): a size computed from them would be wrong.
    if (auto k = kernel[i].value(); k && *k <= 0)
      return ctx.error(op + " kernel_shape has " + std::to_string(*k) + " on spatial axis " + std::to_string(i) +
                       "; it must be positive");
    for (int64_t pad : {pads[i], pads[i + spatial]}) {
      if (pad < 0) return ctx.error(op + " pads must not be negative, got " + std::to_string(pad));
      if (auto k = kernel[i].value(); pool && k && pad >= (*k - 1) * dilations[i] + 1)
        return ctx.error(op + " pad " + std::to_string(pad) + " on spatial axis " + std::to_string(i) +
                         " must be smaller than the window (" + std::to_string((*k - 1) * dilations[i] + 1) + ")");
    }
    if (auto k = kernel[i].value(); k && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER" && !in.isStatic()) {
      // The common case on symbolic sizes, in as few expression operations as possible (same result):
      // floor((in + pads - dilatedKernel) / stride) + 1, which is `in` itself for 3x3/pad 1/stride 1.
      int64_t offset = (autoPad == "VALID" ? 0 : pads[i] + pads[i + spatial]) - ((*k - 1) * dilations[i] + 1);
      if (strides[i] == 1) {
        out.push_back(offset + 1 == 0 ? in : dimAdd(in, Dim(offset + 1)));
        continue;
      }
      Dim span = offset == 0 ? in : dimAdd(in, Dim(offset));
      Dim stride(strides[i]);
      out.push_back(dimAdd(ceilMode ? dimCeilDiv(span, stride) : dimFloorDiv(span, stride), Dim(1)));
      continue;
    }
    Dim dilatedKernel = dimAdd(dimMul(dimSub(kernel[i], Dim(1)), Dim(dilations[i])), Dim(1));
    Dim stride(strides[i]);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out.push_back(dimCeilDiv(in, stride));
      continue;
    }
    Dim padded = autoPad == "VALID" ? in : dimAdd(in, Dim(pads[i] + pads[i + spatial]));
    Dim span = dimSub(padded, dilatedKernel);
    if (auto v = span.value(); v && *v < 0) {
      return ctx.error(ctx.node().opType() + " window (" + dilatedKernel.toString() + ") is larger than the padded input (" +
                       padded.toString() + ") on spatial axis " + std::to_string(i));
    }
    Dim count = dimAdd(ceilMode ? dimCeilDiv(span, stride) : dimFloorDiv(span, stride), Dim(1));
    // With ceil_mode a last window that would start in the end padding is dropped.
    if (ceilMode) {
      auto c = count.value(), n = in.value();
      if (c && n && (*c - 1) * strides[i] >= *n + pads[i]) count = Dim(*c - 1);
    }
    out.push_back(count);
  }
  return out;
}

Expected<void> inferConv(ShapeContext& ctx) {
  const std::string& op = ctx.node().opType();
  bool quantized = op == "QLinearConv";
  size_t weightInput = quantized ? 3 : 1;
  DataType elem = op == "ConvInteger" ? DataType::Int32 : (quantized ? ctx.inputElemType(7) : ctx.inputElemType(0));
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  const auto& w = ctx.inputShape(weightInput);
  std::vector<Dim> kernel;
  if (auto given = ctx.attrInts("kernel_shape")) kernel = dimsFromInts(*given);
  else if (w && w->size() >= 2) kernel.assign(w->begin() + 2, w->end());
  else if (x.size() >= 2) kernel = ctx.unknownDims(x.size() - 2, ctx.node().opType() + ": rank of the weights is unknown");
  if (w && w->size() == x.size() && kernel.size() + 2 == w->size())
    for (size_t i = 0; i < kernel.size(); ++i)
      if (auto k = kernel[i].value(), dim = (*w)[i + 2].value(); k && dim && *k != *dim)
        return ctx.error(op + " kernel_shape has " + std::to_string(*k) + " on spatial axis " + std::to_string(i) +
                         " but the weights " + ctx.describeInput(weightInput) + " have " + std::to_string(*dim));
  auto spatial = windowOutput(ctx, x, kernel, false);
  if (!spatial) return spatial.error();
  Dim channels = w && !w->empty() ? (*w)[0] : ctx.unknownDim(op + ": rank of the weights is unknown");
  if (w && w->size() >= 2 && x.size() >= 2) {
    int64_t group = ctx.attrInt("group", 1);
    if (auto c = x[1].value(), per = (*w)[1].value(); c && per && group > 0 && (*c % group != 0 || *c / group != *per)) {
      return ctx.error(op + " input " + ctx.describeInput(0) + " has " + std::to_string(*c) + " channels but the weights " +
                       ctx.describeInput(weightInput) + " expect " + (checkedMul(*per, group) ? std::to_string(*per * group) : "more than 2^63") + " (" + std::to_string(*per) +
                       " per group x " + std::to_string(group) + " groups)");
    }
  }
  Shape out{x[0], channels};
  out.insert(out.end(), spatial->begin(), spatial->end());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferConvTranspose(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  if (x.size() < 3) return ctx.error("ConvTranspose input must have rank >= 3");
  size_t spatial = x.size() - 2;
  const auto& w = ctx.inputShape(1);
  std::vector<Dim> kernel;
  if (auto given = ctx.attrInts("kernel_shape")) kernel = dimsFromInts(*given);
  else if (w && w->size() == x.size()) kernel.assign(w->begin() + 2, w->end());
  else kernel = ctx.unknownDims(spatial, "ConvTranspose: rank of the weights is unknown");
  // A kernel_shape of another length read past its end below (found by fuzz_shapes under ASan).
  if (kernel.size() != spatial)
    return ctx.error("ConvTranspose kernel_shape has " + std::to_string(kernel.size()) + " entries but the input " +
                     ctx.describeInput(0) + " has " + std::to_string(spatial) + " spatial axes; give one per axis");
  int64_t group = ctx.attrInt("group", 1);
  Dim channels = w && w->size() >= 2 ? dimMul((*w)[1], Dim(group)) : ctx.unknownDim("ConvTranspose: rank of the weights is unknown");
  Shape out{x[0], channels};
  if (auto outputShape = ctx.attrInts("output_shape")) {
    if (outputShape->size() < spatial) return ctx.error("ConvTranspose output_shape has too few entries");
    for (size_t i = outputShape->size() - spatial; i < outputShape->size(); ++i) out.emplace_back((*outputShape)[i]);
    ctx.setOutputTensor(0, elem, std::move(out));
    return {};
  }
  auto strides = intsOr(ctx, "strides", spatial, 1);
  auto dilations = intsOr(ctx, "dilations", spatial, 1);
  auto pads = intsOr(ctx, "pads", 2 * spatial, 0);
  auto outputPadding = intsOr(ctx, "output_padding", spatial, 0);
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  for (size_t i = 0; i < spatial; ++i) {
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out.push_back(dimMul(x[i + 2], Dim(strides[i])));
      continue;
    }
    int64_t padding = autoPad == "VALID" ? 0 : pads[i] + pads[i + spatial];
    Dim dilatedKernel = dimAdd(dimMul(dimSub(kernel[i], Dim(1)), Dim(dilations[i])), Dim(1));
    Dim size = dimAdd(dimMul(Dim(strides[i]), dimSub(x[i + 2], Dim(1))), dimAdd(dilatedKernel, Dim(outputPadding[i] - padding)));
    out.push_back(size);
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferPool(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    ctx.setOutputUnknownRank(1, DataType::Int64, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& x = *ctx.inputShape(0);
  auto kernel = ctx.attrInts("kernel_shape");
  if (!kernel) return ctx.error(ctx.node().opType() + " needs a 'kernel_shape' attribute");
  auto spatial = windowOutput(ctx, x, dimsFromInts(*kernel), ctx.attrInt("ceil_mode", 0) != 0);
  if (!spatial) return spatial.error();
  Shape out{x[0], x[1]};
  out.insert(out.end(), spatial->begin(), spatial->end());
  ctx.setOutputTensor(0, elem, out);
  ctx.setOutputTensor(1, DataType::Int64, std::move(out));
  return {};
}

Expected<void> inferGlobalPool(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  if (out.size() < 2) return ctx.error(ctx.node().opType() + " input must have rank >= 2");
  for (size_t i = 2; i < out.size(); ++i) out[i] = Dim(1);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferMaxUnpool(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  if (ctx.hasInput(2)) {
    if (const auto& value = ctx.inputValue(2)) return ctx.setOutputTensor(0, elem, *value), Expected<void>();
    ctx.setOutputTensor(0, elem, ctx.unknownDims(x.size(), runtimeReason(ctx, 2, "the output shape")));
    return {};
  }
  auto kernel = ctx.attrInts("kernel_shape");
  if (!kernel || kernel->size() + 2 != x.size()) return ctx.error("MaxUnpool needs a 'kernel_shape' attribute matching the input rank");
  size_t spatial = kernel->size();
  auto strides = intsOr(ctx, "strides", spatial, 1);
  auto pads = intsOr(ctx, "pads", 2 * spatial, 0);
  Shape out{x[0], x[1]};
  for (size_t i = 0; i < spatial; ++i) {
    out.push_back(dimAdd(dimMul(dimSub(x[i + 2], Dim(1)), Dim(strides[i])), Dim((*kernel)[i] - pads[i] - pads[i + spatial])));
  }
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferCol2Im(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& x = *ctx.inputShape(0);
  const auto& image = ctx.inputValue(1);
  const auto& block = ctx.inputValue(2);
  if (x.size() != 3) return ctx.error("Col2Im input must have rank 3 (N, C*prod(block), L)");
  if (!image || !block) {
    ctx.setOutputUnknownRank(0, elem, ctx.origin(runtimeReason(ctx, image ? 2 : 1, image ? "the block shape" : "the image shape")));
    return {};
  }
  Shape out{x[0], dimFloorDiv(x[1], dimProduct(*block))};
  out.insert(out.end(), image->begin(), image->end());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferCausalConvWithState(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    ctx.setOutputUnknownRank(1, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& x = *ctx.inputShape(0);
  ctx.setOutputTensor(0, elem, x);
  const auto& w = ctx.inputShape(1);
  if (x.size() != 3) return ctx.error("CausalConvWithState input must have rank 3 (batch, channels, length)");
  Dim kernel = w && w->size() == 3 ? (*w)[2] : ctx.unknownDim("CausalConvWithState: rank of the weights is unknown");
  ctx.setOutputTensor(1, elem, {x[0], x[1], dimSub(kernel, Dim(1))});
  return {};
}

}  // namespace onyx::nn_shapes
