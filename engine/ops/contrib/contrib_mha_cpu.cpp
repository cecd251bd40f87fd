// com.microsoft MultiHeadAttention: attention over already projected Q, K, V (the bias of the projection
// optionally added here), 3D (B, S, heads * H) or, for key and value, (B, heads, L, H). key_padding_mask:
// lengths (B), or 0/1 (B, total) / (B, S, total); attention_bias; past_key/past_value with present =
// past + L; unidirectional. float32 arithmetic on any float storage.
// A fast variant and its reference (contrib_math.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kBias = 3, kPadding = 4, kAttentionBias = 5, kPastKey = 6, kPastValue = 7;

struct MhaDims {
  int64_t batch = 0, seq = 0, kvSeq = 0, heads = 0, headSize = 0, vHeadSize = 0, past = 0, total = 0;
  bool bnshKv = false;
};

Expected<MhaDims> readMhaDims(const KernelContext& ctx, const TensorValue& q, const TensorValue& k, const TensorValue& v) {
  MhaDims d;
  d.heads = ctx.attrInt("num_heads", 0);
  if (d.heads <= 0) return ctx.error("num_heads must be positive");
  if (q.rank() != 3 || q.dim(2) % d.heads) return ctx.error("query must be (batch, sequence, heads * head_size), got " + q.describe(), kQuery);
  d.batch = q.dim(0);
  d.seq = q.dim(1);
  d.headSize = q.dim(2) / d.heads;
  d.bnshKv = k.rank() == 4;
  if (d.bnshKv) {
    if (k.dims() != Dims{d.batch, d.heads, k.dim(2), d.headSize} || v.rank() != 4 || v.dim(0) != d.batch || v.dim(2) != k.dim(2) || v.dim(1) != d.heads)
      return ctx.error("4D key/value must be (batch, num_heads, length, head_size)", kKey);
    d.kvSeq = k.dim(2);
    d.vHeadSize = v.dim(3);
  } else {
    if (k.rank() != 3 || v.rank() != 3 || k.dim(0) != d.batch || v.dim(0) != d.batch || k.dim(2) != q.dim(2) || v.dim(1) != k.dim(1) || v.dim(2) % d.heads)
      return ctx.error("key " + k.describe() + " and value " + v.describe() + " do not fit query " + q.describe(), kKey);
    d.kvSeq = k.dim(1);
    d.vHeadSize = v.dim(2) / d.heads;
  }
  if (ctx.hasInput(kPastKey) != ctx.hasInput(kPastValue)) return ctx.error("past_key and past_value go together");
  if (ctx.hasInput(kPastKey)) {
    const TensorValue& pk = ctx.input(kPastKey);
    const TensorValue& pv = ctx.input(kPastValue);
    if (pk.dims() != Dims{d.batch, d.heads, pk.dim(2), d.headSize} || pv.dims() != Dims{d.batch, d.heads, pk.dim(2), d.vHeadSize})
      return ctx.error("past_key/past_value must be (batch, num_heads, past_length, head_size)", kPastKey);
    d.past = pk.dim(2);
  }
  d.total = d.past + d.kvSeq;
  return d;
}

// The additive mask (batch, query, key) from key_padding_mask and unidirectional; empty when neither.
Expected<std::vector<float>> paddingBias(const KernelContext& ctx, const MhaDims& d) {
  const bool causal = ctx.attrInt("unidirectional", 0) != 0;
  if (!ctx.hasInput(kPadding) && !causal) return std::vector<float>();
  const float filter = ctx.attrFloat("mask_filter_value", -10000.0f);
  std::vector<float> bias(size_t(d.batch * d.seq * d.total), 0.0f);
  auto at = [&](int64_t b, int64_t s, int64_t t) -> float& { return bias[size_t((b * d.seq + s) * d.total + t)]; };
  if (ctx.hasInput(kPadding)) {
    const TensorValue& m = ctx.input(kPadding);
    if (m.dtype() != DataType::Int32) return ctx.unsupportedType(kPadding);
    const int32_t* v = m.data<int32_t>();
    if (m.rank() == 1 && m.dim(0) == d.batch) {
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t s = 0; s < d.seq; ++s)
          for (int64_t t = std::clamp<int64_t>(v[b], 0, d.total); t < d.total; ++t) at(b, s, t) = filter;
    } else if (m.rank() == 2 && m.dim(0) == d.batch && m.dim(1) == d.total) {
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t s = 0; s < d.seq; ++s)
          for (int64_t t = 0; t < d.total; ++t) at(b, s, t) = v[b * d.total + t] > 0 ? 0.0f : filter;
    } else if (m.rank() == 3 && m.dims() == Dims{d.batch, d.seq, d.total}) {
      for (int64_t i = 0; i < m.count(); ++i) bias[size_t(i)] = v[i] > 0 ? 0.0f : filter;
    } else {
      return ctx.error("key_padding_mask " + m.describe() + " is none of (batch), (batch, total) or (batch, sequence, total)", kPadding);
    }
  }
  if (causal) {
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t s = 0; s < d.seq; ++s)
        for (int64_t t = d.past + s + 1; t < d.total; ++t) at(b, s, t) = std::numeric_limits<float>::lowest();
  }
  return bias;
}

// Rows of one head (heads of `size` channels) from a 3D (B, L, heads * size) or 4D (B, heads, L, size) float
// tensor, plus the bias slice, into `dst` at row `offset`.
void gatherHead(const float* src, bool bnsh, int64_t b, int64_t h, int64_t rows, int64_t heads, int64_t size,
                const float* bias, float* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* from = bnsh ? src + ((b * heads + h) * rows + r) * size : src + (b * rows + r) * heads * size + h * size;
    for (int64_t i = 0; i < size; ++i) dst[r * size + i] = from[i] + (bias ? bias[h * size + i] : 0.0f);
  }
}

template <bool Fast>
Expected<void> runMultiHeadAttention(KernelContext& ctx) {
  const ContribMath& math = contribMath<Fast>();
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [qInput, kInput, vInput] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& q = qInput; const auto& k = kInput; const auto& v = vInput;
  for (size_t i : {kQuery, kKey, kValue, kBias, kAttentionBias, kPastKey, kPastValue})
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  if (ctx.wantsOutput(3) || ctx.hasInput(8) || ctx.hasInput(9)) return ctx.error("MultiHeadAttention's qk output, past_sequence_length and cache_indirection are not supported");
  auto dims = readMhaDims(ctx, q, k, v);
  if (!dims) return dims.error();
  const MhaDims d = *dims;
  const std::vector<float> bias = floatsOf(ctx.input(kBias));
  const int64_t qHidden = d.heads * d.headSize, vHidden = d.heads * d.vHeadSize;
  if (!bias.empty() && (d.bnshKv || int64_t(bias.size()) != 2 * qHidden + vHidden))
    return ctx.error("bias must hold 2 * hidden + v_hidden values and needs 3D key and value", kBias);
  auto mask = paddingBias(ctx, d);
  if (!mask) return mask.error();
  std::vector<float> extra;
  int64_t extraBatch = 0, extraHead = 0;
  if (ctx.hasInput(kAttentionBias)) {
    const TensorValue& ab = ctx.input(kAttentionBias);
    if (ab.rank() != 4 || (ab.dim(0) != 1 && ab.dim(0) != d.batch) || (ab.dim(1) != 1 && ab.dim(1) != d.heads) || ab.dim(2) != d.seq ||
        ab.dim(3) != d.total)
      return ctx.error("attention_bias " + ab.describe() + " must be (batch or 1, num_heads or 1, sequence, total)", kAttentionBias);
    extra = floatsOf(ab);
    extraHead = ab.dim(1) == 1 ? 0 : d.seq * d.total;
    extraBatch = ab.dim(0) == 1 ? 0 : ab.dim(1) * d.seq * d.total;
  }
  std::vector<float> qScratch, kScratch, vScratch;
  const float* qf = floatData(q, qScratch);
  const float* kf = floatData(k, kScratch);
  const float* vf = floatData(v, vScratch);
  const std::vector<float> pastKeys = floatsOf(ctx.input(kPastKey)), pastValues = floatsOf(ctx.input(kPastValue));
  auto y = ctx.allocateOutput(0, q.dtype(), {d.batch, d.seq, vHidden});
  if (!y) return y.error();
  TensorValue* present[2] = {nullptr, nullptr};
  for (size_t out = 1; out <= 2; ++out) {
    if (!ctx.wantsOutput(out)) continue;
    auto p = ctx.allocateOutput(out, q.dtype(), {d.batch, d.heads, d.total, out == 1 ? d.headSize : d.vHeadSize});
    if (!p) return p.error();
    present[out - 1] = *p;
  }
  std::vector<float> result(size_t(d.batch * d.seq * vHidden));
  const float scale = ctx.attrFloat("scale", 0.0f) != 0.0f ? ctx.attrFloat("scale", 0.0f) : 1.0f / std::sqrt(float(d.headSize));
  const float* qBias = bias.empty() ? nullptr : bias.data();
  const float* kBias = bias.empty() ? nullptr : bias.data() + qHidden;
  const float* vBias = bias.empty() ? nullptr : bias.data() + 2 * qHidden;
  ctx.parallelFor(d.batch * d.heads, 1, [&](int64_t pb, int64_t pe) {
    std::vector<float> queries(size_t(d.seq * d.headSize)), keys(size_t(d.total * d.headSize)), values(size_t(d.total * d.vHeadSize));
    std::vector<float> scores(size_t(d.seq * d.total));
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t b = p / d.heads, h = p % d.heads;
      gatherHead(qf, false, b, h, d.seq, d.heads, d.headSize, qBias, queries.data());
      if (d.past) {
        std::memcpy(keys.data(), &pastKeys[size_t(p * d.past * d.headSize)], size_t(d.past * d.headSize) * 4);
        std::memcpy(values.data(), &pastValues[size_t(p * d.past * d.vHeadSize)], size_t(d.past * d.vHeadSize) * 4);
      }
      gatherHead(kf, d.bnshKv, b, h, d.kvSeq, d.heads, d.headSize, kBias, keys.data() + d.past * d.headSize);
      gatherHead(vf, d.bnshKv, b, h, d.kvSeq, d.heads, d.vHeadSize, vBias, values.data() + d.past * d.vHeadSize);
      if (present[0]) {
        const size_t bytes = elementBytes(q.dtype());
        fromFloats(q.dtype(), keys.data(), static_cast<uint8_t*>(present[0]->raw()) + size_t(p * d.total * d.headSize) * bytes, d.total * d.headSize);
      }
      if (present[1]) {
        const size_t bytes = elementBytes(q.dtype());
        fromFloats(q.dtype(), values.data(), static_cast<uint8_t*>(present[1]->raw()) + size_t(p * d.total * d.vHeadSize) * bytes,
                   d.total * d.vHeadSize);
      }
      if (d.seq == 0 || d.total == 0) continue;
      math.gemmSerial(false, true, d.seq, d.total, d.headSize, scale, queries.data(), d.headSize, keys.data(), d.headSize, 0.0f, scores.data(),
                  d.total);
      if (!mask->empty()) math.addInto(scores.data(), mask->data() + b * d.seq * d.total, d.seq * d.total);
      if (!extra.empty()) math.addInto(scores.data(), extra.data() + b * extraBatch + h * extraHead, d.seq * d.total);
      math.softmaxRows(scores.data(), scores.data(), d.seq, d.total, false);
      math.gemmSerial(false, false, d.seq, d.vHeadSize, d.total, 1.0f, scores.data(), d.total, values.data(), d.vHeadSize, 0.0f,
                  result.data() + b * d.seq * vHidden + h * d.vHeadSize, vHidden);
    }
  });
  fromFloats(q.dtype(), result.data(), (*y)->raw(), int64_t(result.size()));
  return {};
}

}  // namespace

void registerMultiHeadAttentionCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "MultiHeadAttention", runMultiHeadAttention<false>, runMultiHeadAttention<true>);
}

}  // namespace onyx::exec::contrib
