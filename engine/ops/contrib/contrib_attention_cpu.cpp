// com.microsoft Attention: the BERT / GPT-2 self-attention ONNX Runtime's optimizer fuses. One product makes
// Q, K and V from the input and the merged weights (16-bit weights widened a panel at a time), then per
// (batch, head) scores = scale * Q K^T + mask + attention_bias, a softmax per row and the product with V,
// all in float32. Masks: right-padding lengths (batch), end and start positions (2 * batch), a raw 0/1
// mask (batch, total) or (batch, sequence, total), and the unidirectional (causal) mask; past and present
// key/value (2, batch, heads, length, head_size); do_rotary rotates Q and K by position (rotary_embedding_dim).
// The fast variant multiplies on the panel micro-kernel (nbits_gemm.h); the reference in plain loops.
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"
#include "ops/contrib/nbits_gemm.h"
#include "util/limits.h"

namespace onyx::exec::contrib {
namespace {

constexpr size_t kInput = 0, kWeights = 1, kBias = 2, kMask = 3, kPast = 4, kAttentionBias = 5, kPastLength = 6;

struct AttentionDims {
  int64_t batch = 0, seq = 0, inHidden = 0, heads = 0;
  int64_t qHidden = 0, kHidden = 0, vHidden = 0, headSize = 0, vHeadSize = 0;
  int64_t past = 0, total = 0;
};

Expected<AttentionDims> readDims(const KernelContext& ctx, const TensorValue& x, const TensorValue& w) {
  AttentionDims d;
  if (x.rank() != 3) return ctx.error("input must be 3D (batch, sequence, hidden), got " + x.describe(), kInput);
  if (w.rank() != 2 || w.dim(0) != x.dim(2))
    return ctx.error("weights " + w.describe() + " must be [input hidden " + std::to_string(x.dim(2)) + ", Q+K+V hidden]", kWeights);
  d.batch = x.dim(0);
  d.seq = x.dim(1);
  d.inHidden = x.dim(2);
  d.heads = ctx.attrInt("num_heads", 0);
  if (d.heads <= 0) return ctx.error("num_heads must be positive");
  if (auto sizes = ctx.attrInts("qkv_hidden_sizes")) {
    if (sizes->size() != 3) return ctx.error("qkv_hidden_sizes must have 3 values");
    d.qHidden = (*sizes)[0];
    d.kHidden = (*sizes)[1];
    d.vHidden = (*sizes)[2];
  } else {
    d.qHidden = d.kHidden = d.vHidden = w.dim(1) / 3;
  }
  // Sizes from the file: negative ones could still add up to the weights' width, and INT64_MAX overflows the sum.
  const auto qkHidden = checkedAdd(d.qHidden, d.kHidden);
  const auto packedHidden = qkHidden ? checkedAdd(*qkHidden, d.vHidden) : std::nullopt;
  if (d.qHidden < 0 || d.kHidden < 0 || d.vHidden < 0 || packedHidden != w.dim(1) || d.qHidden != d.kHidden ||
      d.qHidden % d.heads || d.vHidden % d.heads)
    return ctx.error("weights " + w.describe() + " do not split into Q, K and V hidden sizes divisible by " +
                         std::to_string(d.heads) + " heads", kWeights);
  d.headSize = d.qHidden / d.heads;
  d.vHeadSize = d.vHidden / d.heads;
  if (ctx.hasInput(kPast)) {
    const TensorValue& past = ctx.input(kPast);
    if (past.rank() != 5 || past.dim(0) != 2 || past.dim(1) != d.batch || past.dim(2) != d.heads ||
        past.dim(4) != d.headSize || d.vHeadSize != d.headSize)
      return ctx.error("past " + past.describe() + " must be [2, batch, num_heads, past_length, head_size]", kPast);
    d.past = past.dim(3);
  }
  d.total = d.past + d.seq;
  return d;
}

// The additive mask per (batch, query, key): 0 to attend, mask_filter_value (or the lowest float for the
// causal part) to skip. Empty when the node has neither mask nor unidirectional.
Expected<std::vector<float>> maskBias(const KernelContext& ctx, const AttentionDims& d) {
  const bool causal = ctx.attrInt("unidirectional", 0) != 0;
  if (!ctx.hasInput(kMask) && !causal) return std::vector<float>();
  const float filter = ctx.attrFloat("mask_filter_value", -10000.0f);
  const int64_t rowLength = d.total, perBatch = d.seq * d.total;
  std::vector<float> bias(size_t(d.batch * perBatch), 0.0f);
  if (ctx.hasInput(kMask)) {
    const TensorValue& m = ctx.input(kMask);
    if (m.dtype() != DataType::Int32) return ctx.unsupportedType(kMask);
    const int32_t* v = m.data<int32_t>();
    const bool ends = m.rank() == 1 && m.dim(0) == d.batch, endsStarts = m.rank() == 1 && m.dim(0) == 2 * d.batch;
    if (m.rank() == 2 && m.dims() == Dims{d.batch, d.total}) {
      for (int64_t b = 0; b < d.batch; ++b)
        for (int64_t s = 0; s < d.seq; ++s)
          for (int64_t t = 0; t < d.total; ++t) bias[size_t(b * perBatch + s * rowLength + t)] = v[b * d.total + t] > 0 ? 0.0f : filter;
    } else if (m.rank() == 3 && m.dims() == Dims{d.batch, d.seq, d.total}) {
      for (int64_t i = 0; i < m.count(); ++i) bias[size_t(i)] = v[i] > 0 ? 0.0f : filter;
    } else if (ends || endsStarts) {
      for (int64_t b = 0; b < d.batch; ++b) {
        const int64_t end = std::clamp<int64_t>(v[b], 0, d.total);
        const int64_t start = endsStarts ? std::clamp<int64_t>(v[b + d.batch], 0, d.total) : 0;
        for (int64_t s = 0; s < d.seq; ++s)
          for (int64_t t = 0; t < d.total; ++t)
            if (t >= end || t < start) bias[size_t(b * perBatch + s * rowLength + t)] = filter;
      }
    } else {
      return ctx.error("mask_index " + m.describe() + " is none of (batch), (2 * batch), (batch, total_sequence) or "
                       "(batch, sequence, total_sequence) with batch " + std::to_string(d.batch) + " and total_sequence " +
                       std::to_string(d.total), kMask);
    }
  }
  if (causal) {
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t s = 0; s < d.seq; ++s)
        for (int64_t t = d.past + s + 1; t < d.total; ++t)
          bias[size_t(b * perBatch + s * rowLength + t)] = std::numeric_limits<float>::lowest();
  }
  return bias;
}

// attention_bias (batch or 1, heads or 1, sequence, total) as strides; validated against the dims.
Expected<std::vector<float>> attentionBias(const KernelContext& ctx, const AttentionDims& d, int64_t& batchStride,
                                           int64_t& headStride) {
  if (!ctx.hasInput(kAttentionBias)) return std::vector<float>();
  const TensorValue& ab = ctx.input(kAttentionBias);
  if (!isFloatStorage(ab.dtype())) return ctx.unsupportedType(kAttentionBias);
  if (ab.rank() != 4 || (ab.dim(0) != 1 && ab.dim(0) != d.batch) || (ab.dim(1) != 1 && ab.dim(1) != d.heads) ||
      ab.dim(2) != d.seq || ab.dim(3) != d.total)
    return ctx.error("attention_bias " + ab.describe() + " must be (batch or 1, num_heads or 1, sequence, total_sequence)",
                     kAttentionBias);
  headStride = ab.dim(1) == 1 ? 0 : d.seq * d.total;
  batchStride = ab.dim(0) == 1 ? 0 : ab.dim(1) * d.seq * d.total;
  return floatsOf(ab);
}

// do_rotary: Q and K of every head rotate by their token's position (past + s), as ONNX Runtime's CUDA kernels
// do (its CPU kernel has none): the first rotary_embedding_dim channels (default the head size; the spec names
// 32, 64 and 128, any even size up to the head size works here), pairs (i, i + rotary_dim / 2), the angle of
// pair i at position p being p / 10000^(2i / rotary_dim) in float32 as theirs.
Expected<void> rotateQueriesAndKeys(const KernelContext& ctx, const AttentionDims& d, float* qkv, int64_t wide) {
  const int64_t rotaryDim = ctx.attrInt("rotary_embedding_dim", 0) > 0 ? ctx.attrInt("rotary_embedding_dim", 0) : d.headSize;
  if (rotaryDim % 2 || rotaryDim > d.headSize)
    return ctx.error("rotary_embedding_dim " + std::to_string(rotaryDim) + " must be even and at most the head size " +
                     std::to_string(d.headSize));
  const int64_t half = rotaryDim / 2;
  std::vector<float> cosines(size_t(d.seq * half)), sines(size_t(d.seq * half));
  for (int64_t s = 0; s < d.seq; ++s)
    for (int64_t i = 0; i < half; ++i) {
      const float angle = float(d.past + s) / std::pow(10000.0f, float(2 * i) / float(rotaryDim));
      cosines[size_t(s * half + i)] = std::cos(angle);
      sines[size_t(s * half + i)] = std::sin(angle);
    }
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t s = 0; s < d.seq; ++s) {
      float* row = qkv + (b * d.seq + s) * wide;
      for (int64_t h = 0; h < d.heads; ++h) {
        rotateHead(row + h * d.headSize, half, &cosines[size_t(s * half)], &sines[size_t(s * half)], false);
        rotateHead(row + d.qHidden + h * d.headSize, half, &cosines[size_t(s * half)], &sines[size_t(s * half)], false);
      }
    }
  return {};
}

template <bool Fast>
Expected<void> runAttention(KernelContext& ctx) {
  const ContribMath& math = contribMath<Fast>();
  auto inputs = requireTensors<2>(ctx);
  if (!inputs) return inputs.error();
  const auto& [xInput, wInput] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& x = xInput; const auto& w = wInput;
  for (size_t i : {kInput, kWeights, kBias, kPast})
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  if (ctx.attrInt("past_present_share_buffer", 0) != 0 || ctx.hasInput(kPastLength))
    return ctx.error("Attention with past_present_share_buffer is not supported");
  auto dims = readDims(ctx, x, w);
  if (!dims) return dims.error();
  const AttentionDims d = *dims;
  const int64_t wide = w.dim(1);
  const std::vector<float> bias = floatsOf(ctx.input(kBias));
  if (!bias.empty() && int64_t(bias.size()) != wide) return ctx.error("bias must hold " + std::to_string(wide) + " values", kBias);
  auto mask = maskBias(ctx, d);
  if (!mask) return mask.error();
  int64_t abBatchStride = 0, abHeadStride = 0;
  auto extraBias = attentionBias(ctx, d, abBatchStride, abHeadStride);
  if (!extraBias) return extraBias.error();

  thread_local std::vector<float> xKept, qkvKept, outKept;
  KeptFloats xScratch(xKept), qkvLease(qkvKept), outLease(outKept);
  const float* xf = floatData(ctx, x, xScratch.vector());
  // Q, K and V, and the heads' outputs below, in buffers kept between runs (named by pointer in the lambda).
  float* qkv = qkvLease.resize(size_t(d.batch * d.seq * wide));
  if constexpr (Fast) {
    gemmWeights(ctx, xf, d.batch * d.seq, d.inHidden, w, false, bias.empty() ? nullptr : bias.data(), qkv, wide);
  } else {
    const std::vector<float> weights = floatsOf(w);
    math.gemm(false, false, d.batch * d.seq, wide, d.inHidden, 1.0f, xf, d.inHidden, weights.data(), wide, 0.0f, qkv, wide);
    for (int64_t r = 0; r < d.batch * d.seq && !bias.empty(); ++r) math.addInto(qkv + r * wide, bias.data(), wide);
  }
  if (ctx.attrInt("do_rotary", 0) != 0) {
    if (auto rotated = rotateQueriesAndKeys(ctx, d, qkv, wide); !rotated) return rotated.error();
  }

  auto y = ctx.allocateOutput(0, x.dtype(), {d.batch, d.seq, d.vHidden});
  if (!y) return y.error();
  TensorValue* present = nullptr;
  if (ctx.wantsOutput(1)) {
    if (d.vHeadSize != d.headSize) return ctx.error("present needs equal K and V head sizes");
    auto p = ctx.allocateOutput(1, x.dtype(), {2, d.batch, d.heads, d.total, d.headSize});
    if (!p) return p.error();
    present = *p;
  }
  const int64_t outCount = d.batch * d.seq * d.vHidden;
  float* out = outLease.resize(size_t(outCount));
  const TensorValue& past = ctx.input(kPast);
  const float scale = ctx.attrFloat("scale", 1.0f / std::sqrt(float(d.headSize)));
  const NBitsIsa isa = nativeNBitsIsa();
  const bool gathered = d.past || present;  // K and V copied into one block each, with the past, for present
  ctx.parallelFor(d.batch * d.heads, 1, [&](int64_t pb, int64_t pe) {
    // Each of the pool's threads keeps its own buffers between calls (a thread_local named in this lambda is
    // the running thread's).
    thread_local std::vector<float> keysKept, valuesKept, scoresKept, keyPanelsKept, valuePanelsKept;
    KeptFloats keysLease(keysKept), valuesLease(valuesKept), scoresLease(scoresKept), keyPanelsLease(keyPanelsKept),
        valuePanelsLease(valuePanelsKept);
    float* keys = gathered ? keysLease.resize(size_t(d.total * d.headSize)) : nullptr;
    float* values = gathered ? valuesLease.resize(size_t(d.total * d.vHeadSize)) : nullptr;
    float* scores = scoresLease.resize(size_t(d.seq * d.total));
    float* keyPanels = keyPanelsLease.resize(Fast ? size_t(packedPanelFloats(d.headSize, d.total)) : 0);
    float* valuePanels = valuePanelsLease.resize(Fast ? size_t(packedPanelFloats(d.total, d.vHeadSize)) : 0);
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t b = p / d.heads, h = p % d.heads;
      const float* rows = qkv + b * d.seq * wide;
      if (gathered) {
        if (d.past) {
          const size_t bytes = elementBytes(past.dtype());
          const auto* base = static_cast<const uint8_t*>(past.raw());
          const int64_t block = d.past * d.headSize;
          toFloats(past.dtype(), base + size_t((b * d.heads + h) * block) * bytes, keys, block);
          toFloats(past.dtype(), base + size_t(((d.batch + b) * d.heads + h) * block) * bytes, values, block);
        }
        for (int64_t s = 0; s < d.seq; ++s) {
          std::memcpy(keys + (d.past + s) * d.headSize, rows + s * wide + d.qHidden + h * d.headSize, size_t(d.headSize) * 4);
          std::memcpy(values + (d.past + s) * d.vHeadSize, rows + s * wide + d.qHidden + d.kHidden + h * d.vHeadSize,
                      size_t(d.vHeadSize) * 4);
        }
      }
      if (present) {
        const size_t bytes = elementBytes(x.dtype());
        auto* base = static_cast<uint8_t*>(present->raw());
        const int64_t block = d.total * d.headSize;
        fromFloats(x.dtype(), keys, base + size_t((b * d.heads + h) * block) * bytes, block);
        fromFloats(x.dtype(), values, base + size_t(((d.batch + b) * d.heads + h) * block) * bytes, block);
      }
      if (d.seq == 0) continue;
      if (d.total == 0) {
        for (int64_t s = 0; s < d.seq; ++s) std::fill_n(&out[size_t((b * d.seq + s) * d.vHidden + h * d.vHeadSize)], d.vHeadSize, 0.0f);
        continue;
      }
      // Q (scale K)^T, then P V, on the panel micro-kernel (nbits_gemm.h): K and V packed into its panels
      // from their blocks, or from their rows in qkv.
      const float* k = gathered ? keys : rows + d.qHidden + h * d.headSize;
      const float* v = gathered ? values : rows + d.qHidden + d.kHidden + h * d.vHeadSize;
      const int64_t ldk = gathered ? d.headSize : wide, ldv = gathered ? d.vHeadSize : wide;
      float* headOut = out + b * d.seq * d.vHidden + h * d.vHeadSize;
      if constexpr (Fast) {
        packPanels(k, ldk, d.headSize, d.total, true, keyPanels, scale);
        multiplyPacked(rows + h * d.headSize, wide, d.seq, keyPanels, d.headSize, d.total, scores, d.total, isa);
      } else {
        math.gemmSerial(false, true, d.seq, d.total, d.headSize, scale, rows + h * d.headSize, wide, k, ldk, 0.0f, scores, d.total);
      }
      if (!mask->empty()) math.addInto(scores, mask->data() + b * d.seq * d.total, d.seq * d.total);
      if (!extraBias->empty()) math.addInto(scores, extraBias->data() + b * abBatchStride + h * abHeadStride, d.seq * d.total);
      math.softmaxRows(scores, scores, d.seq, d.total, false);
      if constexpr (Fast) {
        packPanels(v, ldv, d.total, d.vHeadSize, false, valuePanels);
        multiplyPacked(scores, d.total, d.seq, valuePanels, d.total, d.vHeadSize, headOut, d.vHidden, isa);
      } else {
        math.gemmSerial(false, false, d.seq, d.vHeadSize, d.total, 1.0f, scores, d.total, v, ldv, 0.0f, headOut, d.vHidden);
      }
    }
  });
  fromFloats(x.dtype(), out, (*y)->raw(), outCount);
  return {};
}

}  // namespace

void registerContribAttentionCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "Attention", runAttention<false>, runAttention<true>);
}

}  // namespace onyx::exec::contrib
