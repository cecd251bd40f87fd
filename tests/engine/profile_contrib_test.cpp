// FLOPs and bytes of ONNX Runtime's com.microsoft ops (#22), in the static estimate (profile/static_flops.h)
// and in a profiled run, against figures computed by hand: MatMulNBits counts 2 * M * K * N and its weights
// are read as the 4-bit blocks they are; the attention ops count the projection, the QK^T and AV products
// over past + new keys and the softmax; the fused norms, activations and FusedConv count their parts.
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "onnx/onnx_io.h"
#include "profile/profile_run.h"
#include "profile/static_flops.h"
#include "shapes/shape_inference.h"
#include "support/test_data.h"

namespace onyx::profile {
namespace {

const Node* nodeNamed(const Model& model, const std::string& output) {
  for (const Node* node : model.graph().nodes())
    if (node->output(0) && node->output(0)->name() == output) return node;
  return nullptr;
}

// Declared dims whose products overflow int64 (a hostile file) saturate at the int64 maximum, as do
// window sizes; negative attribute values count nothing. No overflow is left for UBSan to find.
TEST(StaticFlops, HugeDeclaredDimsSaturateInsteadOfOverflowing) {
  auto parsed = parseModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4000000000, 4000000000] a, float[4000000000, 4000000000] b, float[1, 1, 8, 8] x,
   float[1, 1, 4000000000, 4000000000] big) => (float y, float p, float q) {
  y = MatMul (a, b)
  p = AveragePool <kernel_shape = [3000000000, 3000000000]> (big)
  q = MaxPool <kernel_shape = [-2, 2]> (x)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.error().toString();
  const Model& model = **parsed;
  const ShapeInference shapes = inferShapes(model);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(estimateFlops(*nodeNamed(model, "y"), shapes), kMax);
  const Node* p = nodeNamed(model, "p");
  const Node* q = nodeNamed(model, "q");
  EXPECT_EQ(estimateFlops(*p, shapes), kMax);
  EXPECT_EQ(estimateFlops(*q, shapes), 0);
}

TEST(ContribFlops, StaticEstimatesMatchHandComputedFigures) {
  auto parsed = parseModelText(R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[2, 3, 16] x, float[16, 48] w, float[48] bias, float[2, 2, 2, 5, 8] past, float[2, 4, 16] kv,
   float[2, 2, 6, 8] past_key, float[2, 2, 6, 8] past_value, float[16] gamma, float[16] beta,
   float[1, 3, 4, 5, 6] volume, float[4, 3, 3, 3, 3] filter, float[4] filter_bias, float[2, 3, 32] packed,
   float[2, 1, 5, 8] cache_key, float[2, 1, 5, 8] cache_value, int32[2, 1] seqlens, int32[1] total,
   uint8[8, 1, 8] q4, float[8] scales)
    => (float att, float rot, float mha, float sln, float gelu, float conv, float gqa, float nbits) {
  att, present = com.microsoft.Attention <num_heads = 2, unidirectional = 1> (x, w, bias, , past)
  rot = com.microsoft.Attention <num_heads = 2, do_rotary = 1> (x, w, bias)
  mha, present_key, present_value = com.microsoft.MultiHeadAttention <num_heads = 2> (x, kv, kv, , , , past_key, past_value)
  sln = com.microsoft.SkipLayerNormalization (x, x, gamma, beta, gamma)
  gelu = com.microsoft.Gelu (x)
  conv = com.microsoft.FusedConv <activation = "Relu", pads = [1, 1, 1, 1, 1, 1]> (volume, filter, filter_bias)
  gqa, gqa_key, gqa_value = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1> (packed, , , cache_key, cache_value, seqlens, total)
  nbits = com.microsoft.MatMulNBits <K = 16, N = 8, bits = 4, block_size = 16> (x, q4, scales)
})");
  ASSERT_TRUE(parsed.ok()) << parsed.error().toString();
  const Model& model = **parsed;
  ShapeInference shapes = inferShapes(model);
  auto flops = [&](const std::string& output) {
    const Node* node = nodeNamed(model, output);
    EXPECT_TRUE(node) << output;
    return node ? estimateFlops(*node, shapes) : -1;
  };
  // Attention: batch 2, 3 tokens, 16 -> 48 projection, 2 heads of 8, past 5 (8 keys).
  const int64_t projection = 2 * (2 * 3) * 16 * 48, qk = 2 * 2 * 3 * 8 * 16, av = 2 * 2 * 3 * 8 * 16;
  const int64_t softmax = 4 * 2 * 2 * 3 * 8;
  EXPECT_EQ(flops("att"), projection + qk + av + softmax);
  // Without past (3 keys), with do_rotary: 3 per rotated channel, 8 channels of 2 heads in Q and in K.
  EXPECT_EQ(flops("rot"), projection + 2 * (2 * 2 * 3 * 3 * 16) + 4 * 2 * 2 * 3 * 3 + 3 * (2 * 3) * 2 * (2 * 8));
  // MultiHeadAttention: 4 new keys + 6 past = 10, no projection.
  EXPECT_EQ(flops("mha"), 2 * 2 * 3 * 10 * 16 + 2 * 2 * 3 * 10 * 16 + 4 * 2 * 2 * 3 * 10);
  // SkipLayerNormalization with its bias: 4 (LayerNormalization) + 1 (skip) + 1 (bias) per element.
  EXPECT_EQ(flops("sln"), 6 * 2 * 3 * 16);
  EXPECT_EQ(flops("gelu"), 8 * 2 * 3 * 16);
  // FusedConv 3-D: output [1, 4, 4, 5, 6], each 3 * 27 multiply-adds + bias + Relu.
  EXPECT_EQ(flops("conv"), (4 * 4 * 5 * 6) * (2 * 3 * 27 + 1 + 1));
  // GroupQueryAttention: packed (2 + 2 * 1) heads of 8; 2 query heads over 5 past + 3 new keys.
  EXPECT_EQ(flops("gqa"), 2 * 2 * 3 * 8 * 16 + 2 * 2 * 3 * 8 * 16 + 4 * 2 * 2 * 3 * 8);
  // MatMulNBits: M = 6 rows of K = 16 times N = 8.
  EXPECT_EQ(flops("nbits"), 2 * 6 * 16 * 8);
}

// The int4 BERT (../shared/models-ort/bert_small_int4): 24 MatMulNBits (4 bits, block 32, symmetric) on 128
// tokens. Each one's profiled FLOPs are 2 * 128 * K * N, the static estimate agrees, and the bytes it reads
// are A in float32, B at 4 bits (K * N / 2 bytes) and one float32 scale per block (no float copy of B), and
// a fused residual.
TEST(ContribFlops, MatMulNBitsProfileCountsHandComputedFlopsAndFourBitWeights) {
  ONYX_REQUIRE_SHARED(folder, "models-ort/bert_small_int4");
  auto loaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  const Model& model = **loaded;
  RunRequest request;
  request.inputs = InputSource::TestDataSet;
  request.dataSet = folder / "test_data_set_0";
  request.warmup = 0;
  request.iterations = 1;
  auto result = runProfiled(model, request);
  ASSERT_TRUE(result.ok()) << result.error().toString();

  std::vector<Tensor> inputTensors;
  ShapeInferenceOptions withInputs;
  for (size_t i = 0; i < model.graph().inputs().size(); ++i) {
    auto tensor = loadTensorFile(folder / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"));
    ASSERT_TRUE(tensor.ok()) << tensor.error().toString();
    inputTensors.push_back(std::move(*tensor));
  }
  for (size_t i = 0; i < inputTensors.size(); ++i)
    withInputs.inputValues[model.graph().inputs()[i]->name()] = &inputTensors[i];
  ShapeInference shapes = inferShapes(model, withInputs);

  const int64_t tokens = 1 * 128;
  int nodes = 0;
  int64_t totalFlops = 0;
  for (const exec::ProfileEvent& e : result->profile.events) {
    if (e.opType != "MatMulNBits") continue;
    const Node* node = model.graph().findNode(e.node);
    ASSERT_TRUE(node) << e.name;
    const int64_t k = node->attrInt("K", 0), n = node->attrInt("N", 0), bits = node->attrInt("bits", 4);
    const int64_t block = node->attrInt("block_size", 0);
    ASSERT_EQ(bits, 4);
    ASSERT_EQ(block, 32);
    ASSERT_EQ(node->inputCount(), 3u) << "symmetric: no zero points, no bias";
    EXPECT_EQ(e.flops, 2 * tokens * k * n) << e.name;
    EXPECT_EQ(estimateFlops(*node, shapes), 2 * tokens * k * n) << e.name;
    const int64_t activations = tokens * k * 4, weights = k * n / 2, scales = n * (k / block) * 4;
    // The output projections' fused epilogue, bias then the residual, reads a residual of Y's size too.
    const int64_t residual = e.variant.find("+Add+Add") != std::string::npos ? tokens * n * 4 : 0;
    EXPECT_EQ(e.bytesRead, activations + weights + scales + residual) << e.name << " " << e.variant;
    EXPECT_LT(e.bytesRead, activations + k * n * 4) << e.name << ": weights counted wider than 4 bits";
    EXPECT_EQ(e.bytesWritten, tokens * n * 4) << e.name;
    totalFlops += e.flops;
    ++nodes;
  }
  EXPECT_EQ(nodes, 24);
  // 4 layers of Q, K, V, output (256 x 256) and the feed-forward pair (256 x 1024, 1024 x 256).
  EXPECT_EQ(totalFlops, 4 * (4 * (2 * 128 * 256 * 256) + 2 * (2 * 128 * 256 * 1024)));
}

// The ONNX Runtime-optimized float16 BERT: each fused Attention's profiled FLOPs are the projection, the QK^T
// and AV products and the softmax over 128 tokens and 4 heads; each com.microsoft Gelu counts 8 per element.
TEST(ContribFlops, FusedAttentionAndGeluProfileCountTheirParts) {
  ONYX_REQUIRE_SHARED(folder, "models-ort/bert_small_ortopt_fp16");
  auto loaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  RunRequest request;
  request.inputs = InputSource::TestDataSet;
  request.dataSet = folder / "test_data_set_0";
  request.warmup = 0;
  request.iterations = 1;
  auto result = runProfiled(**loaded, request);
  ASSERT_TRUE(result.ok()) << result.error().toString();
  std::map<std::string, int> seen;
  for (const exec::ProfileEvent& e : result->profile.events) {
    if (e.opType == "Attention") {
      EXPECT_EQ(e.flops, 2 * 128 * 256 * 768 + 2 * 128 * 128 * 256 + 2 * 128 * 128 * 256 + 4 * 4 * 128 * 128) << e.name;
    } else if (e.opType == "Gelu") {
      EXPECT_EQ(e.flops, 8 * 128 * 1024) << e.name;
    } else if (e.opType == "SkipLayerNormalization") {
      EXPECT_GE(e.flops, 5 * 128 * 256) << e.name;
      EXPECT_LE(e.flops, 6 * 128 * 256) << e.name;
    } else {
      continue;
    }
    seen[e.opType]++;
  }
  EXPECT_EQ(seen["Attention"], 4);
  EXPECT_EQ(seen["Gelu"], 4);
  EXPECT_EQ(seen["SkipLayerNormalization"], 9);
}

}  // namespace
}  // namespace onyx::profile
