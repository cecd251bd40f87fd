// Kernel inputs shorter than what the kernel reads (fuzz audit): an empty K, k, axis, depth, position or
// condition, split sizes past the axis, a scale or weight of too few values. The kernels read element 0 (or
// element i) past their end, silently since tensor buffers are rounded up to 64 bytes. Each is now an error
// naming the input; a proper input still runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "fuzz_regressions_util.h"
#include "onnx/onnx_io.h"

namespace onyx::exec {
namespace {

using fuzz_regressions::says;
using testing::NodeCase;
using testing::runError;
using testing::runNode;

TensorValue ints(Dims dims, std::vector<int64_t> values) {
  return TensorValue::fromVector<int64_t>(DataType::Int64, std::move(dims), values);
}

TensorValue floats(Dims dims, std::vector<float> values) {
  return TensorValue::fromVector<float>(DataType::Float, std::move(dims), values);
}

TensorValue ones(Dims dims) {
  return floats(dims, std::vector<float>(size_t(elementCount(dims)), 1.0f));
}

std::vector<float> values(const RunValue& value) {
  const auto& t = std::get<TensorValue>(value);
  return std::vector<float>(t.span<float>().begin(), t.span<float>().end());
}

// A model in the text format, run once on `inputs`.
Expected<std::vector<RunValue>> runText(const std::string& graph, const NamedValues& inputs) {
  auto model = parseModelText("<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph);
  if (!model) return model.error();
  auto executor = Executor::create(**model);
  if (!executor) return executor.error();
  return (*executor)->run(inputs);
}

TEST(FuzzRegressionsLengths, IfConditionMustHaveOneElement) {
  const std::string graph = R"(g (bool[N] c, float[2] x) => (float[2] y) {
  y = If(c) <then_branch = t () => (float[2] a) { a = Relu(x) },
             else_branch = e () => (float[2] b) { b = Neg(x) }>
})";
  const TensorValue x = floats({2}, {-1.0f, 2.0f});
  auto empty = runText(graph, {{"c", TensorValue::allocate(DataType::Bool, {0})}, {"x", x}});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(says(empty.error().toString(), "condition must have one element"));
  auto ran = runText(graph, {{"c", TensorValue::fromVector<uint8_t>(DataType::Bool, {1}, {1})}, {"x", x}});
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{0.0f, 2.0f}));
}

TEST(FuzzRegressionsLengths, TopKNeedsOneIntegerK) {
  const NodeCase topk("TopK", {}, 11, 2);
  const TensorValue x = floats({4}, {1.0f, 3.0f, 2.0f, 4.0f});
  EXPECT_TRUE(says(runError(topk, {x, ints({0}, {})}), "K must be a 1-D tensor of one int64"));
  EXPECT_TRUE(says(runError(topk, {x, floats({1}, {2.0f})}), "K must be a 1-D tensor of one int64"));
  auto ran = runNode(topk, {x, ints({1}, {2})}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{4.0f, 3.0f}));
}

TEST(FuzzRegressionsLengths, TriluNeedsAScalarK) {
  const NodeCase trilu("Trilu", {}, 14);
  const TensorValue x = floats({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_TRUE(says(runError(trilu, {x, ints({0}, {})}), "k must be a scalar int64"));
  auto ran = runNode(trilu, {x, ints({}, {1})}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{0.0f, 2.0f, 0.0f, 0.0f}));
  // A k past the matrix keeps nothing (upper) or everything (lower), without overflowing i + k.
  const int64_t far = std::numeric_limits<int64_t>::max();
  ran = runNode(trilu, {x, ints({}, {far})}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f}));
  ran = runNode(NodeCase("Trilu", {Attribute::ofInt("upper", 0)}, 14), {x, ints({}, {far})}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}));
}

TEST(FuzzRegressionsLengths, CumSumNeedsAScalarIntegerAxis) {
  const NodeCase cumsum("CumSum", {}, 14);
  const TensorValue x = floats({3}, {1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(says(runError(cumsum, {x, ints({0}, {})}), "axis must be a scalar int32 or int64"));
  EXPECT_TRUE(says(runError(cumsum, {x, floats({}, {0.0f})}), "axis must be a scalar int32 or int64"));
  auto ran = runNode(cumsum, {x, TensorValue::scalar<int32_t>(DataType::Int32, 0)}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{1.0f, 3.0f, 6.0f}));
}

TEST(FuzzRegressionsLengths, OneHotNeedsOneDepth) {
  const NodeCase oneHot("OneHot", {}, 11);
  const TensorValue indices = ints({2}, {0, 2});
  const TensorValue onOff = floats({2}, {0.0f, 1.0f});
  EXPECT_TRUE(says(runError(oneHot, {indices, ints({0}, {}), onOff}), "depth must hold one element"));
  auto ran = runNode(oneHot, {indices, ints({1}, {3}), onOff}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f}));
}

TEST(FuzzRegressionsLengths, SequencePositionMustBeAScalar) {
  const std::string at = R"(g (float[2] a, float[2] b, int64[M] p) => (float[2] y) {
  s = SequenceConstruct(a, b)
  y = SequenceAt(s, p)
})";
  const TensorValue a = floats({2}, {1.0f, 2.0f}), b = floats({2}, {3.0f, 4.0f});
  auto empty = runText(at, {{"a", a}, {"b", b}, {"p", ints({0}, {})}});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(says(empty.error().toString(), "position must be a scalar int32 or int64"));
  auto ran = runText(at, {{"a", a}, {"b", b}, {"p", ints({1}, {1})}});
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{3.0f, 4.0f}));

  const std::string insert = R"(g (float[2] a, float[2] b, int64[M] p) => (float y) {
  s = SequenceConstruct(a)
  t = SequenceInsert(s, b, p)
  y = ConcatFromSequence <axis = 0> (t)
})";
  empty = runText(insert, {{"a", a}, {"b", b}, {"p", ints({0}, {})}});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(says(empty.error().toString(), "position must be a scalar int32 or int64"));
  ran = runText(insert, {{"a", a}, {"b", b}, {"p", ints({1}, {0})}});
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{3.0f, 4.0f, 1.0f, 2.0f}));
}

// SplitToSequence copied each part before it checked that the sizes add up: {1, 5} of 2 rows read 4 rows
// past the input's end.
TEST(FuzzRegressionsLengths, SplitToSequenceChecksSizesBeforeCopying) {
  const std::string graph = R"(g (float[2, 3] x, int64[K] s) => (float y) {
  q = SplitToSequence <axis = 0> (x, s)
  y = ConcatFromSequence <axis = 0> (q)
})";
  const TensorValue x = floats({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<std::vector<int64_t>> wrong = {{1, 5}, {3, -1}, {2, 1}, {1}};
  for (const std::vector<int64_t>& sizes : wrong) {
    auto bad = runText(graph, {{"x", x}, {"s", ints({int64_t(sizes.size())}, sizes)}});
    ASSERT_FALSE(bad.ok()) << sizes.size();
    EXPECT_TRUE(says(bad.error().toString(), "split sizes do not add up to the axis length 2"));
  }
  auto ran = runText(graph, {{"x", x}, {"s", ints({2}, {1, 1})}});
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(FuzzRegressionsLengths, GroupNormalizationScaleAndBiasLengths) {
  const NodeCase groupNorm("GroupNormalization", {Attribute::ofInt("num_groups", 2)}, 18);
  const TensorValue x = floats({1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TRUE(says(runError(groupNorm, {x, ones({1}), ones({1})}), "must hold one value per channel (4)"));
  EXPECT_TRUE(says(runError(groupNorm, {x, ones({4}), ones({2})}), "must hold as many values as scale"));
  EXPECT_TRUE(says(runError(groupNorm, {ones({4}), ones({4}), ones({4})}), "needs rank >= 2"));
  for (int64_t count : {2, 4}) {  // per group (opset 18) and per channel (opset 21)
    const TensorValue zeros = floats({count}, std::vector<float>(size_t(count), 0.0f));
    auto ran = runNode(groupNorm, {x, ones({count}), zeros}, "");
    ASSERT_TRUE(ran.ok()) << ran.error().toString();
    const std::vector<float> y = values((*ran)[0]);
    ASSERT_EQ(y.size(), 8u);
    EXPECT_NEAR(y[0], -1.3416f, 1e-3f);
    EXPECT_NEAR(y[7], 1.3416f, 1e-3f);
  }
}

// A weight of fewer values than classes was read at the target's class, past its end.
TEST(FuzzRegressionsLengths, NllLossWeightHasOneValuePerClass) {
  const NodeCase nll("NegativeLogLikelihoodLoss", {}, 13);
  const TensorValue logp = floats({2, 3}, {-1, -2, -3, -4, -5, -6});
  const TensorValue target = ints({2}, {0, 2});
  EXPECT_TRUE(says(runError(nll, {logp, target, ones({1})}), "must hold one value per class (3)"));
  EXPECT_TRUE(says(runError(nll, {logp, target, ones({0})}), "must hold one value per class (3)"));
  auto ran = runNode(nll, {logp, target, ones({3})}, "");
  ASSERT_TRUE(ran.ok()) << ran.error().toString();
  EXPECT_EQ(values((*ran)[0]), (std::vector<float>{3.5f}));
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

TEST(FuzzRegressionsLengths, GatherNdBatchDimsMustMatchTheData) {
  // fuzz_run: 46 index tuples over a data batch of 10 (batch_dims 1) read past the data.
  const NodeCase gather("GatherND", {Attribute::ofInt("batch_dims", 1)}, 13);
  const TensorValue data = floats({10, 2, 2}, std::vector<float>(40, 1.0f));
  EXPECT_TRUE(says(runError(gather, {data, ints({46, 1}, std::vector<int64_t>(46, 1))}),
                   "batch dim 0 of indices int64[46, 1] differs from the data's float32[10, 2, 2]"));
  EXPECT_TRUE(says(runError(NodeCase("GatherND", {Attribute::ofInt("batch_dims", 2)}, 13),
                            {data, ints({10, 1}, std::vector<int64_t>(10, 0))}),
                   "batch_dims 2 must be at least 0 and less than the rank of indices"));
  // Matching batches: tuple i picks row indices[i] of batch i.
  const TensorValue small = floats({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out = runNode(gather, {small, ints({2, 1}, {1, 0})}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  EXPECT_EQ(values((*out)[0]), (std::vector<float>{2, 3, 4, 5}));
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

TEST(FuzzRegressionsLengths, ArgMaxOverAnEmptyAxisIsAnError) {
  // fuzz_run: ArgMax of float16[0, 2] along axis 0 (output [2]) read element 0 of the empty input.
  const TensorValue empty = TensorValue::allocate(DataType::Float, {0, 2});
  for (const char* op : {"ArgMax", "ArgMin"})
    EXPECT_TRUE(says(runError(NodeCase(op, {Attribute::ofInt("axis", 0), Attribute::ofInt("keepdims", 0)}, 13),
                              {empty}),
                     "axis 0 of float32[0, 2] is empty: there is no index to return"))
        << op;
  // Along the other axis the output is empty too, and that is fine.
  auto out = runNode(NodeCase("ArgMax", {Attribute::ofInt("axis", 1)}, 13), {empty}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*out)[0]).dims(), (Dims{0, 1}));
  auto picked = runNode(NodeCase("ArgMax", {Attribute::ofInt("axis", 1)}, 13), {floats({2, 3}, {1, 5, 2, 7, 0, 7})}, "");
  ASSERT_TRUE(picked.ok()) << picked.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*picked)[0]).toInts(), (std::vector<int64_t>{1, 0}));
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

// Found by reading every kernel for ArgMax's pattern (fuzz audit, 2026-11-26).
TEST(FuzzRegressionsLengths, KernelsDoNotReadPastEmptyOrShortInputs) {
  // GatherND: index 0 of an empty dim stops before the copy.
  EXPECT_TRUE(says(runError(NodeCase("GatherND", {}, 13), {TensorValue::allocate(DataType::Float, {0, 3}), ints({1, 1}, {0})}),
                   "an index is out of range"));
  // Einsum: an ellipsis of 0 against 1 broadcasts to 0, so nothing is read from the empty operand.
  auto einsum = runNode(NodeCase("Einsum", {Attribute::ofString("equation", "...,...->...")}, 12),
                        {TensorValue::allocate(DataType::Float, {0}), floats({1}, {2.0f})}, "");
  ASSERT_TRUE(einsum.ok()) << einsum.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*einsum)[0]).dims(), (Dims{0}));
  // Split: a negative size is refused before any copy.
  EXPECT_TRUE(says(runError(NodeCase("Split", {Attribute::ofInt("axis", 0)}, 13, 2), {floats({2}, {1, 2}), ints({2}, {3, -1})}),
                   "Split has a negative split size (-1)"));
  // TensorScatter: a circular write into an empty cache.
  EXPECT_TRUE(says(runError(NodeCase("TensorScatter", {Attribute::ofString("mode", "circular")}, 24),
                            {TensorValue::allocate(DataType::Float, {1, 0, 2}), floats({1, 1, 2}, {1, 2})}),
                   "circular mode needs a cache of at least one entry"));
  // Slice with a negative step over an empty axis is empty.
  auto slice = runNode(NodeCase("Slice", {}, 13),
                       {TensorValue::allocate(DataType::Float, {0}), ints({1}, {-1}), ints({1}, {-10}), ints({1}, {0}),
                        ints({1}, {-1})},
                       "");
  ASSERT_TRUE(slice.ok()) << slice.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*slice)[0]).dims(), (Dims{0}));
  // GridSample with border padding over an empty spatial axis samples zeros.
  auto grid = runNode(NodeCase("GridSample", {Attribute::ofString("padding_mode", "border")}, 20),
                      {TensorValue::allocate(DataType::Float, {1, 1, 0, 4}), floats({1, 1, 1, 2}, {0.0f, 0.0f})}, "");
  ASSERT_TRUE(grid.ok()) << grid.error().toString();
  EXPECT_EQ(values((*grid)[0]), (std::vector<float>{0.0f}));
}

TEST(FuzzRegressionsLengths, GatherBlockQuantizedZeroPointsMatchTheScales) {
  NodeCase gather("GatherBlockQuantized", {Attribute::ofInt("bits", 4), Attribute::ofInt("block_size", 16)}, 17);
  gather.domain = "com.microsoft";
  const TensorValue data = TensorValue::fromVector<uint8_t>(DataType::Uint8, {2, 8}, std::vector<uint8_t>(16, 0x21));
  const TensorValue scales = floats({2, 1}, {0.5f, 2.0f});
  EXPECT_TRUE(says(runError(gather, {data, ints({1}, {0}), scales, TensorValue::allocate(DataType::Uint8, {0})}),
                   "zero_points uint8[0] must have dims uint8[2, 1]"));
  // One packed byte per row of 1 scale: zero point 3 (low 4 bits), values 1 and 2 alternate.
  auto out = runNode(gather, {data, ints({1}, {1}), scales,
                              TensorValue::fromVector<uint8_t>(DataType::Uint8, {2, 1}, {0x03, 0x03})},
                     "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const std::vector<float> row = values((*out)[0]);
  ASSERT_EQ(row.size(), 16u);
  EXPECT_FLOAT_EQ(row[0], (1.0f - 3.0f) * 2.0f);
  EXPECT_FLOAT_EQ(row[1], (2.0f - 3.0f) * 2.0f);
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

TEST(FuzzRegressionsLengths, RecurrencesOverABatchOfZeroAreEmpty) {
  // fuzz_run (UBSan): an LSTM over X of batch 0 took the largest of no sequence lengths.
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    const int64_t gates = std::string(op) == "LSTM" ? 4 : std::string(op) == "GRU" ? 3 : 1;
    auto out = runNode(NodeCase(op, {Attribute::ofInt("hidden_size", 7)}, 14, 2),
                       {TensorValue::allocate(DataType::Float, {3, 0, 2}), ones({1, gates * 7, 2}),
                        ones({1, gates * 7, 7})},
                       "");
    ASSERT_TRUE(out.ok()) << op << ": " << out.error().toString();
    EXPECT_EQ(std::get<TensorValue>((*out)[0]).dims(), (Dims{3, 1, 0, 7})) << op;
    EXPECT_EQ(std::get<TensorValue>((*out)[1]).dims(), (Dims{1, 0, 7})) << op;
  }
}

}  // namespace
}  // namespace onyx::exec
