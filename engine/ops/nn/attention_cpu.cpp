// Attention (opset 23/24): scaled dot-product attention with grouped KV heads, a KV cache (past/present),
// boolean or additive masks, causal masking, softcap and the optional QK output. One plain reference kernel
// computing each (batch, head, query) row on its own.
#include <cmath>
#include <limits>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

constexpr size_t kQ = 0, kK = 1, kV = 2, kMask = 3, kPastKey = 4, kPastValue = 5, kNonPadKvLength = 6;

// Where element (b, h, s, d) lives in a Q/K/V tensor given in 4D [B, H, S, D] or 3D [B, S, H*D] layout.
struct HeadLayout {
  int64_t heads = 0, seq = 0, depth = 0;
  bool packed = false;  // 3D input
  int64_t offset(int64_t b, int64_t h, int64_t s) const {
    return packed ? ((b * seq + s) * heads + h) * depth : ((b * heads + h) * seq + s) * depth;
  }
};

// The attention mask as an additive bias, right-aligned against [B, Hq, Sq, total] with size-1
// broadcasting; keys beyond its last dimension are masked out (as the spec pads with -inf / false).
struct MaskBias {
  std::vector<double> values;
  int64_t strides[4] = {0, 0, 0, 0};
  int64_t keys = 0;
  bool present = false;
  double at(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (!present) return 0.0;
    if (j >= keys) return -std::numeric_limits<double>::infinity();
    return values[size_t(b * strides[0] + h * strides[1] + i * strides[2] + j * strides[3])];
  }
};

Expected<MaskBias> readMask(KernelContext& ctx, const Dims& target) {
  MaskBias mask;
  if (!ctx.hasInput(kMask)) return mask;
  const TensorValue& m = ctx.input(kMask);
  if (m.rank() < 1 || m.rank() > 4)
    return ctx.error("attn_mask must have rank 1 to 4, got " + m.describe(), kMask);
  Dims dims(4, 1);
  for (int64_t a = 0; a < m.rank(); ++a) dims[size_t(4 - m.rank() + a)] = m.dim(a);
  for (int a = 0; a < 3; ++a) {
    if (dims[size_t(a)] != 1 && dims[size_t(a)] != target[size_t(a)])
      return ctx.error(
          "attn_mask " + m.describe() + " does not broadcast to " + describeTensor(DataType::Float, target),
          kMask);
  }
  if (dims[3] > target[3])
    return ctx.error("attn_mask " + m.describe() + " has more keys than the total sequence length " +
                         std::to_string(target[3]),
                     kMask);
  mask.present = true;
  mask.keys = dims[3];
  int64_t stride = 1;
  for (int a = 3; a >= 0; --a) {
    mask.strides[a] = dims[size_t(a)] == 1 && a < 3 ? 0 : stride;
    stride *= dims[size_t(a)];
  }
  mask.values.resize(size_t(m.count()));
  const bool isBool = m.dtype() == DataType::Bool;
  for (int64_t i = 0; i < m.count(); ++i) {
    if (isBool)
      mask.values[size_t(i)] = m.data<bool>()[i] ? 0.0 : -std::numeric_limits<double>::infinity();
    else
      mask.values[size_t(i)] = m.doubleAt(i);
  }
  return mask;
}

template <class T>
Expected<void> computeAttention(KernelContext& ctx) {
  using C = ComputeType<T>;
  const TensorValue& q = ctx.input(kQ);
  const TensorValue& k = ctx.input(kK);
  const TensorValue& v = ctx.input(kV);
  const bool packed = q.rank() == 3;
  const int64_t batch = q.dim(0);
  if (k.dim(0) != batch || v.dim(0) != batch)
    return ctx.error("Q, K and V must have the same batch size: " + q.describe() + ", " + k.describe() +
                     ", " + v.describe());

  HeadLayout ql, kl, vl;
  ql.packed = kl.packed = vl.packed = packed;
  if (packed) {
    const int64_t qHeads = ctx.attrInt("q_num_heads", 0), kvHeads = ctx.attrInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return ctx.error("3D inputs need positive q_num_heads and kv_num_heads attributes");
    if (q.dim(2) % qHeads != 0 || k.dim(2) % kvHeads != 0 || v.dim(2) % kvHeads != 0)
      return ctx.error("hidden sizes of Q, K, V must be multiples of q_num_heads / kv_num_heads");
    ql = {qHeads, q.dim(1), q.dim(2) / qHeads, true};
    kl = {kvHeads, k.dim(1), k.dim(2) / kvHeads, true};
    vl = {kvHeads, v.dim(1), v.dim(2) / kvHeads, true};
  } else {
    ql = {q.dim(1), q.dim(2), q.dim(3), false};
    kl = {k.dim(1), k.dim(2), k.dim(3), false};
    vl = {v.dim(1), v.dim(2), v.dim(3), false};
  }
  const int64_t qHeads = ql.heads, kvHeads = kl.heads, depth = ql.depth, valueDepth = vl.depth;
  if (kl.depth != depth)
    return ctx.error("Q and K head sizes differ: " + q.describe() + " vs " + k.describe());
  if (vl.heads != kvHeads || vl.seq != kl.seq)
    return ctx.error("K and V must have the same heads and sequence length: " + k.describe() + " vs " +
                     v.describe());
  if (kvHeads <= 0 || qHeads % kvHeads != 0)
    return ctx.error("q heads (" + std::to_string(qHeads) + ") must be a multiple of kv heads (" +
                     std::to_string(kvHeads) + ")");
  const int64_t groupSize = qHeads / kvHeads;
  const int64_t querySeq = ql.seq, newKeys = kl.seq;

  // Present key/value: the cache followed by the new keys, as [B, Hkv, total, D].
  int64_t pastKeys = 0;
  const bool hasPast = ctx.hasInput(kPastKey);
  if (hasPast != ctx.hasInput(kPastValue)) return ctx.error("past_key and past_value must be given together");
  if (hasPast) {
    const TensorValue& pk = ctx.input(kPastKey);
    const TensorValue& pv = ctx.input(kPastValue);
    if (pk.rank() != 4 || pv.rank() != 4 || pk.dim(0) != batch || pk.dim(1) != kvHeads ||
        pk.dim(3) != depth || pv.dim(0) != batch || pv.dim(1) != kvHeads || pv.dim(2) != pk.dim(2) ||
        pv.dim(3) != valueDepth)
      return ctx.error("past_key " + pk.describe() + " / past_value " + pv.describe() +
                       " do not match [batch, kv_heads, past, head_size]");
    pastKeys = pk.dim(2);
  }
  const int64_t totalKeys = pastKeys + newKeys;
  std::vector<C> keys(size_t(batch * kvHeads * totalKeys * depth));
  std::vector<C> values(size_t(batch * kvHeads * totalKeys * valueDepth));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < kvHeads; ++h) {
      for (int64_t s = 0; s < totalKeys; ++s) {
        C* keyRow = &keys[size_t(((b * kvHeads + h) * totalKeys + s) * depth)];
        C* valueRow = &values[size_t(((b * kvHeads + h) * totalKeys + s) * valueDepth)];
        const T* keySource;
        const T* valueSource;
        if (s < pastKeys) {
          keySource = ctx.input(kPastKey).template data<T>() + ((b * kvHeads + h) * pastKeys + s) * depth;
          valueSource =
              ctx.input(kPastValue).template data<T>() + ((b * kvHeads + h) * pastKeys + s) * valueDepth;
        } else {
          keySource = k.data<T>() + kl.offset(b, h, s - pastKeys);
          valueSource = v.data<T>() + vl.offset(b, h, s - pastKeys);
        }
        for (int64_t d = 0; d < depth; ++d) keyRow[d] = C(keySource[d]);
        for (int64_t d = 0; d < valueDepth; ++d) valueRow[d] = C(valueSource[d]);
      }
    }
  }

  std::vector<int64_t> nonPadKeys;
  if (ctx.hasInput(kNonPadKvLength)) {
    nonPadKeys = ctx.input(kNonPadKvLength).toInts();
    if (int64_t(nonPadKeys.size()) != batch)
      return ctx.error("nonpad_kv_seqlen must have one length per batch", kNonPadKvLength);
  }

  auto mask = readMask(ctx, Dims{batch, qHeads, querySeq, totalKeys});
  if (!mask) return mask.error();

  const Dims yDims =
      packed ? Dims{batch, querySeq, qHeads * valueDepth} : Dims{batch, qHeads, querySeq, valueDepth};
  auto y = ctx.allocateOutput(0, q.dtype(), yDims);
  if (!y) return y.error();
  for (size_t out = 1; out <= 2; ++out) {
    if (!ctx.wantsOutput(out)) continue;
    const std::vector<C>& source = out == 1 ? keys : values;
    const int64_t d = out == 1 ? depth : valueDepth;
    auto present = ctx.allocateOutput(out, q.dtype(), Dims{batch, kvHeads, totalKeys, d});
    if (!present) return present.error();
    T* data = (*present)->template data<T>();
    for (size_t i = 0; i < source.size(); ++i) data[i] = fromCompute<T>(source[i]);
  }
  T* qkOut = nullptr;
  if (ctx.wantsOutput(3)) {
    auto qk = ctx.allocateOutput(3, q.dtype(), Dims{batch, qHeads, querySeq, totalKeys});
    if (!qk) return qk.error();
    qkOut = (*qk)->template data<T>();
  }

  const C scale = ctx.hasAttr("scale") ? C(ctx.attrFloat("scale", 1.0f)) : C(1) / std::sqrt(C(depth));
  const C softcap = C(ctx.attrFloat("softcap", 0.0f));
  const bool causal = ctx.attrInt("is_causal", 0) != 0;
  const int64_t qkMode = ctx.attrInt("qk_matmul_output_mode", 0);
  const C negInf = -std::numeric_limits<C>::infinity();
  const T* qData = q.data<T>();
  T* yData = (*y)->template data<T>();

  ctx.parallelFor(batch * qHeads * querySeq, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> scores(static_cast<size_t>(totalKeys));
    std::vector<C> accumulator(static_cast<size_t>(valueDepth));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % querySeq, h = (row / querySeq) % qHeads, b = row / (querySeq * qHeads);
      const int64_t kvHead = h / groupSize;
      const T* queryRow = qData + ql.offset(b, h, i);
      // Queries sit after the cached keys; with an external (static) cache nonpad_kv_seqlen says where.
      int64_t causalOffset = pastKeys;
      if (!hasPast && !nonPadKeys.empty()) causalOffset = nonPadKeys[size_t(b)] - querySeq;
      T* qkRow = qkOut ? qkOut + row * totalKeys : nullptr;
      C maxScore = negInf;
      for (int64_t j = 0; j < totalKeys; ++j) {
        const C* keyRow = &keys[size_t(((b * kvHeads + kvHead) * totalKeys + j) * depth)];
        C dot = 0;
        for (int64_t d = 0; d < depth; ++d) dot += C(queryRow[d]) * keyRow[d];
        C score = dot * scale;
        if (softcap > 0) score = softcap * std::tanh(score / softcap);
        if (qkRow && qkMode <= 1) qkRow[j] = fromCompute<T>(score);
        C bias = C(mask->at(b, h, i, j));
        if (causal && j > i + causalOffset) bias = negInf;
        if (!nonPadKeys.empty() && j >= nonPadKeys[size_t(b)]) bias = negInf;
        score += bias;
        if (qkRow && qkMode == 2) qkRow[j] = fromCompute<T>(score);
        scores[size_t(j)] = score;
        if (score > maxScore) maxScore = score;
      }
      // A row with every key masked attends to nothing: its probabilities and output are zero, not NaN.
      C sum = 0;
      for (int64_t j = 0; j < totalKeys; ++j) {
        C p = maxScore == negInf ? C(0) : std::exp(scores[size_t(j)] - maxScore);
        scores[size_t(j)] = p;
        sum += p;
      }
      const C inverse = sum > 0 ? C(1) / sum : C(0);
      std::fill(accumulator.begin(), accumulator.end(), C(0));
      for (int64_t j = 0; j < totalKeys; ++j) {
        const C p = scores[size_t(j)] * inverse;
        if (qkRow && qkMode == 3) qkRow[j] = fromCompute<T>(p);
        if (p == C(0)) continue;
        const C* valueRow = &values[size_t(((b * kvHeads + kvHead) * totalKeys + j) * valueDepth)];
        for (int64_t d = 0; d < valueDepth; ++d) accumulator[size_t(d)] += p * valueRow[d];
      }
      T* outRow = packed ? yData + ((b * querySeq + i) * qHeads + h) * valueDepth : yData + row * valueDepth;
      for (int64_t d = 0; d < valueDepth; ++d) outRow[d] = fromCompute<T>(accumulator[size_t(d)]);
    }
  });
  return {};
}

Expected<void> runAttention(KernelContext& ctx) {
  for (size_t i : {kQ, kK, kV}) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if ((*t)->rank() != 3 && (*t)->rank() != 4)
      return ctx.error("expected a 3D or 4D tensor, got " + (*t)->describe(), i);
  }
  const TensorValue& q = ctx.input(kQ);
  if (ctx.input(kK).rank() != q.rank() || ctx.input(kV).rank() != q.rank())
    return ctx.error("Q, K and V must have the same rank");
  if (ctx.input(kK).dtype() != q.dtype() || ctx.input(kV).dtype() != q.dtype())
    return ctx.error("Q, K and V must have the same element type");
  Expected<void> result;
  bool ok =
      dispatchType<kFloats>(q.dtype(), [&](auto tag) { result = computeAttention<decltype(tag)>(ctx); });
  if (!ok) return ctx.unsupportedType(kQ);
  return result;
}

}  // namespace

void registerAttentionCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("Attention", runAttention, 23));
}

}  // namespace onyx::exec
