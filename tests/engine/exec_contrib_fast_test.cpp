// The com.microsoft kernels that run per-instruction-set code (contrib_math.h) register a fast variant and
// its plain reference: both must match ONNX Runtime's outputs on every generated case, and the fast one the
// reference on shapes past the vector widths (row tails, float16 storage, masks). Also run under
// ONYX_CPU_ISA=avx2 (tests/CMakeLists.txt), so the AVX2 paths are held to the same reference.
#include <gtest/gtest.h>

#include "exec/conformance.h"
#include "exec/cpu/cpu_isa.h"
#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

const std::filesystem::path kCases = std::filesystem::path(ONYX_SOURCE_DIR) / "tests/data/contrib-ops";

const char* const kOpsWithFastCode[] = {"Gelu",        "FastGelu",     "BiasGelu",           "QuickGelu",
                                         "BiasSoftmax", "SkipLayerNormalization", "EmbedLayerNormalization",
                                         "Attention",   "MultiHeadAttention", "GroupQueryAttention",
                                         "FusedMatMul", "FusedGemm",    "FusedConv",          "MatMulIntegerToFloat",
                                         "DynamicQuantizeMatMul"};

TEST(ExecContribFast, EachOpHasAFastVariantBesideItsReference) {
  for (const char* op : kOpsWithFastCode) {
    SCOPED_TRACE(op);
    const auto defs = cpuKernels().variants("com.microsoft", op);
    const KernelDef* reference = nullptr;
    const KernelDef* fast = nullptr;
    for (const KernelDef* def : defs) {
      if (def->variant == "reference") reference = def;
      if (def->variant == "fast") fast = def;
    }
    ASSERT_TRUE(reference && fast);
    EXPECT_TRUE(fast->isaDispatched);
    EXPECT_FALSE(reference->isaDispatched);
    EXPECT_GT(fast->priority, reference->priority);
    EXPECT_NE(fast->function, reference->function);
    EXPECT_STREQ(fast->source, reference->source);  // registered together, where the op's kernel lives
  }
}

// Each variant pinned in turn: the reference is an oracle only if ONNX Runtime agrees with it too.
TEST(ExecContribFast, BothVariantsMatchOnnxRuntimeOnEveryGeneratedCase) {
  const auto cases = findCases(kCases);
  ASSERT_GE(cases.size(), 50u) << "generated cases missing under " << kCases;
  for (const char* variant : {"reference", "fast"}) {
    for (const auto& dir : cases) {
      const std::string name = dir.filename().string();
      ConformanceOptions options;
      options.executor.kernelVariant = variant;
      const bool half = name.find("fp16") != std::string::npos || name.find("float16") != std::string::npos;
      options.tolerance = half ? Tolerance{1e-2, 2e-3} : Tolerance{1e-4, 1e-5};
      CaseResult result = runConformanceCase(dir, options);
      EXPECT_EQ(result.status, CaseResult::Status::Passed) << variant << " " << result.name << ": " << result.reason;
    }
  }
}

NodeCase microsoft(std::string op, std::vector<Attribute> attrs = {}, int outputs = 1) {
  NodeCase c(std::move(op), std::move(attrs), 17, outputs);
  c.domain = "com.microsoft";
  return c;
}

// float32 products against sums in double; float16 outputs may round to the neighbouring half.
constexpr double kRtol = 1e-4, kAtol = 1e-4, kHalfTol = 4e-3;

TEST(ExecContribFast, ActivationsMatchTheReference) {
  for (DataType dtype : {DataType::Float, DataType::Float16}) {
    SCOPED_TRACE(dataTypeName(dtype));
    const double tol = dtype == DataType::Float ? kAtol : kHalfTol;
    auto x = randomTensor(dtype, {3, 7, 67}, 1, -5.0f, 5.0f);
    auto bias = randomTensor(dtype, {67}, 2);
    expectMatchesReference(microsoft("Gelu"), {x}, "fast", tol, tol);
    expectMatchesReference(microsoft("FastGelu"), {x, bias}, "fast", tol, tol);
    expectMatchesReference(microsoft("BiasGelu"), {x, bias}, "fast", tol, tol);
    expectMatchesReference(microsoft("QuickGelu", {Attribute::ofFloat("alpha", 1.5f)}), {x}, "fast", tol, tol);
    auto scores = randomTensor(dtype, {2, 3, 5, 37}, 3, -8.0f, 8.0f);
    auto scoreBias = randomTensor(dtype, {2, 1, 5, 37}, 4, -8.0f, 8.0f);
    expectMatchesReference(microsoft("BiasSoftmax", {Attribute::ofInt("axis", 3)}), {scores, scoreBias}, "fast", tol, tol);
  }
}

TEST(ExecContribFast, NormalizationsMatchTheReference) {
  for (DataType dtype : {DataType::Float, DataType::Float16}) {
    SCOPED_TRACE(dataTypeName(dtype));
    const double tol = dtype == DataType::Float ? kAtol : kHalfTol;
    // A large common offset: the variance must not cancel.
    auto x = randomTensor(dtype, {2, 5, 67}, 5, 20.0f, 24.0f);
    auto skip = randomTensor(dtype, {2, 5, 67}, 6);
    auto gamma = randomTensor(dtype, {67}, 7), beta = randomTensor(dtype, {67}, 8), bias = randomTensor(dtype, {67}, 9);
    // Output, mean, inverse standard deviation and the input + skip + bias sum.
    expectMatchesReference(microsoft("SkipLayerNormalization", {}, 4), {x, skip, gamma, beta, bias}, "fast", kRtol, tol);
    expectMatchesReference(microsoft("SkipLayerNormalization"), {x, skip, gamma}, "fast", kRtol, tol);

    auto ids = randomTensor(DataType::Int32, {2, 7}, 10, 0.0f, 2.95f);       // 0 ..< 30
    auto segments = randomTensor(DataType::Int32, {2, 7}, 11, 0.0f, 0.19f);  // 0 or 1
    auto words = randomTensor(dtype, {30, 67}, 12), positions = randomTensor(dtype, {16, 67}, 13);
    auto segmentTable = randomTensor(dtype, {2, 67}, 14);
    expectMatchesReference(microsoft("EmbedLayerNormalization", {}, 3),
                           {ids, segments, words, positions, segmentTable, gamma, beta}, "fast", kRtol, tol);
  }
}

TEST(ExecContribFast, AttentionsMatchTheReference) {
  for (DataType dtype : {DataType::Float, DataType::Float16}) {
    SCOPED_TRACE(dataTypeName(dtype));
    const double tol = dtype == DataType::Float ? kAtol : kHalfTol;
    auto input = randomTensor(dtype, {2, 9, 48}, 20, -1.0f, 1.0f);
    auto weights = randomTensor(dtype, {48, 144}, 21, -0.5f, 0.5f);
    auto bias = randomTensor(dtype, {144}, 22);
    auto lengths = TensorValue::fromVector<int32_t>(DataType::Int32, {2}, {9, 5});  // right padding
    const Attribute heads = Attribute::ofInt("num_heads", 4);
    expectMatchesReference(microsoft("Attention", {heads}), {input, weights, bias}, "fast", kRtol, tol);
    expectMatchesReference(microsoft("Attention", {heads, Attribute::ofInt("unidirectional", 1)}),
                           {input, weights, bias, lengths}, "fast", kRtol, tol);
    // With a past: present holds it followed by this run's keys and values.
    auto past = randomTensor(dtype, {2, 2, 4, 6, 12}, 23);
    expectMatchesReference(microsoft("Attention", {heads}, 2), {input, weights, bias, TensorValue(), past}, "fast", kRtol, tol);

    auto query = randomTensor(dtype, {2, 9, 48}, 24), key = randomTensor(dtype, {2, 11, 48}, 25);
    auto value = randomTensor(dtype, {2, 11, 40}, 26);
    expectMatchesReference(microsoft("MultiHeadAttention", {heads}), {query, key, value}, "fast", kRtol, tol);
  }
}

TEST(ExecContribFast, FusedProductsMatchTheReference) {
  auto a = randomTensor(DataType::Float, {2, 9, 37}, 30), b = randomTensor(DataType::Float, {21, 37}, 31);
  expectMatchesReference(microsoft("FusedMatMul", {Attribute::ofInt("transB", 1), Attribute::ofFloat("alpha", 0.5f)}),
                         {a, b}, "fast", kRtol, kAtol);
  auto m = randomTensor(DataType::Float, {9, 37}, 32), c = randomTensor(DataType::Float, {21}, 33);
  for (const char* activation : {"Relu", "Tanh", "Sigmoid", "HardSigmoid"}) {
    SCOPED_TRACE(activation);
    expectMatchesReference(microsoft("FusedGemm", {Attribute::ofInt("transB", 1), Attribute::ofString("activation", activation)}),
                           {m, b, c}, "fast", kRtol, kAtol);
  }
  auto image = randomTensor(DataType::Float, {1, 5, 11, 13}, 34), filters = randomTensor(DataType::Float, {8, 5, 3, 3}, 35);
  auto filterBias = randomTensor(DataType::Float, {8}, 36);
  expectMatchesReference(microsoft("FusedConv", {Attribute::ofString("activation", "Relu"), Attribute::ofInts("pads", {1, 1, 1, 1})}),
                         {image, filters, filterBias}, "fast", kRtol, kAtol);
}

// Unpinned, the executor takes the fast variant and its profile names the instruction set.
TEST(ExecContribFast, ProfileNamesTheSetTheFastVariantRanOn) {
  auto model = singleNodeModel(microsoft("Gelu"), {randomTensor(DataType::Float, {4, 64}, 40)});
  ExecutorOptions options;
  options.profile = true;
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto outputs = (*executor)->run({{"x0", randomTensor(DataType::Float, {4, 64}, 40)}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  bool seen = false;
  for (const ProfileEvent& e : (*executor)->profiler().events()) {
    if (e.opType != "Gelu") continue;
    EXPECT_EQ(e.variant, "fast:" + std::string(cpuIsaName(cpuIsa())));
    EXPECT_EQ(e.implementation, cpuIsaName(cpuIsa()));
    seen = true;
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace onyx::exec::testing
