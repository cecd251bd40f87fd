// The com.microsoft ops' FLOPs (contrib_flops.h), and the kernel-side wrapper every contrib kernel carries.
#include "ops/contrib/contrib_flops.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace onyx::exec::contrib {
namespace {

using Dims64 = std::vector<int64_t>;

// Dims of input i, or null when absent or not static.
const Dims64* dimsOf(const InputDims& inputs, size_t i) {
  return i < inputs.size() && inputs[i] ? &*inputs[i] : nullptr;
}

int64_t countOf(const Dims64* dims) {
  if (!dims) return 0;
  int64_t n = 1;
  for (int64_t d : *dims) n *= d;
  return n;
}

// Dim d of input i counted from the front (negative: from the back); -1 when unknown or out of range.
int64_t dimOf(const InputDims& inputs, size_t i, int d) {
  const Dims64* dims = dimsOf(inputs, i);
  if (!dims) return -1;
  const int rank = int(dims->size());
  const int at = d < 0 ? rank + d : d;
  return at >= 0 && at < rank ? (*dims)[size_t(at)] : -1;
}

// The two products of attention over `scores` query-key pairs (batch * heads * queries * keys), with the
// query/key and value widths per head summed over heads, and 4 per score for the softmax.
int64_t attentionCore(int64_t batch, int64_t queries, int64_t keys, int64_t qkHidden, int64_t vHidden,
                      int64_t heads) {
  if (batch < 0 || queries < 0 || keys < 0 || qkHidden < 0 || vHidden < 0) return 0;
  return 2 * batch * queries * keys * qkHidden + 2 * batch * queries * keys * vHidden +
         4 * batch * std::max<int64_t>(heads, 1) * queries * keys;
}

// Attention: X [B, S, D_in] times the packed weights [D_in, Hq + Hk + Hv], then attention over past + S.
int64_t attentionFlops(const Node& node, const InputDims& in) {
  const int64_t batch = dimOf(in, 0, 0), seq = dimOf(in, 0, 1), inHidden = dimOf(in, 0, 2);
  const int64_t packed = dimOf(in, 1, 1);
  if (batch < 0 || seq < 0 || inHidden < 0 || packed < 0) return 0;
  int64_t qHidden = packed / 3, vHidden = packed / 3;
  if (auto sizes = node.attrInts("qkv_hidden_sizes"); sizes && sizes->size() == 3)
    qHidden = (*sizes)[0], vHidden = (*sizes)[2];
  const int64_t past = dimsOf(in, 4) ? dimOf(in, 4, 3) : 0;
  if (past < 0) return 0;
  const int64_t heads = std::max<int64_t>(node.attrInt("num_heads", 1), 1);
  const int64_t rotaryDim = node.attrInt("rotary_embedding_dim", 0) > 0 ? node.attrInt("rotary_embedding_dim", 0) : qHidden / heads;
  const int64_t rotary = node.attrInt("do_rotary", 0) != 0 ? 3 * batch * seq * 2 * heads * rotaryDim : 0;  // Q and K
  return 2 * batch * seq * inHidden * packed + attentionCore(batch, seq, past + seq, qHidden, vHidden, heads) + rotary;
}

// MultiHeadAttention: query [B, S, Hq]; key [B, L, Hq] or [B, heads, L, H] (then past is not added), absent
// when the query packs K and V; value [B, L, Hv] or [B, heads, L, Hv / heads]; past_key [B, heads, P, H].
int64_t multiHeadAttentionFlops(const Node& node, const InputDims& in) {
  const int64_t batch = dimOf(in, 0, 0), seq = dimOf(in, 0, 1), qHidden = dimOf(in, 0, 2);
  const int64_t heads = node.attrInt("num_heads", 1);
  const Dims64* key = dimsOf(in, 1);
  const Dims64* value = dimsOf(in, 2);
  int64_t keys = key ? dimOf(in, 1, key->size() == 4 ? 2 : 1) : seq;
  if (!key || key->size() != 4) keys += dimsOf(in, 6) ? dimOf(in, 6, 2) : 0;
  int64_t vHidden = qHidden;
  if (value) vHidden = value->size() == 4 ? heads * dimOf(in, 2, 3) : dimOf(in, 2, -1);
  return attentionCore(batch, seq, keys, qHidden, vHidden, heads);
}

// GroupQueryAttention: query [B, S, heads * H] (or Q, K, V packed [B, S, (heads + 2 kv_heads) * H]), every
// query head against past + S keys of its group; the rotary rotation (do_rotary) of Q and K counts 3 each.
int64_t groupQueryAttentionFlops(const Node& node, const InputDims& in) {
  const int64_t batch = dimOf(in, 0, 0), seq = dimOf(in, 0, 1), width = dimOf(in, 0, 2);
  const int64_t heads = node.attrInt("num_heads", 1), kvHeads = node.attrInt("kv_num_heads", 1);
  if (width < 0 || heads <= 0 || kvHeads <= 0) return 0;
  const int64_t headSize = dimsOf(in, 1) ? width / heads : width / (heads + 2 * kvHeads);
  const int64_t keys = seq + (dimsOf(in, 3) ? dimOf(in, 3, 2) : 0);
  int64_t flops = attentionCore(batch, seq, keys, heads * headSize, heads * headSize, heads);
  if (node.attrInt("do_rotary", 0) != 0 && batch > 0 && seq > 0) flops += 3 * batch * seq * (heads + kvHeads) * headSize;
  return flops;
}

// A product of A [..., M, K] (or [..., K, M] with transA) with B [..., K, N] (or [..., N, K] with transB),
// either side batched.
int64_t productFlops(const Node& node, const InputDims& in) {
  const Dims64* a = dimsOf(in, 0);
  const Dims64* b = dimsOf(in, 1);
  if (!a || !b || a->empty() || b->empty()) return 0;
  const bool transA = node.attrInt("transA", 0) != 0 && a->size() > 1, transB = node.attrInt("transB", 0) != 0;
  const int64_t k = transA ? dimOf(in, 0, -2) : dimOf(in, 0, -1);
  const int64_t m = a->size() < 2 ? 1 : (transA ? dimOf(in, 0, -1) : dimOf(in, 0, -2));
  const int64_t n = b->size() < 2 ? 1 : (transB ? dimOf(in, 1, -2) : dimOf(in, 1, -1));
  if (k <= 0 || m < 0 || n < 0) return 0;
  const int64_t batch = std::max(countOf(a) / (m * k > 0 ? m * k : 1), countOf(b) / (k * n > 0 ? k * n : 1));
  return 2 * batch * m * k * n;
}

// FusedConv: Conv's multiply-adds (each output element sums C / group * kernel elements) plus the bias,
// residual and activation per output element. The output's spatial size follows Conv's arithmetic.
int64_t fusedConvFlops(const Node& node, const InputDims& in) {
  const Dims64* x = dimsOf(in, 0);
  const Dims64* w = dimsOf(in, 1);
  if (!x || !w || x->size() < 3 || w->size() != x->size()) return 0;
  const size_t spatial = x->size() - 2;
  const auto strides = node.attrInts("strides").value_or(Dims64(spatial, 1));
  const auto dilations = node.attrInts("dilations").value_or(Dims64(spatial, 1));
  const auto pads = node.attrInts("pads").value_or(Dims64(2 * spatial, 0));
  const std::string autoPad = node.attrString("auto_pad", "NOTSET");
  int64_t outPixels = 1, window = 1;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t size = (*x)[d + 2], kernel = (*w)[d + 2];
    const int64_t stride = d < strides.size() ? std::max<int64_t>(strides[d], 1) : 1;
    const int64_t dilation = d < dilations.size() ? dilations[d] : 1;
    int64_t out = 0;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = (size + stride - 1) / stride;
    } else {
      const int64_t padded = autoPad == "VALID" || pads.size() < 2 * spatial ? size : size + pads[d] + pads[d + spatial];
      out = padded >= dilation * (kernel - 1) + 1 ? (padded - dilation * (kernel - 1) - 1) / stride + 1 : 0;
    }
    outPixels *= out;
    window *= kernel;
  }
  const int64_t outputs = (*x)[0] * (*w)[0] * outPixels;
  const int64_t perOutput = 2 * (*w)[1] * window + (dimsOf(in, 2) ? 1 : 0) + (dimsOf(in, 3) ? 1 : 0) +
                            (node.attrString("activation", "").empty() ? 0 : 1);
  return outputs * perOutput;
}

// Ops whose FLOPs are a fixed number per element of input 0 (plus one per optional input added in).
int64_t perElementFlops(std::string_view op, const InputDims& in) {
  static const std::unordered_map<std::string_view, int64_t> perElement = {
      {"Gelu", 8}, {"FastGelu", 8}, {"BiasGelu", 9}, {"QuickGelu", 6}, {"BiasAdd", 2}, {"BiasSoftmax", 5},
      {"RotaryEmbedding", 3}, {"SimplifiedLayerNormalization", 3}, {"QuantizeLinear", 2}, {"DequantizeLinear", 2},
      // LayerNormalization's 4 (RMS norm's 3) and the skip add.
      {"SkipLayerNormalization", 5}, {"SkipSimplifiedLayerNormalization", 4}};
  auto found = perElement.find(op);
  if (found == perElement.end()) return -1;
  int64_t per = found->second;
  if (op == "FastGelu" && dimsOf(in, 1)) per += 1;                               // its bias
  if (op == "SkipLayerNormalization" && dimsOf(in, 4)) per += 1;                 // its bias
  if (op == "SkipSimplifiedLayerNormalization" && dimsOf(in, 3)) per += 1;       // its bias
  return per * countOf(dimsOf(in, 0));
}

}  // namespace

std::optional<int64_t> contribFlops(const Node& node, const InputDims& in) {
  if (node.domain() != "com.microsoft") return std::nullopt;
  const std::string& op = node.opType();
  if (op == "MatMulNBits") {
    const int64_t k = node.attrInt("K", 0), n = node.attrInt("N", 0), a = countOf(dimsOf(in, 0));
    return k > 0 ? 2 * (a / k) * k * n : 0;
  }
  if (op == "Attention") return attentionFlops(node, in);
  if (op == "MultiHeadAttention") return multiHeadAttentionFlops(node, in);
  if (op == "GroupQueryAttention") return groupQueryAttentionFlops(node, in);
  if (op == "FusedMatMul") return productFlops(node, in);
  if (op == "FusedGemm") {
    const int64_t product = productFlops(node, in);
    const int64_t m = dimOf(in, 0, node.attrInt("transA", 0) ? 1 : 0);
    const int64_t n = dimOf(in, 1, node.attrInt("transB", 0) ? 0 : 1);
    return m > 0 && n > 0 ? product + 2 * m * n : product;  // the C add and the activation
  }
  if (op == "MatMulIntegerToFloat" || op == "DynamicQuantizeMatMul") {
    // The integer product, one scale per output; DynamicQuantizeMatMul also quantizes A (2 per element).
    const int64_t product = productFlops(node, in), k = dimOf(in, 0, -1), n = dimOf(in, 1, -1);
    if (k <= 0 || n < 0) return product;
    const int64_t outputs = countOf(dimsOf(in, 0)) / k * n;
    return product + outputs + (op == "DynamicQuantizeMatMul" ? 2 * countOf(dimsOf(in, 0)) : 0);
  }
  if (op == "FusedConv") return fusedConvFlops(node, in);
  if (op == "EmbedLayerNormalization") {
    // Word + position (+ segment) embeddings added, then LayerNormalization: per output element.
    const int64_t tokens = countOf(dimsOf(in, 0)), hidden = dimOf(in, 2, 1);
    return hidden < 0 ? 0 : tokens * hidden * (4 + 1 + (dimsOf(in, 4) ? 1 : 0));
  }
  if (int64_t flops = perElementFlops(op, in); flops >= 0) return flops;
  return std::nullopt;
}

}  // namespace onyx::exec::contrib
