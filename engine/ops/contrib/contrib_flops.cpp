// The com.microsoft ops' FLOPs (contrib_flops.h), and the kernel-side wrapper every contrib kernel carries.
#include "ops/contrib/contrib_flops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace onyx::exec::contrib {
namespace {

using Dims64 = std::vector<int64_t>;

// FLOPs are counted in double: a file's dims and attributes (N of 2^62) multiply past int64, which would be
// undefined in integers; contribFlops saturates the result.

// Dims of input i, or null when absent or not static.
const Dims64* dimsOf(const InputDims& inputs, size_t i) {
  return i < inputs.size() && inputs[i] ? &*inputs[i] : nullptr;
}

double countOf(const Dims64* dims) {
  if (!dims) return 0;
  double n = 1;
  for (int64_t d : *dims) n *= double(d);
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
double attentionCore(double batch, double queries, double keys, double qkHidden, double vHidden, double heads) {
  if (batch < 0 || queries < 0 || keys < 0 || qkHidden < 0 || vHidden < 0) return 0;
  return 2 * batch * queries * keys * qkHidden + 2 * batch * queries * keys * vHidden +
         4 * batch * std::max(heads, 1.0) * queries * keys;
}

// Attention: X [B, S, D_in] times the packed weights [D_in, Hq + Hk + Hv], then attention over past + S.
double attentionFlops(const Node& node, const InputDims& in) {
  const double batch = double(dimOf(in, 0, 0)), seq = double(dimOf(in, 0, 1)), inHidden = double(dimOf(in, 0, 2));
  const double packed = double(dimOf(in, 1, 1));
  if (batch < 0 || seq < 0 || inHidden < 0 || packed < 0) return 0;
  double qHidden = double(int64_t(packed) / 3), vHidden = qHidden;
  if (auto sizes = node.attrInts("qkv_hidden_sizes"); sizes && sizes->size() == 3)
    qHidden = double((*sizes)[0]), vHidden = double((*sizes)[2]);
  const double past = dimsOf(in, 4) ? double(dimOf(in, 4, 3)) : 0;
  if (past < 0) return 0;
  const double heads = double(std::max<int64_t>(node.attrInt("num_heads", 1), 1));
  const double rotaryDim = node.attrInt("rotary_embedding_dim", 0) > 0 ? double(node.attrInt("rotary_embedding_dim", 0))
                                                                      : std::trunc(qHidden / heads);
  const double rotary = node.attrInt("do_rotary", 0) != 0 ? 3 * batch * seq * 2 * heads * rotaryDim : 0;  // Q and K
  return 2 * batch * seq * inHidden * packed + attentionCore(batch, seq, past + seq, qHidden, vHidden, heads) + rotary;
}

// MultiHeadAttention: query [B, S, Hq]; key [B, L, Hq] or [B, heads, L, H] (then past is not added), absent
// when the query packs K and V; value [B, L, Hv] or [B, heads, L, Hv / heads]; past_key [B, heads, P, H].
double multiHeadAttentionFlops(const Node& node, const InputDims& in) {
  const double batch = double(dimOf(in, 0, 0)), seq = double(dimOf(in, 0, 1)), qHidden = double(dimOf(in, 0, 2));
  const double heads = double(node.attrInt("num_heads", 1));
  const Dims64* key = dimsOf(in, 1);
  const Dims64* value = dimsOf(in, 2);
  double keys = key ? double(dimOf(in, 1, key->size() == 4 ? 2 : 1)) : seq;
  if (!key || key->size() != 4) keys += dimsOf(in, 6) ? double(dimOf(in, 6, 2)) : 0;
  double vHidden = qHidden;
  if (value) vHidden = value->size() == 4 ? heads * double(dimOf(in, 2, 3)) : double(dimOf(in, 2, -1));
  return attentionCore(batch, seq, keys, qHidden, vHidden, heads);
}

// GroupQueryAttention: query [B, S, heads * H] (or Q, K, V packed [B, S, (heads + 2 kv_heads) * H]), every
// query head against past + S keys of its group; the rotary rotation (do_rotary) of Q and K counts 3 each.
double groupQueryAttentionFlops(const Node& node, const InputDims& in) {
  const double batch = double(dimOf(in, 0, 0)), seq = double(dimOf(in, 0, 1)), width = double(dimOf(in, 0, 2));
  const double heads = double(node.attrInt("num_heads", 1)), kvHeads = double(node.attrInt("kv_num_heads", 1));
  if (width < 0 || heads <= 0 || kvHeads <= 0) return 0;
  const double headSize = std::trunc(dimsOf(in, 1) ? width / heads : width / (heads + 2 * kvHeads));
  const double keys = seq + (dimsOf(in, 3) ? double(dimOf(in, 3, 2)) : 0);
  double flops = attentionCore(batch, seq, keys, heads * headSize, heads * headSize, heads);
  if (node.attrInt("do_rotary", 0) != 0 && batch > 0 && seq > 0) flops += 3 * batch * seq * (heads + kvHeads) * headSize;
  return flops;
}

// A product of A [..., M, K] (or [..., K, M] with transA) with B [..., K, N] (or [..., N, K] with transB),
// either side batched.
double productFlops(const Node& node, const InputDims& in) {
  const Dims64* a = dimsOf(in, 0);
  const Dims64* b = dimsOf(in, 1);
  if (!a || !b || a->empty() || b->empty()) return 0;
  const bool transA = node.attrInt("transA", 0) != 0 && a->size() > 1, transB = node.attrInt("transB", 0) != 0;
  const double k = double(transA ? dimOf(in, 0, -2) : dimOf(in, 0, -1));
  const double m = double(a->size() < 2 ? 1 : (transA ? dimOf(in, 0, -1) : dimOf(in, 0, -2)));
  const double n = double(b->size() < 2 ? 1 : (transB ? dimOf(in, 1, -2) : dimOf(in, 1, -1)));
  if (k <= 0 || m < 0 || n < 0) return 0;
  const double batch = std::max(std::trunc(countOf(a) / (m * k > 0 ? m * k : 1)), std::trunc(countOf(b) / (k * n > 0 ? k * n : 1)));
  return 2 * batch * m * k * n;
}

// FusedConv: Conv's multiply-adds (each output element sums C / group * kernel elements) plus the bias,
// residual and activation per output element. The output's spatial size follows Conv's arithmetic.
double fusedConvFlops(const Node& node, const InputDims& in) {
  const Dims64* x = dimsOf(in, 0);
  const Dims64* w = dimsOf(in, 1);
  if (!x || !w || x->size() < 3 || w->size() != x->size()) return 0;
  const size_t spatial = x->size() - 2;
  const auto strides = node.attrInts("strides").value_or(Dims64(spatial, 1));
  const auto dilations = node.attrInts("dilations").value_or(Dims64(spatial, 1));
  const auto pads = node.attrInts("pads").value_or(Dims64(2 * spatial, 0));
  const std::string autoPad = node.attrString("auto_pad", "NOTSET");
  double outPixels = 1, window = 1;
  for (size_t d = 0; d < spatial; ++d) {
    const double size = double((*x)[d + 2]), kernel = double((*w)[d + 2]);
    const double stride = d < strides.size() ? double(std::max<int64_t>(strides[d], 1)) : 1;
    const double dilation = d < dilations.size() ? double(dilations[d]) : 1;
    double out = 0;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out = std::ceil(size / stride);
    } else {
      const double padded = autoPad == "VALID" || pads.size() < 2 * spatial ? size : size + double(pads[d]) + double(pads[d + spatial]);
      out = padded >= dilation * (kernel - 1) + 1 ? std::floor((padded - dilation * (kernel - 1) - 1) / stride) + 1 : 0;
    }
    outPixels *= out;
    window *= kernel;
  }
  const double outputs = double((*x)[0]) * double((*w)[0]) * outPixels;
  const double perOutput = 2 * double((*w)[1]) * window + (dimsOf(in, 2) ? 1 : 0) + (dimsOf(in, 3) ? 1 : 0) +
                           (node.attrString("activation", "").empty() ? 0 : 1);
  return outputs * perOutput;
}

// Ops whose FLOPs are a fixed number per element of input 0 (plus one per optional input added in).
double perElementFlops(std::string_view op, const InputDims& in) {
  static const std::unordered_map<std::string_view, double> perElement = {
      {"Gelu", 8}, {"FastGelu", 8}, {"BiasGelu", 9}, {"QuickGelu", 6}, {"BiasAdd", 2}, {"BiasSoftmax", 5},
      {"RotaryEmbedding", 3}, {"SimplifiedLayerNormalization", 3}, {"QuantizeLinear", 2}, {"DequantizeLinear", 2},
      // LayerNormalization's 4 (RMS norm's 3) and the skip add.
      {"SkipLayerNormalization", 5}, {"SkipSimplifiedLayerNormalization", 4}};
  auto found = perElement.find(op);
  if (found == perElement.end()) return -1;
  double per = found->second;
  if (op == "FastGelu" && dimsOf(in, 1)) per += 1;                               // its bias
  if (op == "SkipLayerNormalization" && dimsOf(in, 4)) per += 1;                 // its bias
  if (op == "SkipSimplifiedLayerNormalization" && dimsOf(in, 3)) per += 1;       // its bias
  return per * countOf(dimsOf(in, 0));
}

// nullopt: no formula for this op.
std::optional<double> flopsOf(const Node& node, const InputDims& in) {
  const std::string& op = node.opType();
  if (op == "MatMulNBits") {
    const double k = double(node.attrInt("K", 0)), n = double(node.attrInt("N", 0)), a = countOf(dimsOf(in, 0));
    return k > 0 ? 2 * std::trunc(a / k) * k * n : 0;
  }
  if (op == "Attention") return attentionFlops(node, in);
  if (op == "MultiHeadAttention") return multiHeadAttentionFlops(node, in);
  if (op == "GroupQueryAttention") return groupQueryAttentionFlops(node, in);
  if (op == "FusedMatMul") return productFlops(node, in);
  if (op == "FusedGemm") {
    const double product = productFlops(node, in);
    const double m = double(dimOf(in, 0, node.attrInt("transA", 0) ? 1 : 0));
    const double n = double(dimOf(in, 1, node.attrInt("transB", 0) ? 0 : 1));
    return m > 0 && n > 0 ? product + 2 * m * n : product;  // the C add and the activation
  }
  if (op == "MatMulIntegerToFloat" || op == "DynamicQuantizeMatMul") {
    // The integer product, one scale per output; DynamicQuantizeMatMul also quantizes A (2 per element).
    const double product = productFlops(node, in), k = double(dimOf(in, 0, -1)), n = double(dimOf(in, 1, -1));
    if (k <= 0 || n < 0) return product;
    const double outputs = std::trunc(countOf(dimsOf(in, 0)) / k) * n;
    return product + outputs + (op == "DynamicQuantizeMatMul" ? 2 * countOf(dimsOf(in, 0)) : 0);
  }
  if (op == "FusedConv") return fusedConvFlops(node, in);
  if (op == "EmbedLayerNormalization") {
    // Word + position (+ segment) embeddings added, then LayerNormalization: per output element.
    const double tokens = countOf(dimsOf(in, 0)), hidden = double(dimOf(in, 2, 1));
    return hidden < 0 ? 0 : tokens * hidden * (4 + 1 + (dimsOf(in, 4) ? 1 : 0));
  }
  if (const double flops = perElementFlops(op, in); flops >= 0) return flops;
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> contribFlops(const Node& node, const InputDims& in) {
  if (node.domain() != "com.microsoft") return std::nullopt;
  const std::optional<double> flops = flopsOf(node, in);
  if (!flops) return std::nullopt;
  if (!(*flops > 0)) return 0;  // NaN (inf * 0) or a negative dim's product
  return *flops >= 9223372036854775807.0 ? INT64_MAX : int64_t(*flops);
}

}  // namespace onyx::exec::contrib
