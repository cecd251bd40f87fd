// Attention (opset 23/24): scaled dot-product attention with grouped KV heads, a KV cache (past/present),
// boolean or additive masks, causal masking, softcap and the optional QK output. One plain reference kernel
// computing each (batch, head, query) row on its own.
#include <algorithm>
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

// The heads, sequences and head sizes of Q, K and V, the cache length, checked against each other.
struct AttentionShape {
  bool packed = false;  // 3D inputs
  int64_t batch = 0;
  HeadLayout ql, kl, vl;
  int64_t qHeads = 0, kvHeads = 0, depth = 0, valueDepth = 0, groupSize = 1;
  int64_t querySeq = 0, newKeys = 0, pastKeys = 0, totalKeys = 0;
  bool hasPast = false;
};

Expected<AttentionShape> readShape(const KernelContext& ctx) {
  const TensorValue& q = ctx.input(kQ);
  const TensorValue& k = ctx.input(kK);
  const TensorValue& v = ctx.input(kV);
  AttentionShape a;
  // Q's element type for K, V and the cache: the kernel reads them all as that type (fuzz_run: a past_key
  // of 1-byte elements read as float16 past its end under ASan).
  for (size_t i : {kK, kV, kPastKey, kPastValue})
    if (ctx.hasInput(i) && ctx.input(i).dtype() != q.dtype())
      return ctx.error("input " + std::to_string(i) + " " + ctx.input(i).describe() + " must have Q's type " +
                           std::string(dataTypeName(q.dtype())),
                       int(i));
  if ((q.rank() != 3 && q.rank() != 4) || k.rank() != q.rank() || v.rank() != q.rank())
    return ctx.error("Q, K and V must all be 3-D or all 4-D: " + q.describe() + ", " + k.describe() + ", " +
                     v.describe());
  a.packed = q.rank() == 3;
  a.batch = q.dim(0);
  if (k.dim(0) != a.batch || v.dim(0) != a.batch)
    return ctx.error("Q, K and V must have the same batch size: " + q.describe() + ", " + k.describe() +
                     ", " + v.describe());
  if (a.packed) {
    const int64_t qHeads = ctx.attrInt("q_num_heads", 0), kvHeads = ctx.attrInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return ctx.error("3D inputs need positive q_num_heads and kv_num_heads attributes");
    if (q.dim(2) % qHeads != 0 || k.dim(2) % kvHeads != 0 || v.dim(2) % kvHeads != 0)
      return ctx.error("hidden sizes of Q, K, V must be multiples of q_num_heads / kv_num_heads");
    a.ql = {qHeads, q.dim(1), q.dim(2) / qHeads, true};
    a.kl = {kvHeads, k.dim(1), k.dim(2) / kvHeads, true};
    a.vl = {kvHeads, v.dim(1), v.dim(2) / kvHeads, true};
  } else {
    a.ql = {q.dim(1), q.dim(2), q.dim(3), false};
    a.kl = {k.dim(1), k.dim(2), k.dim(3), false};
    a.vl = {v.dim(1), v.dim(2), v.dim(3), false};
  }
  a.qHeads = a.ql.heads;
  a.kvHeads = a.kl.heads;
  a.depth = a.ql.depth;
  a.valueDepth = a.vl.depth;
  if (a.kl.depth != a.depth)
    return ctx.error("Q and K head sizes differ: " + q.describe() + " vs " + k.describe());
  if (a.vl.heads != a.kvHeads || a.vl.seq != a.kl.seq)
    return ctx.error("K and V must have the same heads and sequence length: " + k.describe() + " vs " +
                     v.describe());
  if (a.kvHeads <= 0 || a.qHeads % a.kvHeads != 0)
    return ctx.error("q heads (" + std::to_string(a.qHeads) + ") must be a multiple of kv heads (" +
                     std::to_string(a.kvHeads) + ")");
  a.groupSize = a.qHeads / a.kvHeads;
  a.querySeq = a.ql.seq;
  a.newKeys = a.kl.seq;
  a.hasPast = ctx.hasInput(kPastKey);
  if (a.hasPast != ctx.hasInput(kPastValue))
    return ctx.error("past_key and past_value must be given together");
  if (a.hasPast) {
    const TensorValue& pk = ctx.input(kPastKey);
    const TensorValue& pv = ctx.input(kPastValue);
    if (pk.rank() != 4 || pv.rank() != 4 || pk.dim(0) != a.batch || pk.dim(1) != a.kvHeads ||
        pk.dim(3) != a.depth || pv.dim(0) != a.batch || pv.dim(1) != a.kvHeads || pv.dim(2) != pk.dim(2) ||
        pv.dim(3) != a.valueDepth)
      return ctx.error("past_key " + pk.describe() + " / past_value " + pv.describe() +
                       " do not match [batch, kv_heads, past, head_size]");
    a.pastKeys = pk.dim(2);
  }
  a.totalKeys = a.pastKeys + a.newKeys;
  return a;
}

// Present key and value: the cache followed by the new keys, as [B, Hkv, total, D] in the compute type.
template <class T>
void presentKeysValues(const KernelContext& ctx, const AttentionShape& a, std::vector<ComputeType<T>>& keys,
                       std::vector<ComputeType<T>>& values) {
  using C = ComputeType<T>;
  keys.resize(size_t(a.batch * a.kvHeads * a.totalKeys * a.depth));
  values.resize(size_t(a.batch * a.kvHeads * a.totalKeys * a.valueDepth));
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t h = 0; h < a.kvHeads; ++h) {
      for (int64_t s = 0; s < a.totalKeys; ++s) {
        // Indexes, not row pointers: a head size of 0 leaves the vectors empty, where even forming
        // &keys[row] is undefined (fuzz_run, UBSan).
        const size_t keyRow = size_t(((b * a.kvHeads + h) * a.totalKeys + s) * a.depth);
        const size_t valueRow = size_t(((b * a.kvHeads + h) * a.totalKeys + s) * a.valueDepth);
        const T* keySource;
        const T* valueSource;
        if (s < a.pastKeys) {
          const int64_t cached = (b * a.kvHeads + h) * a.pastKeys + s;
          keySource = ctx.input(kPastKey).template data<T>() + cached * a.depth;
          valueSource = ctx.input(kPastValue).template data<T>() + cached * a.valueDepth;
        } else {
          keySource = ctx.input(kK).template data<T>() + a.kl.offset(b, h, s - a.pastKeys);
          valueSource = ctx.input(kV).template data<T>() + a.vl.offset(b, h, s - a.pastKeys);
        }
        for (int64_t d = 0; d < a.depth; ++d) keys[keyRow + size_t(d)] = C(keySource[d]);
        for (int64_t d = 0; d < a.valueDepth; ++d) values[valueRow + size_t(d)] = C(valueSource[d]);
      }
    }
  }
}

// What every query row reads: the present keys and values, the mask and the attributes.
template <class T>
struct AttentionRows {
  using C = ComputeType<T>;
  const AttentionShape& a;
  const std::vector<C>& keys;
  const std::vector<C>& values;
  const MaskBias& mask;
  const std::vector<int64_t>& nonPadKeys;
  C scale, softcap;
  bool causal;
  int64_t qkMode;
  const T* qData;
  T* yData;
  T* qkOut;

  // One (batch, head, query) row: scores against every key, masked, softmax, and the weighted values
  // (and the QK output at the stage qk_matmul_output_mode names).
  void attend(int64_t row, std::vector<C>& scores, std::vector<C>& accumulator) const {
    const C negInf = -std::numeric_limits<C>::infinity();
    const int64_t totalKeys = a.totalKeys, valueDepth = a.valueDepth;
    const int64_t i = row % a.querySeq, h = (row / a.querySeq) % a.qHeads, b = row / (a.querySeq * a.qHeads);
    const int64_t kvHead = h / a.groupSize;
    const T* queryRow = qData + a.ql.offset(b, h, i);
    // Queries sit after the cached keys; with an external (static) cache nonpad_kv_seqlen says where.
    int64_t causalOffset = a.pastKeys;
    if (!a.hasPast && !nonPadKeys.empty()) causalOffset = nonPadKeys[size_t(b)] - a.querySeq;
    T* qkRow = qkOut ? qkOut + row * totalKeys : nullptr;
    C maxScore = negInf;
    for (int64_t j = 0; j < totalKeys; ++j) {
      const size_t keyRow = size_t(((b * a.kvHeads + kvHead) * totalKeys + j) * a.depth);
      C dot = 0;
      for (int64_t d = 0; d < a.depth; ++d) dot += C(queryRow[d]) * keys[keyRow + size_t(d)];
      C score = dot * scale;
      if (softcap > 0) score = softcap * std::tanh(score / softcap);
      if (qkRow && qkMode <= 1) qkRow[j] = fromCompute<T>(score);
      C bias = C(mask.at(b, h, i, j));
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
      const size_t valueRow = size_t(((b * a.kvHeads + kvHead) * totalKeys + j) * valueDepth);
      for (int64_t d = 0; d < valueDepth; ++d) accumulator[size_t(d)] += p * values[valueRow + size_t(d)];
    }
    T* outRow =
        a.packed ? yData + ((b * a.querySeq + i) * a.qHeads + h) * valueDepth : yData + row * valueDepth;
    for (int64_t d = 0; d < valueDepth; ++d) outRow[d] = fromCompute<T>(accumulator[size_t(d)]);
  }
};

template <class T>
Expected<void> computeAttention(KernelContext& ctx) {
  using C = ComputeType<T>;
  const TensorValue& q = ctx.input(kQ);
  auto shape = readShape(ctx);
  if (!shape) return shape.error();
  const AttentionShape& a = *shape;
  std::vector<C> keys, values;
  presentKeysValues<T>(ctx, a, keys, values);

  std::vector<int64_t> nonPadKeys;
  if (ctx.hasInput(kNonPadKvLength)) {
    nonPadKeys = ctx.input(kNonPadKvLength).toInts();
    if (int64_t(nonPadKeys.size()) != a.batch)
      return ctx.error("nonpad_kv_seqlen must have one length per batch", kNonPadKvLength);
    for (int64_t length : nonPadKeys)  // INT64_MIN would overflow the causal offset below
      if (length < 0 || length > a.totalKeys)
        return ctx.error("nonpad_kv_seqlen has " + std::to_string(length) + " valid keys of " +
                             std::to_string(a.totalKeys) + "; give each batch 0 to " + std::to_string(a.totalKeys),
                         kNonPadKvLength);
  }
  auto mask = readMask(ctx, Dims{a.batch, a.qHeads, a.querySeq, a.totalKeys});
  if (!mask) return mask.error();

  const Dims yDims = a.packed ? Dims{a.batch, a.querySeq, a.qHeads * a.valueDepth}
                              : Dims{a.batch, a.qHeads, a.querySeq, a.valueDepth};
  auto y = ctx.allocateOutput(0, q.dtype(), yDims);
  if (!y) return y.error();
  for (size_t out = 1; out <= 2; ++out) {
    if (!ctx.wantsOutput(out)) continue;
    const std::vector<C>& source = out == 1 ? keys : values;
    const int64_t d = out == 1 ? a.depth : a.valueDepth;
    auto present = ctx.allocateOutput(out, q.dtype(), Dims{a.batch, a.kvHeads, a.totalKeys, d});
    if (!present) return present.error();
    T* data = (*present)->template data<T>();
    for (size_t i = 0; i < source.size(); ++i) data[i] = fromCompute<T>(source[i]);
  }
  T* qkOut = nullptr;
  if (ctx.wantsOutput(3)) {
    auto qk = ctx.allocateOutput(3, q.dtype(), Dims{a.batch, a.qHeads, a.querySeq, a.totalKeys});
    if (!qk) return qk.error();
    qkOut = (*qk)->template data<T>();
  }

  const AttentionRows<T> rows{
      a,
      keys,
      values,
      *mask,
      nonPadKeys,
      // A head size of 0 makes every dot product 0; scale it by 1 rather than 0 * inf, so each row
      // attends uniformly instead of producing NaN.
      ctx.hasAttr("scale") ? C(ctx.attrFloat("scale", 1.0f)) : C(1) / std::sqrt(C(std::max<int64_t>(a.depth, 1))),
      C(ctx.attrFloat("softcap", 0.0f)),
      ctx.attrInt("is_causal", 0) != 0,
      ctx.attrInt("qk_matmul_output_mode", 0),
      q.data<T>(),
      (*y)->template data<T>(),
      qkOut,
  };
  ctx.parallelFor(a.batch * a.qHeads * a.querySeq, 1, [&](int64_t begin, int64_t end) {
    std::vector<C> scores(static_cast<size_t>(a.totalKeys));
    std::vector<C> accumulator(static_cast<size_t>(a.valueDepth));
    for (int64_t row = begin; row < end; ++row) rows.attend(row, scores, accumulator);
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
