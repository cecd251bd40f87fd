// com.microsoft GroupQueryAttention: the LLM decoder attention with a KV cache ONNX Runtime's model builder
// emits. Query heads share key/value heads (num_heads / kv_num_heads per group); per batch the total length
// is seqlens_k + 1 and the new tokens sit after the past ones (past length = total - sequence). present_key
// and present_value are the past rows followed by the new ones (rotated when do_rotary); attention is
// causal, optionally limited to a local window and soft-capped. float32 arithmetic on any float storage.
// A fast variant and its reference (contrib_math.h).
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

constexpr size_t kQuery = 0, kKey = 1, kValue = 2, kPastKey = 3, kPastValue = 4, kSeqLens = 5, kTotalLength = 6,
                 kCos = 7, kSin = 8, kPositionIds = 9, kAttentionBias = 10, kHeadSink = 11;

struct GqaDims {
  int64_t batch = 0, seq = 0, heads = 0, kvHeads = 0, headSize = 0, past = 0, present = 0;
  bool packed = false;
};

Expected<GqaDims> readGqaDims(const KernelContext& ctx, const TensorValue& q) {
  GqaDims d;
  d.heads = ctx.attrInt("num_heads", 0);
  d.kvHeads = ctx.attrInt("kv_num_heads", 0);
  if (d.heads <= 0 || d.kvHeads <= 0 || d.heads % d.kvHeads)
    return ctx.error("num_heads must be a positive multiple of kv_num_heads");
  if (d.heads > (int64_t(1) << 31))  // heads + 2 * kv_num_heads below overflows int64 near its maximum
    return ctx.error("num_heads " + std::to_string(d.heads) + " is over 2^31");
  if (q.rank() != 3) return ctx.error("query must be 3D (batch, sequence, hidden), got " + q.describe(), kQuery);
  d.batch = q.dim(0);
  d.seq = q.dim(1);
  d.packed = !ctx.hasInput(kKey);
  const int64_t width = d.packed ? d.heads + 2 * d.kvHeads : d.heads;
  if (q.dim(2) % width) return ctx.error("query hidden size " + std::to_string(q.dim(2)) + " does not split into heads", kQuery);
  d.headSize = q.dim(2) / width;
  if (!d.packed) {
    for (size_t i : {kKey, kValue}) {
      const TensorValue& t = ctx.input(i);
      if (t.rank() != 3 || t.dim(0) != d.batch || t.dim(1) != d.seq || t.dim(2) != d.kvHeads * d.headSize)
        return ctx.error((i == kKey ? "key " : "value ") + t.describe() + " must be (batch, sequence, kv_num_heads * head_size)", int(i));
    }
  }
  if (ctx.hasInput(kPastKey) != ctx.hasInput(kPastValue)) return ctx.error("past_key and past_value go together");
  if (ctx.hasInput(kPastKey)) {
    for (size_t i : {kPastKey, kPastValue}) {
      const TensorValue& t = ctx.input(i);
      if (t.rank() != 4 || t.dim(0) != d.batch || t.dim(1) != d.kvHeads || t.dim(3) != d.headSize)
        return ctx.error("past " + t.describe() + " must be (batch, kv_num_heads, past_length, head_size)", int(i));
    }
    // past_value is read with past_key's length (fuzz: read past a shorter past_value).
    if (ctx.input(kPastValue).dims() != ctx.input(kPastKey).dims())
      return ctx.error("past_value " + ctx.input(kPastValue).describe() + " must have past_key's dims", kPastValue);
    d.past = ctx.input(kPastKey).dim(2);
  }
  d.present = d.past + d.seq;
  return d;
}

// The per-batch positions: total length (seqlens_k + 1) and where the new tokens start.
Expected<std::vector<int64_t>> pastLengths(const KernelContext& ctx, const GqaDims& d) {
  const TensorValue& lens = ctx.input(kSeqLens);
  if (lens.dtype() != DataType::Int32 || lens.count() != d.batch)
    return ctx.error("seqlens_k " + lens.describe() + " must be int32 (batch)", kSeqLens);
  std::vector<int64_t> starts(size_t(d.batch));
  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t total = int64_t(lens.data<int32_t>()[b]) + 1;
    if (total < d.seq || total > d.present)
      return ctx.error("seqlens_k[" + std::to_string(b) + "] + 1 = " + std::to_string(total) + " is outside [sequence " +
                       std::to_string(d.seq) + ", past + sequence " + std::to_string(d.present) + "]", kSeqLens);
    starts[size_t(b)] = total - d.seq;
  }
  return starts;
}

struct RotaryTables {
  std::vector<float> cos, sin;
  int64_t half = 0, rows = 0;
  bool interleaved = false;
};

Expected<RotaryTables> rotaryTables(const KernelContext& ctx, const GqaDims& d, DataType queryType) {
  RotaryTables r;
  if (ctx.attrInt("do_rotary", 0) == 0) return r;
  const TensorValue& c = ctx.input(kCos);
  const TensorValue& s = ctx.input(kSin);
  if (c.empty() || s.empty() || c.rank() != 2 || c.dims() != s.dims() || 2 * c.dim(1) > d.headSize)
    return ctx.error("do_rotary needs cos_cache and sin_cache of the same (max_position, rotary_dim / 2) shape", kCos);
  // The caches are widened as the query's float type (fuzz: 1-byte caches were read as 2-byte floats, past their end).
  for (size_t i : {kCos, kSin})
    if (ctx.input(i).dtype() != queryType)
      return ctx.error("cos_cache and sin_cache must have the query's type " + std::string(dataTypeName(queryType)) + ", got " +
                           ctx.input(i).describe(), int(i));
  r.cos = floatsOf(c);
  r.sin = floatsOf(s);
  r.half = c.dim(1);
  r.rows = c.dim(0);
  r.interleaved = ctx.attrInt("rotary_interleaved", 0) != 0;
  return r;
}

template <bool Fast>
Expected<void> runGroupQueryAttention(KernelContext& ctx) {
  const ContribMath& math = contribMath<Fast>();
  auto qs = ctx.requireTensor(kQuery);
  if (!qs) return qs.error();
  const TensorValue& q = **qs;
  for (size_t i : {kQuery, kKey, kValue, kPastKey, kPastValue})
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype())) return ctx.unsupportedType(int(i));
  if (!ctx.hasInput(kSeqLens) || !ctx.hasInput(kTotalLength)) return ctx.error("seqlens_k and total_sequence_length are required");
  if (ctx.hasInput(kAttentionBias) || ctx.hasInput(kHeadSink) || ctx.attrInt("smooth_softmax", 0) != 0)
    return ctx.error("GroupQueryAttention with attention_bias, head_sink or smooth_softmax is not supported");
  auto dims = readGqaDims(ctx, q);
  if (!dims) return dims.error();
  const GqaDims d = *dims;
  auto starts = pastLengths(ctx, d);
  if (!starts) return starts.error();
  auto rotary = rotaryTables(ctx, d, q.dtype());
  if (!rotary) return rotary.error();
  const std::vector<int64_t> positionIds = ctx.hasInput(kPositionIds) ? ctx.input(kPositionIds).toInts() : std::vector<int64_t>();
  if (!positionIds.empty() && int64_t(positionIds.size()) != d.batch * d.seq)
    return ctx.error("position_ids must hold batch x sequence values", kPositionIds);

  const int64_t hs = d.headSize, group = d.heads / d.kvHeads, qWidth = q.dim(2);
  std::vector<float> qScratch, kScratch, vScratch;
  const float* qf = floatData(q, qScratch);
  const float* kf = d.packed ? qf + d.heads * hs : floatData(ctx.input(kKey), kScratch);
  const float* vf = d.packed ? qf + (d.heads + d.kvHeads) * hs : floatData(ctx.input(kValue), vScratch);
  const int64_t kvStride = d.packed ? qWidth : d.kvHeads * hs;
  // Rotated queries and the present keys/values, per (batch, head, position), in float.
  std::vector<float> queries(size_t(d.batch * d.heads * d.seq * hs));
  std::vector<float> keys(size_t(d.batch * d.kvHeads * d.present * hs), 0.0f), values(keys.size(), 0.0f);
  auto angleRow = [&](int64_t b, int64_t s) -> Expected<int64_t> {
    const int64_t pos = positionIds.empty() ? (*starts)[size_t(b)] + s : positionIds[size_t(b * d.seq + s)];
    if (pos < 0 || pos >= rotary->rows) return ctx.error("position " + std::to_string(pos) + " is outside the rotary caches", kCos);
    return pos;
  };
  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t start = (*starts)[size_t(b)];
    for (int64_t s = 0; s < d.seq; ++s) {
      int64_t row = 0;
      if (rotary->half) {
        auto r = angleRow(b, s);
        if (!r) return r.error();
        row = *r;
      }
      const float* c = rotary->cos.data() + row * rotary->half;
      const float* sn = rotary->sin.data() + row * rotary->half;
      for (int64_t h = 0; h < d.heads; ++h) {
        float* dst = &queries[size_t(((b * d.heads + h) * d.seq + s) * hs)];
        std::memcpy(dst, qf + (b * d.seq + s) * qWidth + h * hs, size_t(hs) * 4);
        if (rotary->half) rotateHead(dst, rotary->half, c, sn, rotary->interleaved);
      }
      for (int64_t h = 0; h < d.kvHeads; ++h) {
        float* kd = &keys[size_t(((b * d.kvHeads + h) * d.present + start + s) * hs)];
        std::memcpy(kd, kf + (b * d.seq + s) * kvStride + h * hs, size_t(hs) * 4);
        if (rotary->half) rotateHead(kd, rotary->half, c, sn, rotary->interleaved);
        std::memcpy(&values[size_t(((b * d.kvHeads + h) * d.present + start + s) * hs)], vf + (b * d.seq + s) * kvStride + h * hs,
                    size_t(hs) * 4);
      }
    }
    for (int64_t h = 0; h < d.kvHeads && start > 0; ++h) {
      const TensorValue& pk = ctx.input(kPastKey);
      const TensorValue& pv = ctx.input(kPastValue);
      const size_t from = size_t((b * d.kvHeads + h) * d.past * hs), to = size_t((b * d.kvHeads + h) * d.present * hs);
      toFloats(pk.dtype(), static_cast<const uint8_t*>(pk.raw()) + from * elementBytes(pk.dtype()), &keys[to], start * hs);
      toFloats(pv.dtype(), static_cast<const uint8_t*>(pv.raw()) + from * elementBytes(pv.dtype()), &values[to], start * hs);
    }
  }
  for (size_t out = 1; out <= 2; ++out) {
    if (!ctx.wantsOutput(out)) continue;
    auto p = ctx.allocateOutput(out, q.dtype(), {d.batch, d.kvHeads, d.present, hs});
    if (!p) return p.error();
    fromFloats(q.dtype(), out == 1 ? keys.data() : values.data(), (*p)->raw(), int64_t(keys.size()));
  }
  auto y = ctx.allocateOutput(0, q.dtype(), {d.batch, d.seq, d.heads * hs});
  if (!y) return y.error();
  std::vector<float> result(size_t(d.batch * d.seq * d.heads * hs));
  const float scale = ctx.attrFloat("scale", 0.0f) != 0.0f ? ctx.attrFloat("scale", 0.0f) : 1.0f / std::sqrt(float(hs));
  const float softcap = ctx.attrFloat("softcap", 0.0f);
  const int64_t window = ctx.attrInt("local_window_size", -1);
  ctx.parallelFor(d.batch * d.heads, 1, [&](int64_t pb, int64_t pe) {
    std::vector<float> scores(size_t(d.seq * d.present));
    for (int64_t p = pb; p < pe; ++p) {
      const int64_t b = p / d.heads, h = p % d.heads, kvh = h / group, start = (*starts)[size_t(b)], total = start + d.seq;
      const float* k = &keys[size_t((b * d.kvHeads + kvh) * d.present * hs)];
      const float* v = &values[size_t((b * d.kvHeads + kvh) * d.present * hs)];
      math.gemmSerial(false, true, d.seq, total, hs, scale, &queries[size_t(p * d.seq * hs)], hs, k, hs, 0.0f, scores.data(), total);
      for (int64_t s = 0; s < d.seq; ++s) {
        float* row = scores.data() + s * total;
        for (int64_t t = 0; t < total; ++t) {
          if (softcap > 0) row[t] = softcap * std::tanh(row[t] / softcap);
          const bool future = t > start + s, outside = window > 0 && t <= start + s - window;
          if (future || outside) row[t] = -std::numeric_limits<float>::infinity();
        }
      }
      math.softmaxRows(scores.data(), scores.data(), d.seq, total, false);
      math.gemmSerial(false, false, d.seq, hs, total, 1.0f, scores.data(), total, v, hs, 0.0f, result.data() + b * d.seq * d.heads * hs + h * hs,
                  d.heads * hs);
    }
  });
  fromFloats(q.dtype(), result.data(), (*y)->raw(), int64_t(result.size()));
  return {};
}

}  // namespace

void registerGroupQueryAttentionCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "GroupQueryAttention", runGroupQueryAttention<false>, runGroupQueryAttention<true>);
}

}  // namespace onyx::exec::contrib
