// Shape functions of the attention ops (Attention-23+, LinearAttention-27, preview FlexAttention).
#include "ops/nn/nn_shapes.h"

namespace onyx::nn_shapes {

using namespace shapes;

Expected<void> inferAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& q = ctx.inputShape(0);
  const auto& k = ctx.inputShape(1);
  const auto& v = ctx.inputShape(2);
  if (!q || !k || !v) {
    size_t missing = !q ? 0 : (!k ? 1 : 2);
    for (size_t i = 0; i < ctx.outputCount(); ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(missing));
    return {};
  }
  if (q->size() != k->size() || q->size() != v->size() || (q->size() != 3 && q->size() != 4)) {
    return ctx.error("Attention Q, K and V must all be 3D or all 4D; got " + shapeToString(*q) + ", " + shapeToString(*k) +
                     " and " + shapeToString(*v));
  }
  bool packed = q->size() == 3;
  Dim batch = (*q)[0];
  Dim qHeads, kvHeads, qSeq, kvSeq, headSize, vHeadSize;
  if (packed) {
    int64_t qNum = ctx.attrInt("q_num_heads", 0), kvNum = ctx.attrInt("kv_num_heads", 0);
    if (qNum <= 0 || kvNum <= 0) return ctx.error("Attention with 3D inputs needs q_num_heads and kv_num_heads");
    qHeads = Dim(qNum);
    kvHeads = Dim(kvNum);
    qSeq = (*q)[1];
    kvSeq = (*k)[1];
    headSize = dimFloorDiv((*k)[2], kvHeads);
    vHeadSize = dimFloorDiv((*v)[2], kvHeads);
  } else {
    qHeads = (*q)[1];
    kvHeads = (*k)[1];
    qSeq = (*q)[2];
    kvSeq = (*k)[2];
    headSize = (*k)[3];
    vHeadSize = (*v)[3];
  }
  Dim totalSeq = kvSeq;
  if (const auto& pastKey = ctx.inputShape(4); pastKey && pastKey->size() == 4) totalSeq = dimAdd((*pastKey)[2], kvSeq);
  else if (ctx.hasInput(4)) totalSeq = Dim::unknown(ctx.rankOriginOf(4));
  if (packed) ctx.setOutputTensor(0, elem, {batch, qSeq, dimMul(qHeads, vHeadSize)});
  else ctx.setOutputTensor(0, elem, {batch, qHeads, qSeq, vHeadSize});
  ctx.setOutputTensor(1, elem, {batch, kvHeads, totalSeq, headSize});
  ctx.setOutputTensor(2, ctx.inputElemType(2), {batch, kvHeads, totalSeq, vHeadSize});
  ctx.setOutputTensor(3, elem, {batch, qHeads, qSeq, totalSeq});
  return {};
}

Expected<void> inferLinearAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& q = ctx.inputShape(0);
  const auto& k = ctx.inputShape(1);
  const auto& v = ctx.inputShape(2);
  if (!q || !k || !v || q->size() != 3 || k->size() != 3 || v->size() != 3) {
    if (q && k && v) return ctx.error("LinearAttention query, key and value must be 3D (B, T, heads*size)");
    for (size_t i = 0; i < 2; ++i) ctx.setOutputUnknownRank(i, elem, ctx.rankOriginOf(!q ? 0 : (!k ? 1 : 2)));
    return {};
  }
  Dim qHeads(ctx.attrInt("q_num_heads", 1)), kvHeads(ctx.attrInt("kv_num_heads", 1));
  Dim keySize = dimFloorDiv((*k)[2], kvHeads);
  Dim valueSize = dimFloorDiv((*v)[2], kvHeads);
  ctx.setOutputTensor(0, elem, {(*q)[0], (*q)[1], dimMul(qHeads, valueSize)});
  DataType stateType = ctx.hasInput(3) ? ctx.inputElemType(3) : elem;
  ctx.setOutputTensor(1, stateType, {(*q)[0], kvHeads, keySize, valueSize});
  return {};
}

Expected<void> inferFlexAttention(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& q = ctx.inputShape(0);
  const auto& v = ctx.inputShape(2);
  if (!q || !v) return ctx.setOutputUnknownRank(0, elem, ctx.rankOriginOf(!q ? 0 : 2)), Expected<void>();
  if (q->size() != 4 || v->size() != 4) return ctx.error("FlexAttention query and value must be 4D");
  ctx.setOutputTensor(0, elem, {(*q)[0], (*q)[1], (*q)[2], (*v)[3]});
  // The score_mod and prob_mod bodies take the [batch, q_heads, q_len, kv_len] scores or probabilities:
  // inferred too, so their values get shapes like every other value of the model.
  const auto& k = ctx.inputShape(1);
  Dim keyLength = k && k->size() == 4 ? (*k)[2] : ctx.unknownDim("FlexAttention: key has no known rank-4 shape");
  for (const char* name : {"score_mod", "prob_mod"}) {
    if (Graph* body = ctx.attrGraph(name)) {
      InferredValue scores;
      scores.type = Type::tensor(elem, Shape{(*q)[0], (*q)[1], (*q)[2], keyLength});
      ctx.inferSubgraph(*body, {scores});
    }
  }
  return {};
}

}  // namespace onyx::nn_shapes
