// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (reductions none/sum/mean, class weights,
// ignore_index), computed in double.
#include <cmath>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

// NLL over log-probabilities logp[N, C, D] (D: the flattened extra dims) with targets [N, D].
Expected<void> nll(KernelContext& ctx, const std::vector<double>& logp, const Dims& inputDims,
                   const TensorValue& target, DataType dtype) {
  int64_t n = inputDims[0], c = inputDims[1], d = 1;
  for (size_t i = 2; i < inputDims.size(); ++i) d *= inputDims[i];
  if (target.count() != n * d)
    return ctx.error("target " + target.describe() + " does not match the input's batch and extra dims", 1);
  const TensorValue& weight = ctx.input(2);
  // weight holds one value per class (fuzz audit: a shorter one was read past its end at a class beyond it).
  if (ctx.hasInput(2)) {
    auto w = ctx.requireTensor(2);
    if (!w) return w.error();
    if ((*w)->count() != c)
      return ctx.error(
          "weight " + (*w)->describe() + " must hold one value per class (" + std::to_string(c) + ")", 2);
  }
  std::string reduction = ctx.attrString("reduction", "mean");
  bool hasIgnore = ctx.hasAttr("ignore_index");
  int64_t ignore = ctx.attrInt("ignore_index", 0);
  std::vector<double> loss(static_cast<size_t>(n * d));
  double weightSum = 0, total = 0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < d; ++k) {
      int64_t t = target.intAt(b * d + k);
      if (hasIgnore && t == ignore) {
        loss[size_t(b * d + k)] = 0;
        continue;
      }
      if (t < 0 || t >= c)
        return ctx.error(
            "target class " + std::to_string(t) + " is out of range for " + std::to_string(c) + " classes",
            1);
      double w = weight.empty() ? 1.0 : weight.doubleAt(t);
      double l = -logp[size_t((b * c + t) * d + k)] * w;
      loss[size_t(b * d + k)] = l;
      weightSum += w;
      total += l;
    }
  Dims outDims;
  if (reduction == "none") {
    outDims.push_back(n);
    outDims.insert(outDims.end(), inputDims.begin() + 2, inputDims.end());
  }
  auto y = ctx.allocateOutput(0, dtype, outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = (*y)->template data<T>();
    if (reduction == "none") {
      for (size_t i = 0; i < loss.size(); ++i) out[i] = fromCompute<T>(ComputeType<T>(loss[i]));
    } else if (reduction == "sum") {
      out[0] = fromCompute<T>(ComputeType<T>(total));
    } else {
      out[0] = fromCompute<T>(ComputeType<T>(weightSum != 0 ? total / weightSum : 0.0));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> nllKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto t = ctx.requireTensor(1);
  if (!t) return t.error();
  if ((*x)->rank() < 2) return ctx.error("input must be [N, C, ...], got " + (*x)->describe(), 0);
  std::vector<double> logp(static_cast<size_t>((*x)->count()));
  for (int64_t i = 0; i < (*x)->count(); ++i) logp[size_t(i)] = (*x)->doubleAt(i);
  return nll(ctx, logp, (*x)->dims(), **t, (*x)->dtype());
}

Expected<void> softmaxCrossEntropyKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto t = ctx.requireTensor(1);
  if (!t) return t.error();
  const TensorValue& scores = **x;
  if (scores.rank() < 2) return ctx.error("scores must be [N, C, ...], got " + scores.describe(), 0);
  int64_t n = scores.dim(0), c = scores.dim(1), d = scores.count() / std::max<int64_t>(n * c, 1);
  std::vector<double> logp(static_cast<size_t>(scores.count()));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < d; ++k) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < c; ++j) mx = std::max(mx, scores.doubleAt((b * c + j) * d + k));
      double sum = 0;
      for (int64_t j = 0; j < c; ++j) sum += std::exp(scores.doubleAt((b * c + j) * d + k) - mx);
      double logSum = std::log(sum) + mx;
      for (int64_t j = 0; j < c; ++j)
        logp[size_t((b * c + j) * d + k)] = scores.doubleAt((b * c + j) * d + k) - logSum;
    }
  if (auto r = nll(ctx, logp, scores.dims(), **t, scores.dtype()); !r) return r;
  if (ctx.wantsOutput(1)) {
    auto lp = ctx.allocateOutput(1, scores.dtype(), scores.dims());
    if (!lp) return lp.error();
    dispatchType<kFloats>(scores.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < logp.size(); ++i)
        (*lp)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(logp[i]));
    });
  }
  return {};
}

}  // namespace

void registerLossCpuKernels(KernelRegistry& r) {
  r.add(kernel("NegativeLogLikelihoodLoss", nllKernel, 12));
  r.add(kernel("SoftmaxCrossEntropyLoss", softmaxCrossEntropyKernel, 12));
}

}  // namespace onyx::exec
