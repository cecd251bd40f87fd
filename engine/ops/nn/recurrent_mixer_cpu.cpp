// Recurrent sequence mixers with carried state (opset 27): LinearAttention (linear, gated, delta and gated
// delta update rules, grouped query heads) and CausalConvWithState (depthwise causal 1-D convolution whose
// last kernel-1 inputs carry over to the next call).
#include <cmath>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

// Reads a tensor of any float type as doubles.
std::vector<double> toDoubles(const TensorValue& t) {
  std::vector<double> out(static_cast<size_t>(t.count()));
  for (int64_t i = 0; i < t.count(); ++i) out[size_t(i)] = t.doubleAt(i);
  return out;
}

Expected<void> writeDoubles(KernelContext& ctx, size_t index, DataType dtype, Dims dims,
                            const std::vector<double>& values) {
  if (!ctx.wantsOutput(index)) return {};
  auto y = ctx.allocateOutput(index, dtype, std::move(dims));
  if (!y) return y.error();
  bool ok = dispatchType<kFloats>(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < values.size(); ++i)
      (*y)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(values[i]));
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Per time step t and kv head h, with state S [Dk, Dv]:
//   gated rules first decay S's rows: S[i, :] *= exp(decay[i]) (one decay per head or per key channel);
//   linear/gated: S += k v^T;  delta/gated_delta: S += k (beta (v - S^T k))^T;
//   each query head g of the group reading h outputs scale * q_g^T S.
Expected<void> linearAttentionKernel(KernelContext& ctx) {
  std::vector<const TensorValue*> qkv;
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if ((*t)->rank() != 3) return ctx.error("must be [batch, sequence, heads * head_size]", int(i));
    qkv.push_back(*t);
  }
  const TensorValue &query = *qkv[0], &key = *qkv[1], &value = *qkv[2];
  int64_t qHeads = ctx.attrInt("q_num_heads", 0), kvHeads = ctx.attrInt("kv_num_heads", 0);
  if (qHeads < 1 || kvHeads < 1 || qHeads % kvHeads != 0)
    return ctx.error("q_num_heads must be a positive multiple of kv_num_heads");
  int64_t batch = query.dim(0), steps = query.dim(1);
  if (query.dim(2) % qHeads || value.dim(2) % kvHeads)
    return ctx.error("hidden sizes must divide by the head counts");
  int64_t dk = query.dim(2) / qHeads, dv = value.dim(2) / kvHeads, group = qHeads / kvHeads;
  if (key.dim(0) != batch || key.dim(1) != steps || key.dim(2) != kvHeads * dk)
    return ctx.error("key must be [" + std::to_string(batch) + ", " + std::to_string(steps) + ", " +
                         std::to_string(kvHeads * dk) + "], got " + key.describe(),
                     1);
  if (value.dim(0) != batch || value.dim(1) != steps)
    return ctx.error("value must match query's batch and sequence", 2);
  std::string rule = ctx.attrString("update_rule", "gated_delta");
  bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
  if (!gated && !delta && rule != "linear")
    return ctx.error("update_rule must be linear, gated, delta or gated_delta, got '" + rule + "'");
  double scale = ctx.hasAttr("scale") ? ctx.attrFloat("scale", 1.0f) : 1.0 / std::sqrt(double(dk));
  std::vector<double> state(static_cast<size_t>(batch * kvHeads * dk * dv), 0.0);
  if (ctx.hasInput(3)) {
    const TensorValue& past = ctx.input(3);
    if (past.dims() != Dims{batch, kvHeads, dk, dv})
      return ctx.error("past_state must be " + describeTensor(query.dtype(), {batch, kvHeads, dk, dv}), 3);
    state = toDoubles(past);
  }
  std::vector<double> decay, beta;
  int64_t decayWidth = 0, betaWidth = 0;  // per time step and batch: entries per kv head
  if (gated) {
    if (!ctx.hasInput(4)) return ctx.error("the " + rule + " rule needs decay", 4);
    const TensorValue& d = ctx.input(4);
    if (d.rank() != 3 || d.dim(0) != batch || d.dim(1) != steps ||
        (d.dim(2) != kvHeads && d.dim(2) != kvHeads * dk))
      return ctx.error("decay must be [batch, sequence, kv_num_heads] or [..., kv_num_heads * head_size]", 4);
    decay = toDoubles(d);
    decayWidth = d.dim(2) / kvHeads;
  }
  if (delta) {
    if (!ctx.hasInput(5)) return ctx.error("the " + rule + " rule needs beta", 5);
    const TensorValue& b = ctx.input(5);
    if (b.rank() != 3 || b.dim(0) != batch || b.dim(1) != steps || (b.dim(2) != kvHeads && b.dim(2) != 1))
      return ctx.error("beta must be [batch, sequence, kv_num_heads] or [batch, sequence, 1]", 5);
    beta = toDoubles(b);
    betaWidth = b.dim(2);
  }
  std::vector<double> q = toDoubles(query), k = toDoubles(key), v = toDoubles(value);
  std::vector<double> out(static_cast<size_t>(batch * steps * qHeads * dv), 0.0);
  std::vector<double> update(static_cast<size_t>(dv));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < steps; ++t) {
      int64_t row = b * steps + t;
      for (int64_t h = 0; h < kvHeads; ++h) {
        double* s = state.data() + (b * kvHeads + h) * dk * dv;
        const double* kt = k.data() + (row * kvHeads + h) * dk;
        const double* vt = v.data() + (row * kvHeads + h) * dv;
        if (gated)
          for (int64_t i = 0; i < dk; ++i) {
            double factor =
                std::exp(decay[size_t((row * kvHeads + h) * decayWidth + (decayWidth == 1 ? 0 : i))]);
            for (int64_t j = 0; j < dv; ++j) s[i * dv + j] *= factor;
          }
        for (int64_t j = 0; j < dv; ++j) update[size_t(j)] = vt[j];
        if (delta) {
          double bt = beta[size_t(row * betaWidth + (betaWidth == 1 ? 0 : h))];
          for (int64_t j = 0; j < dv; ++j) {
            double retrieved = 0;
            for (int64_t i = 0; i < dk; ++i) retrieved += s[i * dv + j] * kt[i];
            update[size_t(j)] = bt * (vt[j] - retrieved);
          }
        }
        for (int64_t i = 0; i < dk; ++i)
          for (int64_t j = 0; j < dv; ++j) s[i * dv + j] += kt[i] * update[size_t(j)];
        for (int64_t g = 0; g < group; ++g) {
          int64_t qh = h * group + g;
          const double* qt = q.data() + (row * qHeads + qh) * dk;
          double* o = out.data() + (row * qHeads + qh) * dv;
          for (int64_t j = 0; j < dv; ++j) {
            double sum = 0;
            for (int64_t i = 0; i < dk; ++i) sum += qt[i] * s[i * dv + j];
            o[j] = scale * sum;
          }
        }
      }
    }
  auto written = writeDoubles(ctx, 0, query.dtype(), {batch, steps, qHeads * dv}, out);
  if (!written) return written;
  return writeDoubles(ctx, 1, query.dtype(), {batch, kvHeads, dk, dv}, state);
}

// out[b, c, t] = bias[c] + sum_k w[c, 0, k] * padded[b, c, t + k], padded = past_state ++ input along time;
// present_state is padded's last kernel - 1 steps. activation: none, or silu / swish (x * sigmoid(x)).
Expected<void> causalConvWithStateKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto w = ctx.requireTensor(1);
  if (!w) return w.error();
  const TensorValue& in = **x;
  const TensorValue& weight = **w;
  if (in.rank() != 3) return ctx.error("input must be [batch, channels, length], got " + in.describe(), 0);
  int64_t batch = in.dim(0), channels = in.dim(1), length = in.dim(2);
  if (weight.rank() != 3 || weight.dim(0) != channels || weight.dim(1) != 1 || weight.dim(2) < 1)
    return ctx.error("weight must be [channels, 1, kernel] (depthwise), got " + weight.describe(), 1);
  int64_t kernelSize = weight.dim(2), history = kernelSize - 1;
  std::string activation = ctx.attrString("activation", "none");
  bool silu = activation == "silu" || activation == "swish";
  if (!silu && activation != "none")
    return ctx.error("activation must be none, silu or swish, got '" + activation + "'");
  std::vector<double> bias(static_cast<size_t>(channels), 0.0);
  if (ctx.hasInput(2)) {
    const TensorValue& b = ctx.input(2);
    if (b.count() != channels) return ctx.error("bias must have one entry per channel", 2);
    bias = toDoubles(b);
  }
  int64_t padded = history + length;
  std::vector<double> sequence(static_cast<size_t>(batch * channels * padded), 0.0);
  const TensorValue& past = ctx.input(3);
  if (!past.empty() && past.dims() != Dims{batch, channels, history})
    return ctx.error("past_state must be " + describeTensor(in.dtype(), {batch, channels, history}), 3);
  for (int64_t bc = 0; bc < batch * channels; ++bc) {
    for (int64_t i = 0; i < history && !past.empty(); ++i)
      sequence[size_t(bc * padded + i)] = past.doubleAt(bc * history + i);
    for (int64_t i = 0; i < length; ++i)
      sequence[size_t(bc * padded + history + i)] = in.doubleAt(bc * length + i);
  }
  std::vector<double> kernelValues = toDoubles(weight);
  std::vector<double> out(static_cast<size_t>(batch * channels * length));
  std::vector<double> present(static_cast<size_t>(batch * channels * history));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < channels; ++c) {
      const double* seq = sequence.data() + (b * channels + c) * padded;
      for (int64_t t = 0; t < length; ++t) {
        double sum = bias[size_t(c)];
        for (int64_t k = 0; k < kernelSize; ++k) sum += kernelValues[size_t(c * kernelSize + k)] * seq[t + k];
        out[size_t((b * channels + c) * length + t)] = silu ? sum / (1.0 + std::exp(-sum)) : sum;
      }
      for (int64_t i = 0; i < history; ++i)
        present[size_t((b * channels + c) * history + i)] = seq[length + i];
    }
  auto written = writeDoubles(ctx, 0, in.dtype(), {batch, channels, length}, out);
  if (!written) return written;
  return writeDoubles(ctx, 1, in.dtype(), {batch, channels, history}, present);
}

}  // namespace

void registerRecurrentMixerCpuKernels(KernelRegistry& r) {
  r.add(kernel("LinearAttention", linearAttentionKernel, 27));
  r.add(kernel("CausalConvWithState", causalConvWithStateKernel, 27));
}

}  // namespace onyx::exec
