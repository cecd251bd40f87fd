// Shape functions and schemas of the com.microsoft ops that ONNX Runtime's transformer optimizer, quantizers
// and float16 converter emit (its docs/ContribOperators.md is the specification). Every unknown dim keeps
// the provenance of the input it comes from, as for the ai.onnx ops.
#include "catalog/op_registry.h"
#include "ops/math/math_shapes.h"
#include "ops/nn/nn_shapes.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

constexpr const char* kMs = "com.microsoft";

// The statistics outputs of the layer normalizations: the input's dims with the normalized ones set to 1.
Shape statsShape(const Shape& input, size_t axis) {
  Shape stats = input;
  for (size_t d = axis; d < stats.size(); ++d) stats[d] = Dim(1);
  return stats;
}

// SkipLayerNormalization, SkipSimplifiedLayerNormalization: output and input+skip(+bias) sum take the input's
// shape, mean and inverse standard deviation are float with the last dim 1.
Expected<void> inferSkipNorm(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    for (size_t i = 1; i < ctx.outputCount(); ++i)
      ctx.setOutputUnknownRank(i, i == 3 ? elem : DataType::Float, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& input = *ctx.inputShape(0);
  if (input.empty()) return ctx.error("input must have at least one dimension");
  ctx.setOutputTensor(0, elem, input);
  ctx.setOutputTensor(1, DataType::Float, statsShape(input, input.size() - 1));
  ctx.setOutputTensor(2, DataType::Float, statsShape(input, input.size() - 1));
  ctx.setOutputTensor(3, elem, input);
  return {};
}

// SimplifiedLayerNormalization (RMS norm over axis..end): Y like X, inv_std_var with the normalized dims 1.
Expected<void> inferSimplifiedNorm(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    if (ctx.outputCount() > 1) ctx.setOutputUnknownRank(1, DataType::Float, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& input = *ctx.inputShape(0);
  auto axis = ctx.normalizeAxis(ctx.attrInt("axis", -1), input.size());
  if (!axis) return axis.error();
  ctx.setOutputTensor(0, elem, input);
  ctx.setOutputTensor(1, DataType::Float, statsShape(input, *axis));
  return {};
}

// Attention: input [B, S, D_in], weights [D_in, Hq + Hk + Hv] -> output [B, S, Hv];
// present [2, B, heads, past + S, head_size] (or past's own shape when past and present share a buffer).
Expected<void> inferAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const int64_t heads = ctx.attrInt("num_heads", 0);
  if (heads <= 0) return ctx.error("Attention needs a positive num_heads attribute");
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    if (ctx.outputCount() > 1) ctx.setOutputUnknownRank(1, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& input = *ctx.inputShape(0);
  if (input.size() != 3) return ctx.error("Attention input must be 3D (batch, sequence, hidden), got " + shapeToString(input));
  Dim qHidden, vHidden;
  if (auto sizes = ctx.attrInts("qkv_hidden_sizes")) {
    if (sizes->size() != 3) return ctx.error("Attention qkv_hidden_sizes must have 3 values");
    qHidden = Dim((*sizes)[0]);
    vHidden = Dim((*sizes)[2]);
  } else if (const auto& weights = ctx.inputShape(1); weights && weights->size() == 2) {
    qHidden = dimFloorDiv((*weights)[1], Dim(3));
    vHidden = qHidden;
  } else {
    qHidden = vHidden = Dim::unknown(ctx.rankOriginOf(1));
  }
  ctx.setOutputTensor(0, elem, {input[0], input[1], vHidden});
  if (ctx.outputCount() < 2) return {};
  const auto& past = ctx.inputShape(4);
  if (ctx.attrInt("past_present_share_buffer", 0) != 0 && past) {
    ctx.setOutputTensor(1, elem, *past);
    return {};
  }
  Dim total = input[1];
  if (past && past->size() == 5) total = dimAdd((*past)[3], input[1]);
  else if (ctx.hasInput(4)) total = Dim::unknown(ctx.rankOriginOf(4));
  ctx.setOutputTensor(1, elem, {Dim(2), input[0], Dim(heads), total, dimFloorDiv(qHidden, Dim(heads))});
  return {};
}

// MatMulNBits: A [..., K] times the quantized [K, N] weight -> [..., N] (N from the attribute).
Expected<void> inferMatMulNBits(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  if (out.empty()) return ctx.error("MatMulNBits input A must have at least one dimension");
  const int64_t k = ctx.attrInt("K", -1), n = ctx.attrInt("N", -1);
  if (k <= 0 || n <= 0) return ctx.error("MatMulNBits needs positive K and N attributes");
  auto inner = ctx.requireEqual(out.back(), 0, Dim(k), 0, "the last dim of A and the K attribute");
  if (!inner) return inner.error();
  out.back() = Dim(n);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

// FusedMatMul: MatMul with the last two dims of A and/or B transposed first.
Expected<void> inferFusedMatMul(ShapeContext& ctx) {
  if (ctx.attrInt("transBatchA", 0) != 0 || ctx.attrInt("transBatchB", 0) != 0)
    return ctx.error("FusedMatMul with transBatchA or transBatchB is not supported");
  return math_shapes::setMatMulOutput(ctx, ctx.inputElemType(0), ctx.attrInt("transA", 0) != 0,
                                      ctx.attrInt("transB", 0) != 0);
}

// GroupQueryAttention: query [B, S, heads * H] (or packed Q, K, V [B, S, (heads + 2 kv_heads) * H] without key)
// -> output [B, S, heads * H]; present key/value [B, kv_heads, past + S, H]: a KV cache's M + N.
Expected<void> inferGroupQueryAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const int64_t heads = ctx.attrInt("num_heads", 0), kvHeads = ctx.attrInt("kv_num_heads", 0);
  if (heads <= 0 || kvHeads <= 0) return ctx.error("GroupQueryAttention needs positive num_heads and kv_num_heads");
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    for (size_t i = 1; i < std::min<size_t>(3, ctx.outputCount()); ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& q = *ctx.inputShape(0);
  if (q.size() != 3) return ctx.error("GroupQueryAttention query must be 3D, got " + shapeToString(q));
  const bool packed = !ctx.hasInput(1);
  const Dim headSize = dimFloorDiv(q[2], Dim(packed ? heads + 2 * kvHeads : heads));
  ctx.setOutputTensor(0, elem, {q[0], q[1], dimMul(Dim(heads), headSize)});
  Dim total = q[1];
  if (const auto& past = ctx.inputShape(3); past && past->size() == 4) total = dimAdd((*past)[2], q[1]);
  else if (ctx.hasInput(3)) total = Dim::unknown(ctx.rankOriginOf(3));
  ctx.setOutputTensor(1, elem, {q[0], Dim(kvHeads), total, headSize});
  ctx.setOutputTensor(2, elem, {q[0], Dim(kvHeads), total, headSize});
  return {};
}

// MultiHeadAttention: output [B, S, v_hidden] (value's last dim, or heads * its head size when 4D); present
// key/value [B, heads, past + L, H].
Expected<void> inferMultiHeadAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const int64_t heads = ctx.attrInt("num_heads", 0);
  if (heads <= 0) return ctx.error("MultiHeadAttention needs a positive num_heads");
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    for (size_t i = 1; i < std::min<size_t>(3, ctx.outputCount()); ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& q = *ctx.inputShape(0);
  if (q.size() != 3) return ctx.error("MultiHeadAttention supports a 3D query, got " + shapeToString(q));
  const auto& k = ctx.inputShape(1);
  const auto& v = ctx.inputShape(2);
  const Dim headSize = dimFloorDiv(q[2], Dim(heads));
  Dim vHidden = q[2], kvSeq = Dim::unknown(ctx.rankOriginOf(1)), vHeadSize = headSize;
  if (v && v->size() == 3) vHidden = (*v)[2], vHeadSize = dimFloorDiv((*v)[2], Dim(heads));
  else if (v && v->size() == 4) vHidden = dimMul(Dim(heads), (*v)[3]), vHeadSize = (*v)[3];
  if (k && (k->size() == 3 || k->size() == 4)) kvSeq = (*k)[k->size() == 3 ? 1 : 2];
  ctx.setOutputTensor(0, elem, {q[0], q[1], vHidden});
  Dim total = kvSeq;
  if (const auto& past = ctx.inputShape(6); past && past->size() == 4) total = dimAdd((*past)[2], kvSeq);
  else if (ctx.hasInput(6)) total = Dim::unknown(ctx.rankOriginOf(6));
  ctx.setOutputTensor(1, elem, {q[0], Dim(heads), total, headSize});
  ctx.setOutputTensor(2, elem, {q[0], Dim(heads), total, vHeadSize});
  return {};
}

// EmbedLayerNormalization: input_ids [B, S] and word_embedding [V, H] -> output and embedding_sum [B, S, H] in
// the table's type, mask_index [B] int32.
Expected<void> inferEmbedLayerNorm(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(2);
  if (forwardUnknownRank(ctx, 0, 0, elem)) {
    if (ctx.outputCount() > 1) ctx.setOutputUnknownRank(1, DataType::Int32, ctx.rankOriginOf(0));
    if (ctx.outputCount() > 2) ctx.setOutputUnknownRank(2, elem, ctx.rankOriginOf(0));
    return {};
  }
  const Shape& ids = *ctx.inputShape(0);
  if (ids.size() != 2) return ctx.error("EmbedLayerNormalization input_ids must be 2D (batch, sequence), got " + shapeToString(ids));
  const auto& words = ctx.inputShape(2);
  const Dim hidden = words && words->size() == 2 ? (*words)[1] : Dim::unknown(ctx.rankOriginOf(2));
  ctx.setOutputTensor(0, elem, {ids[0], ids[1], hidden});
  ctx.setOutputTensor(1, DataType::Int32, {ids[0]});
  ctx.setOutputTensor(2, elem, {ids[0], ids[1], hidden});
  return {};
}

// MatMulIntegerToFloat, DynamicQuantizeMatMul: A [..., K] times B [K, N] -> [..., N] in the scale's float type.
Expected<void> inferIntegerToFloat(ShapeContext& ctx) {
  const DataType elem = ctx.node().opType() == "DynamicQuantizeMatMul" ? ctx.inputElemType(0) : ctx.inputElemType(2);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  const auto& b = ctx.inputShape(1);
  if (out.empty()) return ctx.error("A must have at least one dimension");
  out.back() = b && b->size() == 2 ? (*b)[1] : Dim::unknown(ctx.rankOriginOf(1));
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

// com.microsoft QuantizeLinear (the zero point's type, uint8 without one) and DequantizeLinear (the scale's type).
Expected<void> inferQuantizeLinear(ShapeContext& ctx) {
  const DataType elem = ctx.hasInput(2) ? ctx.inputElemType(2) : DataType::Uint8;
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(0));
  return {};
}
Expected<void> inferDequantizeLinear(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(1);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(0));
  return {};
}

// FusedGemm: Gemm's [M, N].
Expected<void> inferFusedGemm(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  const Shape& a = *ctx.inputShape(0);
  const Shape& b = *ctx.inputShape(1);
  if (a.size() != 2 || b.size() != 2) return ctx.error("FusedGemm inputs A and B must be matrices (rank 2)");
  const bool transA = ctx.attrInt("transA", 0) != 0, transB = ctx.attrInt("transB", 0) != 0;
  auto k = ctx.requireEqual(transA ? a[0] : a[1], 0, transB ? b[1] : b[0], 1, "the inner dims of FusedGemm");
  if (!k) return k.error();
  ctx.setOutputTensor(0, elem, {transA ? a[1] : a[0], transB ? b[0] : b[1]});
  return {};
}

// GatherBlockQuantized: Gather's shape over the logical table (uint8 packs 8 / bits values per byte along the
// last dim), in the scales' type.
Expected<void> inferGatherBlockQuantized(ShapeContext& ctx) {
  const DataType elem = ctx.inputElemType(2);
  if (forwardUnknownRank(ctx, 0, 0, elem) || forwardUnknownRank(ctx, 1, 0, elem)) return {};
  Shape table = *ctx.inputShape(0);
  const Shape& indices = *ctx.inputShape(1);
  if (table.empty()) return ctx.error("GatherBlockQuantized data must have at least one dimension");
  const int64_t bits = ctx.attrInt("bits", 4);
  if (ctx.inputElemType(0) == DataType::Uint8 && bits > 0 && bits < 8) table.back() = dimMul(table.back(), Dim(8 / bits));
  auto axis = ctx.normalizeAxis(ctx.attrInt("gather_axis", 0), table.size(), "gather_axis");
  if (!axis) return axis.error();
  Shape out(table.begin(), table.begin() + long(*axis));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), table.begin() + long(*axis) + 1, table.end());
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

}  // namespace

void registerContribSchemas(OpRegistry& registry) {
  registry.add({kMs, "Attention", OpCategory::Attention, {1}, 2, 7, 1, 2, false, inferAttention});
  registry.add({kMs, "GroupQueryAttention", OpCategory::Attention, {1}, 7, 12, 1, 4, false, inferGroupQueryAttention});
  registry.add({kMs, "RotaryEmbedding", OpCategory::Attention, {1}, 4, 4, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "MultiHeadAttention", OpCategory::Attention, {1}, 1, 10, 1, 4, false, inferMultiHeadAttention});
  registry.add({kMs, "EmbedLayerNormalization", OpCategory::Normalization, {1}, 7, 9, 1, 3, false, inferEmbedLayerNorm});
  registry.add({kMs, "SkipLayerNormalization", OpCategory::Normalization, {1}, 3, 5, 1, 4, false, inferSkipNorm});
  registry.add({kMs, "SkipSimplifiedLayerNormalization", OpCategory::Normalization, {1}, 3, 4, 1, 4, false, inferSkipNorm});
  // ONNX Runtime registers SimplifiedLayerNormalization in the ai.onnx domain (its LLM builder emits it there).
  registry.add({"", "SimplifiedLayerNormalization", OpCategory::Normalization, {1}, 2, 2, 1, 2, false, inferSimplifiedNorm});
  registry.add({kMs, "SimplifiedLayerNormalization", OpCategory::Normalization, {1}, 2, 2, 1, 2, false, inferSimplifiedNorm});
  registry.add({kMs, "Gelu", OpCategory::Activation, {1}, 1, 1, 1, 1, true, inferUnary});
  registry.add({kMs, "QuickGelu", OpCategory::Activation, {1}, 1, 1, 1, 1, true, inferUnary});
  registry.add({kMs, "FastGelu", OpCategory::Activation, {1}, 1, 2, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "BiasGelu", OpCategory::Activation, {1}, 2, 2, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "BiasAdd", OpCategory::Elementwise, {1}, 3, 3, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "BiasSoftmax", OpCategory::Activation, {1}, 2, 2, 1, 1, false, inferSameAsInput0});
  registry.add({kMs, "MatMulNBits", OpCategory::Quantization, {1}, 3, 6, 1, 1, false, inferMatMulNBits});
  // FusedConv's output is Conv's (X, W, B and the window attributes; Z has the output's shape).
  registry.add({kMs, "FusedConv", OpCategory::Layer, {1}, 2, 4, 1, 1, false, nn_shapes::inferConv});
  registry.add({kMs, "FusedGemm", OpCategory::Layer, {1}, 2, 3, 1, 1, false, inferFusedGemm});
  registry.add({kMs, "MatMulIntegerToFloat", OpCategory::Quantization, {1}, 4, 7, 1, 1, false, inferIntegerToFloat});
  registry.add({kMs, "DynamicQuantizeMatMul", OpCategory::Quantization, {1}, 3, 5, 1, 1, false, inferIntegerToFloat});
  registry.add({kMs, "QuantizeLinear", OpCategory::Quantization, {1}, 2, 3, 1, 1, false, inferQuantizeLinear});
  registry.add({kMs, "DequantizeLinear", OpCategory::Quantization, {1}, 2, 3, 1, 1, false, inferDequantizeLinear});
  registry.add({kMs, "GatherBlockQuantized", OpCategory::Quantization, {1}, 3, 4, 1, 1, false, inferGatherBlockQuantized});
  registry.add({kMs, "FusedMatMul", OpCategory::Layer, {1}, 2, 2, 1, 1, false, inferFusedMatMul});
}

}  // namespace onyx
