// Convolution reference kernels (Conv, ConvTranspose) for any spatial rank and groups: direct loops, the
// oracle for the oneDNN kernel beside it (conv_dnnl_cpu.cpp).
#include "exec/cpu/window_geometry.h"
#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

// W is read as X's type and B by output channel: another type, or a B of another length, would be read past
// its end (fuzz_run: a ConvTranspose's weights under ASan).
Expected<void> checkWeightsAndBias(const KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                   int64_t outChannels) {
  if (w.dtype() != x.dtype())
    return ctx.error("W " + w.describe() + " must have X's type, " + std::string(dataTypeName(x.dtype())), 1);
  const TensorValue& bias = ctx.input(2);
  if (!bias.empty() && bias.count() != outChannels)
    return ctx.error("B " + bias.describe() + " must hold one value per output channel (" +
                         std::to_string(outChannels) + ")",
                     2);
  return {};
}

Expected<void> convReference(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto ws = ctx.requireTensor(1);
  if (!ws) return ws.error();
  const TensorValue& x = **xs;
  const TensorValue& w = **ws;
  if (x.rank() < 3 || w.rank() != x.rank())
    return ctx.error("needs X and W of the same rank >= 3, got " + x.describe() + " and " + w.describe(), 1);
  int64_t groups = ctx.attrInt("group", 1);
  int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0), cg = w.dim(1);
  if (groups <= 0 || c % groups != 0 || c / groups != cg || m % groups != 0)  // cg * groups may overflow
    return ctx.error("channels of " + x.describe() + " do not match weights " + w.describe() +
                         " with group " + std::to_string(groups),
                     1);
  if (auto checked = checkWeightsAndBias(ctx, x, w, m); !checked) return checked.error();
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  // The weights' window; windowGeometry refuses a kernel_shape that disagrees with it.
  std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  auto g = windowGeometry(ctx, spatial, kernel, false);
  if (!g) return g.error();
  Dims outDims = {n, m};
  for (int64_t o : g->outSize) outDims.push_back(o);
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  const TensorValue& bias = ctx.input(2);
  size_t sr = spatial.size();
  int64_t outSpatial = elementCount(g->outSize), kernelSize = elementCount(kernel),
          inSpatial = elementCount(spatial);
  int64_t mg = m / groups;
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    T* py = (*y)->template data<T>();
    std::vector<int64_t> opos(sr), kpos(sr);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oc = 0; oc < m; ++oc) {
        int64_t grp = oc / mg;
        for (int64_t o = 0; o < outSpatial; ++o) {
          int64_t rest = o;
          for (size_t d = sr; d-- > 0;) {
            opos[d] = rest % g->outSize[d];
            rest /= g->outSize[d];
          }
          double acc = bias.empty() ? 0.0 : bias.doubleAt(oc);
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t k = 0; k < kernelSize; ++k) {
              int64_t kr = k, off = 0;
              bool inside = true;
              for (size_t d = sr; d-- > 0;) {
                kpos[d] = kr % kernel[d];
                kr /= kernel[d];
              }
              int64_t stride = 1;
              for (size_t d = sr; d-- > 0;) {
                int64_t i = opos[d] * g->strides[d] - g->padsBegin[d] + kpos[d] * g->dilations[d];
                if (i < 0 || i >= spatial[d]) inside = false;
                off += i * stride;
                stride *= spatial[d];
              }
              if (!inside) continue;
              double xv = double(ComputeType<T>(px[(b * c + grp * cg + ic) * inSpatial + off]));
              double wv = double(ComputeType<T>(pw[(oc * cg + ic) * kernelSize + k]));
              acc += xv * wv;
            }
          py[(b * m + oc) * outSpatial + o] = fromCompute<T>(ComputeType<T>(acc));
        }
      }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> convTransposeReference(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto ws = ctx.requireTensor(1);
  if (!ws) return ws.error();
  const TensorValue& x = **xs;
  const TensorValue& w = **ws;
  if (x.rank() < 3 || w.rank() != x.rank()) return ctx.error("needs X and W of the same rank >= 3", 1);
  int64_t groups = ctx.attrInt("group", 1);
  int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1);
  const auto outChannels = checkedMul(mg, groups);  // a group of 2^62 overflows
  if (groups <= 0 || w.dim(0) != c || c % groups != 0 || !outChannels)
    return ctx.error("channels do not match weights " + w.describe(), 1);
  const int64_t m = *outChannels;
  if (auto checked = checkWeightsAndBias(ctx, x, w, m); !checked) return checked.error();
  size_t sr = size_t(x.rank() - 2);
  std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
  std::vector<int64_t> kernel =
      ctx.attrInts("kernel_shape").value_or(std::vector<int64_t>(w.dims().begin() + 2, w.dims().end()));
  std::vector<int64_t> strides = ctx.attrInts("strides").value_or(std::vector<int64_t>(sr, 1));
  std::vector<int64_t> dil = ctx.attrInts("dilations").value_or(std::vector<int64_t>(sr, 1));
  std::vector<int64_t> outPad = ctx.attrInts("output_padding").value_or(std::vector<int64_t>(sr, 0));
  std::vector<int64_t> pads = ctx.attrInts("pads").value_or(std::vector<int64_t>(2 * sr, 0));
  auto outShape = ctx.attrInts("output_shape");
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  // output_shape's last sr entries are read (fuzz_run, UBSan: one entry for two spatial dims indexed at -1).
  if (strides.size() != sr || dil.size() != sr || outPad.size() != sr || pads.size() != 2 * sr ||
      (outShape && outShape->size() < sr))
    return ctx.error("attribute sizes do not match the spatial rank", 0);
  std::vector<int64_t> window(w.dims().begin() + 2, w.dims().end());
  if (auto checked = checkConvTransposeWindow(ctx, window, strides, dil, pads); !checked) return checked.error();
  kernel = window;
  const auto outSize = convTransposeOutputSize(spatial, kernel, strides, dil, outPad, autoPad, outShape, pads);
  if (!outSize) return ctx.error("output size passes 2^63 (strides, dilations, output_padding or output_shape too large)", 0);
  const std::vector<int64_t>& out = *outSize;
  Dims outDims = {n, m};
  for (int64_t o : out) outDims.push_back(o);
  auto y = ctx.allocateOutput(0, x.dtype(), outDims);
  if (!y) return y.error();
  const TensorValue& bias = ctx.input(2);
  int64_t inSpatial = elementCount(spatial), outSpatial = elementCount(out),
          kernelSize = elementCount(kernel);
  int64_t cg = c / groups;
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<double> acc(size_t(n * m * outSpatial), 0.0);
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    std::vector<int64_t> ipos(sr), kpos(sr);
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ic = 0; ic < c; ++ic) {
        int64_t grp = ic / cg;
        for (int64_t i = 0; i < inSpatial; ++i) {
          int64_t rest = i;
          for (size_t d = sr; d-- > 0;) {
            ipos[d] = rest % spatial[d];
            rest /= spatial[d];
          }
          double xv = double(ComputeType<T>(px[(b * c + ic) * inSpatial + i]));
          for (int64_t ocg = 0; ocg < mg; ++ocg)
            for (int64_t k = 0; k < kernelSize; ++k) {
              int64_t kr = k;
              for (size_t d = sr; d-- > 0;) {
                kpos[d] = kr % kernel[d];
                kr /= kernel[d];
              }
              int64_t off = 0, stride = 1;
              bool inside = true;
              for (size_t d = sr; d-- > 0;) {
                int64_t o = ipos[d] * strides[d] + kpos[d] * dil[d] - pads[d];
                if (o < 0 || o >= out[d]) inside = false;
                off += o * stride;
                stride *= out[d];
              }
              if (!inside) continue;
              acc[size_t((b * m + grp * mg + ocg) * outSpatial + off)] +=
                  xv * double(ComputeType<T>(pw[(ic * mg + ocg) * kernelSize + k]));
            }
        }
      }
    T* py = (*y)->template data<T>();
    for (int64_t i = 0; i < n * m * outSpatial; ++i) {
      double bv = bias.empty() ? 0.0 : bias.doubleAt((i / outSpatial) % m);
      py[i] = fromCompute<T>(ComputeType<T>(acc[size_t(i)] + bv));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

int64_t convFlops(const KernelContext& ctx) {
  const TensorValue& w = ctx.input(1);
  const Dims x = ctx.inputDims(0);  // a concatenated input is not joined for this
  const int64_t rank = int64_t(x.size());
  if (w.rank() < 3 || rank < 3) return 0;
  // 2 * N * M * (C/group * kernel) * output spatial; output spatial ~ input spatial / stride^rank.
  std::vector<int64_t> strides = ctx.attrInts("strides").value_or(std::vector<int64_t>(size_t(rank - 2), 1));
  if (int64_t(strides.size()) != rank - 2) return 0;
  int64_t outSpatial = 1;
  for (int64_t d = 2; d < rank; ++d)
    outSpatial *= (x[size_t(d)] + strides[size_t(d - 2)] - 1) / std::max<int64_t>(strides[size_t(d - 2)], 1);
  return 2 * x[0] * w.count() * outSpatial;
}

void registerConvCpuKernels(KernelRegistry& r) {
  KernelDef conv = kernel("Conv", convReference, 1);
  conv.flops = convFlops;
  r.add(conv);
  r.add(kernel("ConvTranspose", convTransposeReference, 1));
}

}  // namespace onyx::exec
