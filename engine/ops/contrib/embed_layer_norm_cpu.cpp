// com.microsoft EmbedLayerNormalization: BERT's embedding block fused by ONNX Runtime's optimizer. Per token
// word[input_ids] + position[position_ids or s] (+ segment[segment_ids]), then LayerNorm with gamma/beta;
// mask_index is each batch's count of nonzero mask values (0 without a mask), embedding_sum the sum before
// the norm. float32 arithmetic on any float storage, fast and reference variants (contrib_math.h); out-of-range ids are an error naming the node.
#include "ops/contrib/contrib_kernels.h"
#include "ops/contrib/contrib_math.h"

namespace onyx::exec::contrib {
namespace {

constexpr size_t kIds = 0, kSegments = 1, kWords = 2, kPositions = 3, kSegmentTable = 4, kGamma = 5, kBeta = 6, kMask = 7,
                 kPositionIds = 8;

// Row `row` of an embedding table, widened into `dst` and added when `add`.
Expected<void> addRow(const KernelContext& ctx, size_t input, int64_t row, float* dst, float* scratch) {
  const TensorValue& table = ctx.input(input);
  if (row < 0 || row >= table.dim(0))
    return ctx.error("index " + std::to_string(row) + " is outside the " + std::to_string(table.dim(0)) + " rows of " + table.describe(), int(input));
  const int64_t width = table.dim(1);
  toFloats(table.dtype(), static_cast<const uint8_t*>(table.raw()) + size_t(row * width) * elementBytes(table.dtype()), scratch, width);
  for (int64_t i = 0; i < width; ++i) dst[i] += scratch[i];
  return {};
}

template <bool Fast>
Expected<void> runEmbedLayerNorm(KernelContext& ctx) {
  for (size_t i : {kIds, kWords, kPositions, kGamma}) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& ids = ctx.input(kIds);
  const TensorValue& words = ctx.input(kWords);
  if (ids.rank() != 2 || ids.dtype() != DataType::Int32) return ctx.error("input_ids must be int32 (batch, sequence)", kIds);
  for (size_t i : {kWords, kPositions, kSegmentTable})
    if (ctx.hasInput(i) && (!isFloatStorage(ctx.input(i).dtype()) || ctx.input(i).rank() != 2 || ctx.input(i).dim(1) != words.dim(1)))
      return ctx.error("embedding tables must be float (rows, hidden) with one hidden size", int(i));
  const int64_t batch = ids.dim(0), seq = ids.dim(1), hidden = words.dim(1);
  // gamma and beta are widened as float storage (fuzz: a 1-byte gamma was read as 2-byte floats, past its end).
  for (size_t i : {kGamma, kBeta})
    if (ctx.hasInput(i) && !isFloatStorage(ctx.input(i).dtype()))
      return ctx.error("gamma and beta must be float, float16 or bfloat16, got " + ctx.input(i).describe(), int(i));
  if (ctx.input(kGamma).count() != hidden || (ctx.hasInput(kBeta) && ctx.input(kBeta).count() != hidden))
    return ctx.error("gamma and beta must hold the hidden size " + std::to_string(hidden), kGamma);
  // segment_ids and mask are read as int32 (fuzz: a 1-byte mask was read 4 bytes an element, past its end).
  for (size_t i : {kSegments, kMask}) {
    if (!ctx.hasInput(i)) continue;
    if (ctx.input(i).dtype() != DataType::Int32)
      return ctx.error("segment_ids and mask must be int32 as input_ids is, got " + ctx.input(i).describe(), int(i));
    if (ctx.input(i).dims() != ids.dims()) return ctx.error("must have input_ids' shape", int(i));
  }
  if (ctx.hasInput(kSegments) != ctx.hasInput(kSegmentTable)) return ctx.error("segment_ids and segment_embedding go together", kSegments);
  const std::vector<int64_t> positionIds = ctx.hasInput(kPositionIds) ? ctx.input(kPositionIds).toInts() : std::vector<int64_t>();
  if (!positionIds.empty() && int64_t(positionIds.size()) != seq && int64_t(positionIds.size()) != batch * seq)
    return ctx.error("position_ids must be (1, sequence) or (batch, sequence)", kPositionIds);
  const DataType dtype = words.dtype();
  auto y = ctx.allocateOutput(0, dtype, {batch, seq, hidden});
  if (!y) return y.error();
  TensorValue* sum = nullptr;
  if (ctx.wantsOutput(2)) {
    auto s = ctx.allocateOutput(2, dtype, {batch, seq, hidden});
    if (!s) return s.error();
    sum = *s;
  }
  if (ctx.wantsOutput(1)) {
    auto m = ctx.allocateOutput(1, DataType::Int32, {batch});
    if (!m) return m.error();
    for (int64_t b = 0; b < batch; ++b) {
      int32_t count = 0;
      for (int64_t s = 0; ctx.hasInput(kMask) && s < seq; ++s) count += ctx.input(kMask).data<int32_t>()[b * seq + s] != 0;
      (*m)->data<int32_t>()[b] = count;
    }
  }
  const std::vector<float> gamma = floatsOf(ctx.input(kGamma)), beta = floatsOf(ctx.input(kBeta));
  const float eps = ctx.attrFloat("epsilon", 1e-12f);
  std::vector<float> v(static_cast<size_t>(hidden)), scratch(v), out(v);
  const size_t bytes = elementBytes(dtype);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t s = 0; s < seq; ++s) {
      const int64_t token = b * seq + s;
      std::fill(v.begin(), v.end(), 0.0f);
      const int64_t position = positionIds.empty() ? s : positionIds[size_t(int64_t(positionIds.size()) == seq ? s : token)];
      if (auto r = addRow(ctx, kWords, ids.data<int32_t>()[token], v.data(), scratch.data()); !r) return r.error();
      if (auto r = addRow(ctx, kPositions, position, v.data(), scratch.data()); !r) return r.error();
      if (ctx.hasInput(kSegments)) {
        if (auto r = addRow(ctx, kSegmentTable, ctx.input(kSegments).data<int32_t>()[token], v.data(), scratch.data()); !r) return r.error();
      }
      if (sum) fromFloats(dtype, v.data(), static_cast<uint8_t*>(sum->raw()) + size_t(token * hidden) * bytes, hidden);
      float inv = 0;
      contribMath<Fast>().layerNormRow(v.data(), out.data(), hidden, gamma.data(), beta.empty() ? nullptr : beta.data(), eps, &inv);
      fromFloats(dtype, out.data(), static_cast<uint8_t*>((*y)->raw()) + size_t(token * hidden) * bytes, hidden);
    }
  return {};
}

}  // namespace

void registerEmbedLayerNormCpuKernels(KernelRegistry& registry) {
  addMicrosoftKernels(registry, "EmbedLayerNormalization", runEmbedLayerNorm<false>, runEmbedLayerNorm<true>);
}

}  // namespace onyx::exec::contrib
