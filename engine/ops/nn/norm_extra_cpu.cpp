// More normalizations: RMSNormalization, LpNormalization, MeanVarianceNormalization, GroupNormalization,
// LRN. Computed per row in double.
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

template <class F>
Expected<void> writeLike(KernelContext& ctx, const TensorValue& x, F value) {
  auto y = ctx.allocateOutput(0, x.dtype(), x.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* out = (*y)->template data<T>();
    for (int64_t i = 0; i < x.count(); ++i) out[i] = fromCompute<T>(ComputeType<T>(value(i)));
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> rmsNormKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto ss = ctx.requireTensor(1);
  if (!ss) return ss.error();
  const TensorValue& x = **xs;
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  if (!axis) return ctx.error("axis is out of range", 0);
  double eps = ctx.attrFloat("epsilon", 1e-5f);
  int64_t cols = 1;
  for (int64_t d = *axis; d < x.rank(); ++d) cols *= x.dim(d);
  Dims inner(x.dims().begin() + *axis, x.dims().end());
  // Checked first: broadcastStrides needs a scale of at most the normalized rank (fuzz_run: a longer one
  // overflowed its offset under UBSan).
  auto broadcast = broadcastShapes({&(*ss)->dims(), &inner});
  if (!broadcast || *broadcast != inner)
    return ctx.error("scale " + (*ss)->describe() + " does not broadcast to the normalized dims", 1);
  std::array<std::vector<int64_t>, 1> strides{broadcastStrides((*ss)->dims(), inner)};
  std::vector<double> inv(static_cast<size_t>(x.count() / std::max<int64_t>(cols, 1)));
  for (size_t r = 0; r < inv.size(); ++r) {
    double sq = 0;
    for (int64_t i = 0; i < cols; ++i)
      sq += x.doubleAt(int64_t(r) * cols + i) * x.doubleAt(int64_t(r) * cols + i);
    inv[r] = 1.0 / std::sqrt(sq / double(cols) + eps);
  }
  std::vector<int64_t> scaleIndex(static_cast<size_t>(cols));
  forEachBroadcast<1>(inner, strides,
                      [&](int64_t o, const std::array<int64_t, 1>& off) { scaleIndex[size_t(o)] = off[0]; });
  return writeLike(ctx, x, [&](int64_t i) {
    return x.doubleAt(i) * inv[size_t(i / cols)] * (*ss)->doubleAt(scaleIndex[size_t(i % cols)]);
  });
}

Expected<void> lpNormKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), x.rank());
  if (!axis) return ctx.error("axis is out of range", 0);
  int64_t p = ctx.attrInt("p", 2);
  int64_t len = x.dim(*axis), inner = 1;
  for (int64_t d = *axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  std::vector<double> norm(static_cast<size_t>(x.count() / std::max<int64_t>(len, 1)));
  for (size_t r = 0; r < norm.size(); ++r) {
    int64_t o = int64_t(r) / inner, i = int64_t(r) % inner;
    double s = 0;
    for (int64_t k = 0; k < len; ++k) {
      double v = std::abs(x.doubleAt((o * len + k) * inner + i));
      s += p == 1 ? v : v * v;
    }
    norm[r] = p == 1 ? s : std::sqrt(s);
  }
  return writeLike(ctx, x, [&](int64_t i) {
    int64_t o = i / (len * inner), in = i % inner;
    double nv = norm[size_t(o * inner + in)];
    return nv == 0 ? 0.0 : x.doubleAt(i) / nv;
  });
}

Expected<void> mvnKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  std::vector<int64_t> axes = ctx.attrInts("axes").value_or(std::vector<int64_t>{0, 2, 3});
  std::vector<bool> reduced(static_cast<size_t>(x.rank()), false);
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, x.rank());
    if (!n) return ctx.error("axis is out of range", 0);
    reduced[size_t(*n)] = true;
  }
  Dims keep;
  for (int64_t d = 0; d < x.rank(); ++d) keep.push_back(reduced[size_t(d)] ? 1 : x.dim(d));
  auto strides = broadcastStrides(keep, x.dims());
  std::vector<double> sum(static_cast<size_t>(elementCount(keep)), 0), sq(sum.size(), 0);
  std::array<std::vector<int64_t>, 1> st{strides};
  int64_t per = x.count() / std::max<int64_t>(int64_t(sum.size()), 1);
  forEachBroadcast<1>(x.dims(), st, [&](int64_t o, const std::array<int64_t, 1>& off) {
    sum[size_t(off[0])] += x.doubleAt(o);
    sq[size_t(off[0])] += x.doubleAt(o) * x.doubleAt(o);
  });
  std::vector<int64_t> group(static_cast<size_t>(x.count()));
  forEachBroadcast<1>(x.dims(), st,
                      [&](int64_t o, const std::array<int64_t, 1>& off) { group[size_t(o)] = off[0]; });
  return writeLike(ctx, x, [&](int64_t i) {
    size_t g = size_t(group[size_t(i)]);
    double mean = sum[g] / double(per), var = std::max(0.0, sq[g] / double(per) - mean * mean);
    return (x.doubleAt(i) - mean) / (std::sqrt(var) + 1e-9);
  });
}

Expected<void> groupNormKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& x = ctx.input(0);
  if (x.rank() < 2) return ctx.error("needs rank >= 2 (N, C, ...), got " + x.describe(), 0);
  int64_t groups = ctx.attrInt("num_groups", 1);
  double eps = ctx.attrFloat("epsilon", 1e-5f);
  int64_t n = x.dim(0), c = x.dim(1), inner = x.count() / std::max<int64_t>(n * c, 1);
  if (groups <= 0 || c % groups) return ctx.error("num_groups must divide the channels", 0);
  // scale and bias hold one value per channel (opset 21) or per group (opset 18), both alike (fuzz audit: a
  // shorter one was read past its end).
  const TensorValue& scale = ctx.input(1);
  const TensorValue& bias = ctx.input(2);
  if (scale.count() != c && scale.count() != groups)
    return ctx.error("scale " + scale.describe() + " must hold one value per channel (" + std::to_string(c) +
                     ") or per group (" + std::to_string(groups) + ")", 1);
  if (bias.count() != scale.count())
    return ctx.error("bias " + bias.describe() + " must hold as many values as scale " + scale.describe(), 2);
  // Nothing to normalize; also keeps n * num_groups from sizing the statistics when there are no channels.
  if (x.count() == 0) return writeLike(ctx, x, [](int64_t) { return 0.0; });
  int64_t cg = c / groups, per = cg * inner;
  std::vector<double> mean(static_cast<size_t>(n * groups)), inv(mean.size());
  for (int64_t g = 0; g < n * groups; ++g) {
    double s = 0, sq = 0;
    for (int64_t i = 0; i < per; ++i) {
      double v = x.doubleAt(g * per + i);
      s += v;
      sq += v * v;
    }
    mean[size_t(g)] = s / double(per);
    inv[size_t(g)] =
        1.0 / std::sqrt(std::max(0.0, sq / double(per) - mean[size_t(g)] * mean[size_t(g)]) + eps);
  }
  bool perChannel = scale.count() == c;
  return writeLike(ctx, x, [&](int64_t i) {
    int64_t ch = (i / inner) % c, g = i / per;
    int64_t p = perChannel ? ch : ch / cg;
    return (x.doubleAt(i) - mean[size_t(g)]) * inv[size_t(g)] * scale.doubleAt(p) + bias.doubleAt(p);
  });
}

Expected<void> lrnKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  const TensorValue& x = **xs;
  double alpha = ctx.attrFloat("alpha", 1e-4f), beta = ctx.attrFloat("beta", 0.75f),
         bias = ctx.attrFloat("bias", 1.0f);
  int64_t size = ctx.attrInt("size", 1);
  if (size < 1) return ctx.error("size is " + std::to_string(size) + "; it must be at least 1 (the channels summed)");
  if (x.rank() < 2) return ctx.error("needs rank >= 2, got " + x.describe(), 0);
  int64_t c = x.dim(1), inner = x.count() / std::max<int64_t>(x.dim(0) * c, 1);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  return writeLike(ctx, x, [&](int64_t i) {
    int64_t ch = (i / inner) % c, base = i - ch * inner;
    double s = 0;
    for (int64_t k = std::max<int64_t>(0, ch - lo); k <= std::min(c - 1, ch + hi); ++k)
      s += x.doubleAt(base + k * inner) * x.doubleAt(base + k * inner);
    return x.doubleAt(i) / std::pow(bias + alpha / double(size) * s, beta);
  });
}

}  // namespace

void registerNormExtraCpuKernels(KernelRegistry& r) {
  r.add(kernel("RMSNormalization", rmsNormKernel, 23));
  r.add(kernel("LpNormalization", lpNormKernel, 1));
  r.add(kernel("MeanVarianceNormalization", mvnKernel, 9));
  r.add(kernel("GroupNormalization", groupNormKernel, 18));
  r.add(kernel("LRN", lrnKernel, 1));
}

}  // namespace onyx::exec
