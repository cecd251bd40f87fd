// The documentation of the com.microsoft ops Onyx implements, as onnxOpDocumentation gives it for ai.onnx ops
// (libonnx's registry has no com.microsoft schemas: ONNX Runtime registers them itself). Written from ONNX
// Runtime's docs/ContribOperators.md, in short: what the op computes, its inputs, outputs and attributes.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "onnx/op_documentation.h"

namespace onyx {
namespace {

// "name:type:description", a leading '?' marking an optional input or output.
OpParameterDoc parameter(std::string_view text) {
  OpParameterDoc p;
  if (!text.empty() && text.front() == '?') {
    p.optional = true;
    text.remove_prefix(1);
  }
  const size_t first = text.find(':'), second = text.find(':', first + 1);
  p.name = std::string(text.substr(0, first));
  p.typeText = std::string(text.substr(first + 1, second - first - 1));
  p.description = std::string(text.substr(second + 1));
  return p;
}

// "name:type:default:description", default "!" for a required attribute and "" for none.
OpAttributeDoc attribute(std::string_view text) {
  OpAttributeDoc a;
  size_t cuts[3], at = 0;
  for (size_t& cut : cuts) at = cut = text.find(':', at) + 1;
  a.name = std::string(text.substr(0, cuts[0] - 1));
  a.type = std::string(text.substr(cuts[0], cuts[1] - cuts[0] - 1));
  const std::string_view fallback = text.substr(cuts[1], cuts[2] - cuts[1] - 1);
  a.required = fallback == "!";
  if (!a.required) a.defaultValue = std::string(fallback);
  a.description = std::string(text.substr(cuts[2]));
  return a;
}

struct Entry {
  std::string summary;
  std::vector<const char*> inputs, outputs, attributes;
};

// A quantized element-wise op: dequantize, compute, requantize.
Entry qlinearUnary(const char* what, std::vector<const char*> attributes) {
  return {std::string(what) + " of a quantized X: dequantized, computed in float, requantized to Y's scale and zero point.",
          {"X:T:input", "X_scale:float:scalar", "?X_zero_point:T:scalar, 0 when absent", "Y_scale:float:scalar",
           "?Y_zero_point:T:scalar, 0 when absent"},
          {"Y:T:same shape as X"},
          std::move(attributes)};
}

Entry qlinearBinary(const char* what) {
  return {std::string(what) + " of quantized A and B (broadcasting): dequantized, computed in float, requantized to C's "
              "scale and zero point.",
          {"A:T:input", "A_scale:float:scalar", "?A_zero_point:T:scalar", "B:T:input", "B_scale:float:scalar",
           "?B_zero_point:T:scalar", "C_scale:float:scalar", "?C_zero_point:T:scalar"},
          {"C:T:broadcast shape"},
          {}};
}

using Table = std::unordered_map<std::string_view, Entry>;

// Attention, normalization and activation ops.
Table transformerEntries() {
  return {
      {"Attention",
       {"Multi-head self-attention of BERT / GPT-2 with the Q, K and V projections merged into one weight: "
        "softmax(scale * Q K^T + mask + attention_bias) V per head, with an optional past key/value cache.",
        {"input:T:(batch, sequence, input_hidden)", "weights:T:(input_hidden, q_hidden + k_hidden + v_hidden), Q, K, V side by side",
         "?bias:T:(q_hidden + k_hidden + v_hidden)",
         "?mask_index:int32:lengths (batch), end and start positions (2 * batch), or a 0/1 mask (batch, total) or (batch, sequence, total)",
         "?past:T:(2, batch, num_heads, past_sequence, head_size)", "?attention_bias:T:added to the scores, (batch or 1, num_heads or 1, sequence, total)",
         "?past_sequence_length:int32:with past_present_share_buffer"},
        {"output:T:(batch, sequence, v_hidden)", "?present:T:(2, batch, num_heads, past_sequence + sequence, head_size)"},
        {"num_heads:int:!:number of heads", "qkv_hidden_sizes:ints::Q, K and V hidden sizes when they differ",
         "unidirectional:int:0:1 for causal attention (each token sees the ones before it)",
         "mask_filter_value:float:-10000:added to masked scores", "scale:float::default 1 / sqrt(head_size)",
         "do_rotary:int:0:1 to rotate Q and K by position (rotary embedding, rotate-half pairs, base 10000)",
         "rotary_embedding_dim:int::channels rotated per head, default head_size",
         "past_present_share_buffer:int:0:past and present are one max-length buffer"}}},
      {"MultiHeadAttention",
       {"Multi-head attention of separate (or packed) Q, K and V: softmax(scale * Q K^T + masks) V per head, with an "
        "optional past key/value cache for decoders.",
        {"query:T:(batch, sequence, hidden)", "?key:T:(batch, kv_sequence, hidden) or (batch, num_heads, kv_sequence, head_size)",
         "?value:T:(batch, kv_sequence, v_hidden) or (batch, num_heads, kv_sequence, v_head_size)", "?bias:T:Q, K and V biases",
         "?key_padding_mask:int32:(batch) lengths or (batch, total) 0/1", "?attention_bias:T:added to the scores",
         "?past_key:T:(batch, num_heads, past_sequence, head_size)", "?past_value:T:(batch, num_heads, past_sequence, v_head_size)",
         "?past_sequence_length:int32:with a shared past/present buffer", "?cache_indirection:int32:beam search's (batch, beams, max_sequence)"},
        {"output:T:(batch, sequence, v_hidden)", "?present_key:T:(batch, num_heads, past_sequence + kv_sequence, head_size)",
         "?present_value:T:(batch, num_heads, past_sequence + kv_sequence, v_head_size)", "?qk:T:the scores, for debugging"},
        {"num_heads:int:!:number of heads", "unidirectional:int:0:1 for causal attention",
         "mask_filter_value:float:-10000:added to masked scores", "scale:float::default 1 / sqrt(head_size)"}}},
      {"GroupQueryAttention",
       {"Attention whose key/value heads are shared by groups of query heads (num_heads / kv_num_heads each), causal, "
        "with a KV cache (present = past + new) and optional rotary embedding of Q and K.",
        {"query:T:(batch, sequence, num_heads * head_size), or Q, K, V packed", "?key:T:(batch, sequence, kv_num_heads * head_size)",
         "?value:T:(batch, sequence, kv_num_heads * head_size)", "?past_key:T:(batch, kv_num_heads, past_sequence, head_size)",
         "?past_value:T:(batch, kv_num_heads, past_sequence, head_size)", "seqlens_k:int32:(batch) total length - 1 per sequence",
         "total_sequence_length:int32:scalar", "?cos_cache:T:(max_positions, rotary_dim / 2)", "?sin_cache:T:(max_positions, rotary_dim / 2)",
         "?position_ids:int64:(batch, sequence) rotary positions", "?attention_bias:T:added to the scores",
         "?head_sink:T:(num_heads) an extra logit per head in the softmax"},
        {"output:T:(batch, sequence, num_heads * head_size)", "?present_key:T:(batch, kv_num_heads, total, head_size)",
         "?present_value:T:(batch, kv_num_heads, total, head_size)", "?output_qk:T:the scores, for debugging"},
        {"num_heads:int:!:query heads", "kv_num_heads:int:!:key/value heads", "scale:float::default 1 / sqrt(head_size)",
         "do_rotary:int:0:rotate Q and K with the caches", "rotary_interleaved:int:0:pairs (2i, 2i + 1) instead of (i, i + half)",
         "local_window_size:int:-1:attend to at most this many previous tokens", "softcap:float:0:cap scores with softcap * tanh(s / softcap)"}}},
      {"RotaryEmbedding",
       {"Rotary position embedding: the first rotary_dim channels of each head rotate in pairs by angles looked up "
        "in the cos/sin caches at each token's position.",
        {"input:T:(batch, sequence, num_heads * head_size) or (batch, num_heads, sequence, head_size)",
         "position_ids:M:(batch, sequence), or one offset", "cos_cache:T:(max_positions, rotary_dim / 2)", "sin_cache:T:(max_positions, rotary_dim / 2)"},
        {"output:T:same shape as input"},
        {"interleaved:int:0:pairs (2i, 2i + 1) instead of (i, i + half)", "num_heads:int:0:needed for 3D input with partial rotation",
         "rotary_embedding_dim:int:0:channels rotated, default twice the caches' width", "scale:float:1:scales the position ids"}}},
      {"SkipLayerNormalization",
       {"LayerNormalization of input + skip (+ bias) over the last axis, the residual add of a transformer block fused in.",
        {"input:T:(batch, sequence, hidden)", "skip:T:same shape as input, or broadcastable", "gamma:T:(hidden)", "?beta:T:(hidden)", "?bias:T:(hidden)"},
        {"output:T:same shape as input", "?mean:U:unused in inference", "?inv_std_var:U:unused in inference",
         "?input_skip_bias_sum:T:input + skip + bias"},
        {"epsilon:float:1e-12:added to the variance"}}},
      {"SkipSimplifiedLayerNormalization",
       {"RMS normalization (no mean subtraction, no beta) of input + skip (+ bias) over the last axis.",
        {"input:T:(batch, sequence, hidden)", "skip:T:same shape as input", "gamma:T:(hidden)", "?bias:T:(hidden)"},
        {"output:T:same shape as input", "?mean:U:unused", "?inv_std_var:U:unused", "?input_skip_bias_sum:T:input + skip + bias"},
        {"epsilon:float:1e-12:added to the mean square"}}},
      {"SimplifiedLayerNormalization",
       {"RMS normalization: X / sqrt(mean(X^2) + epsilon) * scale over the axes from `axis` on.",
        {"X:T:input", "scale:V:broadcast over the normalized axes"},
        {"Y:V:same shape as X", "?inv_std_var:U:1 / sqrt(mean(X^2) + epsilon)"},
        {"axis:int:-1:first normalized axis", "epsilon:float:1e-5:added to the mean square", "stash_type:int:1:computation type"}}},
      {"EmbedLayerNormalization",
       {"BERT's embedding layer: word + position (+ segment) embeddings looked up and added, then LayerNormalization; "
        "also turns the attention mask into sequence lengths.",
        {"input_ids:int32:(batch, sequence)", "?segment_ids:int32:(batch, sequence)", "word_embedding:T:(vocabulary, hidden)",
         "position_embedding:T:(max_positions, hidden)", "?segment_embedding:T:(segments, hidden)", "gamma:T:(hidden)", "beta:T:(hidden)",
         "?mask:int32:(batch, sequence)", "?position_ids:int32:(batch, sequence) or (1, sequence)"},
        {"output:T:(batch, sequence, hidden)", "mask_index:int32:(batch) lengths from the mask", "?embedding_sum:T:the sum before normalization"},
        {"epsilon:float:1e-12:added to the variance", "mask_index_type:int:1:0 for no mask_index output"}}},
      {"Gelu", {"Gelu(X) = 0.5 X (1 + erf(X / sqrt(2))), exact.", {"X:T:input"}, {"Y:T:same shape"}, {}}},
      {"FastGelu",
       {"Gelu by its tanh approximation, of X (+ bias): 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).",
        {"X:T:input", "?bias:T:(last dim of X)"}, {"Y:T:same shape"}, {}}},
      {"BiasGelu", {"Exact Gelu of A + B, B over the last axis.", {"A:T:input", "B:T:(last dim of A)"}, {"C:T:same shape as A"}, {}}},
      {"QuickGelu", {"X * Sigmoid(alpha * X).", {"X:T:input"}, {"Y:T:same shape"}, {"alpha:float:1.702:sigmoid's slope"}}},
      {"BiasAdd",
       {"X + bias + skip, bias over the last (channel) axis.", {"X:T:(batch, sequence, channels)", "bias:T:(channels)", "skip:T:same shape as X"},
        {"Y:T:same shape as X"}, {}}},
      {"BiasSoftmax",
       {"Softmax of data + bias, bias broadcasting to data.", {"data:T:input", "bias:T:broadcasts to data"}, {"output:T:same shape as data"},
        {"axis:int:1:the softmax axis (the dims from it on, flattened)", "is_inner_broadcast:int:!:how bias broadcasts"}}},
  };
}

// Products, convolutions and quantized ops.
Table quantizationEntries() {
  return {
      {"MatMulNBits",
       {"A times a weight stored quantized in blocks of K (2, 4 or 8 bits with a scale, and optionally a zero point, "
        "per block), dequantized on the fly: Y = A * dequantize(B)^T (+ bias).",
        {"A:T1:(..., K)", "B:T2:(N, K / block_size, block_size * bits / 8) packed", "scales:T1:(N * K / block_size)",
         "?zero_points:T3:packed like B, or float per block", "?g_idx:int32:(K) group of each row", "?bias:T1:(N)"},
        {"Y:T1:(..., N)"},
        {"K:int:!:rows of the weight", "N:int:!:columns of the weight", "bits:int:4:bits per weight (2, 4 or 8)",
         "block_size:int:!:weights per block, a power of 2 from 16", "accuracy_level:int:0:lowest accuracy allowed for A (a speed hint)"}}},
      {"FusedConv",
       {"activation(Conv(X, W, B) + Z): ONNX Runtime's fusion of a convolution, its activation and a residual add.",
        {"X:T:(N, C, spatial...)", "W:T:(M, C / group, kernel...)", "?B:T:(M)", "?Z:T:same shape as the output, added before the activation"},
        {"Y:T:(N, M, output spatial...)"},
        {"activation:string::Relu, Sigmoid, Tanh, LeakyRelu, Clip or HardSigmoid", "activation_params:floats::its alpha/beta or min/max",
         "auto_pad:string:NOTSET:as Conv", "dilations:ints::as Conv", "group:int:1:as Conv", "kernel_shape:ints::as Conv",
         "pads:ints::as Conv", "strides:ints::as Conv"}}},
      {"FusedGemm",
       {"activation(alpha * A' B' + beta * C): Gemm with its activation fused.", {"A:T:(M, K) or (K, M)", "B:T:(K, N) or (N, K)", "?C:T:broadcasts to (M, N)"},
        {"Y:T:(M, N)"},
        {"alpha:float:1:product scale", "beta:float:1:C scale", "transA:int:0:transpose A", "transB:int:0:transpose B",
         "activation:string::the fused activation", "activation_alpha:float::its alpha", "activation_beta:float::its beta"}}},
      {"FusedMatMul",
       {"alpha * A' B': MatMul with either operand's last two dims transposed first.", {"A:T:(..., M, K)", "B:T:(..., K, N)"}, {"Y:T:(..., M, N)"},
        {"alpha:float:1:product scale", "transA:int:0:transpose A's last two dims", "transB:int:0:transpose B's last two dims",
         "transBatchA:int:0:move A's batch dims", "transBatchB:int:0:move B's batch dims"}}},
      {"MatMulIntegerToFloat",
       {"(A - a_zero_point) (B - b_zero_point) * a_scale * b_scale (+ bias) in float: an integer MatMul dequantized.",
        {"A:T1:(..., K) 8-bit", "B:T2:(K, N) 8-bit", "a_scale:T3:scalar", "b_scale:T3:scalar or (N)", "?a_zero_point:T1:scalar",
         "?b_zero_point:T2:scalar or (N)", "?bias:T3:(N)"},
        {"Y:T3:(..., N)"}, {}}},
      {"DynamicQuantizeMatMul",
       {"A quantized to uint8 at run time (its scale and zero point from its range), multiplied with 8-bit B, dequantized.",
        {"A:T1:(..., K) float", "B:T2:(K, N) 8-bit", "b_scale:T1:scalar or (N)", "?b_zero_point:T2:scalar or (N)", "?bias:T1:(N)"},
        {"Y:T1:(..., N)"}, {}}},
      {"QuantizeLinear",
       {"y = saturate(round(x / y_scale) + y_zero_point), per tensor or along an axis.", {"x:T1:input", "y_scale:T1:scale", "?y_zero_point:T2:zero point"},
        {"y:T2:same shape as x"}, {"axis:int:1:the per-channel axis"}}},
      {"DequantizeLinear",
       {"y = (x - x_zero_point) * x_scale, per tensor or along an axis.", {"x:T1:input", "x_scale:T2:scale", "?x_zero_point:T1:zero point"},
        {"y:T2:same shape as x"}, {"axis:int:1:the per-channel axis"}}},
      {"GatherBlockQuantized",
       {"Gather of rows of a block-quantized table (4 or 8 bits), dequantized: an embedding lookup of a quantized model.",
        {"data:T1:quantized table", "indices:Tind:rows to gather", "scales:T2:one per block", "?zero_points:T1:one per block"},
        {"output:T2:gathered, dequantized"},
        {"gather_axis:int:0:axis of data gathered", "quantize_axis:int:1:axis the blocks run along", "block_size:int:128:elements per block",
         "bits:int:4:bits per element"}}},
      {"QLinearAdd", qlinearBinary("A + B")},
      {"QLinearMul", qlinearBinary("A * B")},
      {"QLinearSigmoid", qlinearUnary("Sigmoid(X)", {})},
      {"QLinearLeakyRelu", qlinearUnary("LeakyRelu(X)", {"alpha:float:0.01:slope below 0"})},
      {"QLinearSoftmax",
       qlinearUnary("Softmax(X)", {"axis:int:-1:the softmax axis", "opset:int:!:the ai.onnx Softmax version it follows"})},
      {"QLinearAveragePool",
       qlinearUnary("AveragePool(X)", {"auto_pad:string:NOTSET:as AveragePool", "ceil_mode:int:0:as AveragePool",
                                       "channels_last:int:0:1 for NHWC", "count_include_pad:int:0:as AveragePool",
                                       "kernel_shape:ints:!:as AveragePool", "pads:ints::as AveragePool", "strides:ints::as AveragePool"})},
      {"QLinearGlobalAveragePool", qlinearUnary("GlobalAveragePool(X)", {"channels_last:int:0:1 for NHWC"})},
      {"QLinearReduceMean",
       {"ReduceMean of a quantized tensor, computed on the dequantized values and requantized.",
        {"data:T:input", "data_scale:float:scalar", "data_zero_point:T:scalar", "reduced_scale:float:scalar",
         "?reduced_zero_point:T:scalar"},
        {"reduced:T:the mean"}, {"axes:ints:!:reduced axes", "keepdims:int:!:1 to keep reduced axes"}}},
      {"QLinearWhere",
       {"Where(condition, X, Y) of quantized X and Y, requantized to Z's scale and zero point.",
        {"condition:bool:where to take X", "X:T:input", "x_scale:float:scalar", "x_zero_point:T:scalar", "Y:T:input",
         "y_scale:float:scalar", "y_zero_point:T:scalar", "z_scale:float:scalar", "z_zero_point:T:scalar"},
        {"Z:T:the selection"}, {}}},
      {"QLinearConcat",
       {"Concat of quantized tensors, each requantized to Y's scale and zero point.",
        {"Y_scale:float:scalar", "Y_zero_point:T:scalar", "inputs:T:(tensor, scale, zero point) per input"},
        {"Y:T:the concatenation"}, {"axis:int:!:the concatenation axis"}}},
  };
}

const Table& entries() {
  static const Table table = [] {
    Table all = transformerEntries();
    all.merge(quantizationEntries());
    return all;
  }();
  return table;
}

}  // namespace

std::optional<OpDocumentation> contribOpDocumentation(std::string_view opType) {
  auto found = entries().find(opType);
  if (found == entries().end()) return std::nullopt;
  const Entry& entry = found->second;
  OpDocumentation doc;
  doc.domain = "com.microsoft";
  doc.opType = std::string(opType);
  doc.sinceVersion = 1;
  doc.summary = entry.summary;
  doc.doc = entry.summary + "\n\nONNX Runtime contrib op: docs/ContribOperators.md in microsoft/onnxruntime.";
  for (const char* text : entry.inputs) doc.inputs.push_back(parameter(text));
  if (opType == "QLinearConcat") doc.inputs.back().variadic = true;
  for (const char* text : entry.outputs) doc.outputs.push_back(parameter(text));
  for (const char* text : entry.attributes) doc.attributes.push_back(attribute(text));
  std::sort(doc.attributes.begin(), doc.attributes.end(),
            [](const OpAttributeDoc& a, const OpAttributeDoc& b) { return a.name < b.name; });
  return doc;
}

}  // namespace onyx
