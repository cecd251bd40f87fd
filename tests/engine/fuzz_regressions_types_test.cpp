// Kernels that read one input as another input's element type (or a fixed one) without checking it: found by
// fuzz_run (BitShift) and then by reading every kernel for the same pattern. Each mixed-type input is now an
// error naming it; the same node with matching types still runs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "exec/executor.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"
#include "onnx_io_test_support.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

using testing::NodeCase;
using testing::runError;
using testing::runNode;

template <class T>
TensorValue tensor(DataType dtype, Dims dims, std::vector<T> values) {
  return TensorValue::fromVector<T>(dtype, std::move(dims), values);
}

TEST(FuzzRegressionsTypes, GemmReferenceNeedsBAndCOfAsType) {
  const NodeCase gemm("Gemm", {}, 13);
  const TensorValue a = tensor<double>(DataType::Double, {2, 2}, {1, 2, 3, 4});
  const TensorValue b32 = tensor<float>(DataType::Float, {2, 2}, {1, 0, 0, 1});
  std::string error = runError(gemm, {a, b32});
  EXPECT_NE(error.find("must have A's element type float64"), std::string::npos) << error;
  const TensorValue b = tensor<double>(DataType::Double, {2, 2}, {1, 0, 0, 1});
  error = runError(gemm, {a, b, tensor<float>(DataType::Float, {2}, {1, 1})});
  EXPECT_NE(error.find("C float32[2] must have A's element type float64"), std::string::npos) << error;
  auto y = runNode(gemm, {a, b, tensor<double>(DataType::Double, {2}, {10, 20})}, "");
  ASSERT_TRUE(y) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).data<double>()[3], 24.0);
}

TEST(FuzzRegressionsTypes, RangeNeedsOneElementType) {
  const NodeCase range("Range", {}, 11);
  const TensorValue start = tensor<int64_t>(DataType::Int64, {}, {0});
  const std::string error =
      runError(range, {start, tensor<int8_t>(DataType::Int8, {}, {5}), tensor<int64_t>(DataType::Int64, {}, {1})});
  EXPECT_NE(error.find("must have one element type"), std::string::npos) << error;
  auto y = runNode(range, {start, tensor<int64_t>(DataType::Int64, {}, {5}), tensor<int64_t>(DataType::Int64, {}, {2})}, "");
  ASSERT_TRUE(y) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).dims(), (Dims{3}));
}

TEST(FuzzRegressionsTypes, WhereNeedsABoolCondition) {
  const NodeCase where("Where", {}, 16);
  const TensorValue x = tensor<float>(DataType::Float, {2}, {1, 2}), y = tensor<float>(DataType::Float, {2}, {3, 4});
  const std::string error = runError(where, {tensor<float>(DataType::Float, {2}, {1, 0}), x, y});
  EXPECT_NE(error.find("must be bool"), std::string::npos) << error;
  auto out = runNode(where, {tensor<uint8_t>(DataType::Bool, {2}, {1, 0}), x, y}, "");
  ASSERT_TRUE(out) << out.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*out)[0]).data<float>()[1], 4.0f);
}

TEST(FuzzRegressionsTypes, OptimizerTensorsNeedOneElementType) {
  auto adagrad = [](const std::string& gradientType) {
    auto model = parseModelText(R"(<ir_version: 8, opset_import: ["" : 17, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, double[2] x, )" + gradientType + R"([2] dx, double[2] h) => (double[2] x2, double[2] h2) {
  x2, h2 = ai.onnx.preview.training.Adagrad (r, t, x, dx, h)
})");
    if (!model) return model.error().toString();
    auto executor = Executor::create(**model);
    if (!executor) return executor.error().toString();
    TensorValue gradient = gradientType == "float"
                               ? tensor<float>(DataType::Float, {2}, {1, 1})
                               : tensor<double>(DataType::Double, {2}, {1, 1});
    const TensorValue x = tensor<double>(DataType::Double, {2}, {1, 2});
    auto outputs = (*executor)->run({{"r", tensor<float>(DataType::Float, {}, {0.1f})},
                                     {"t", tensor<int64_t>(DataType::Int64, {}, {0})},
                                     {"x", x},
                                     {"dx", gradient},
                                     {"h", x}});
    return outputs ? std::string() : outputs.error().toString();
  };
  const std::string error = adagrad("float");
  EXPECT_NE(error.find("must have the element type of"), std::string::npos) << error;
  EXPECT_EQ(adagrad("double"), "");
}

// UBSan: a NaN float index reached intAt (through toInts), whose plain conversion to int64 is undefined. NaN
// reads as 0 and values past int64 saturate; callers range-check the result.
TEST(FuzzRegressionsTypes, FloatsReadAsIntegersSaturate) {
  const TensorValue t = tensor<float>(DataType::Float, {4}, {std::nanf(""), 1e30f, -1e30f, -2.75f});
  EXPECT_EQ(t.toInts(), (std::vector<int64_t>{0, std::numeric_limits<int64_t>::max(),
                                              std::numeric_limits<int64_t>::min(), -2}));
}

// UBSan: Cast of complex128 to string read each element as NaN and converted it to int64; uint64 past int64
// went the same way. Complex is refused, and integers print exactly.
TEST(FuzzRegressionsTypes, CastToStringPrintsIntegersExactlyAndRefusesComplex) {
  const NodeCase toString("Cast", {Attribute::ofInt("to", int64_t(DataType::String))}, 19);
  const std::string error = runError(toString, {TensorValue::allocate(DataType::Complex128, {2})});
  EXPECT_NE(error.find("cannot cast complex128[2] to string"), std::string::npos) << error;
  auto y = runNode(toString, {tensor<uint64_t>(DataType::Uint64, {2}, {std::numeric_limits<uint64_t>::max(), 7})}, "");
  ASSERT_TRUE(y) << y.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).data<std::string>()[0], "18446744073709551615");
  EXPECT_EQ(std::get<TensorValue>((*y)[0]).data<std::string>()[1], "7");
}

// The backend suite's single-tree TreeEnsemble; nullopt where the shared data is absent.
constexpr const char* kSingleTree = "onnx-backend-data/node/test_ai_onnx_ml_tree_ensemble_single_tree/model.onnx";
std::optional<onnx::ModelProto> singleTreeModel() {
  std::ifstream in(onyx::testing::testDataDir() / kSingleTree, std::ios::binary);
  onnx::ModelProto proto;
  if (!in || !proto.ParseFromIstream(&in)) return std::nullopt;
  return proto;
}

// UBSan: TreeEnsemble converted a NaN nodes_modes value (a float tensor where the spec has uint8) to uint8,
// and an unknown mode silently never went true. The backend suite's single tree, with its modes replaced.
TEST(FuzzRegressionsTypes, TreeEnsembleRefusesModesThatAreNoSplitMode) {
  auto loaded = singleTreeModel();
  if (!loaded) GTEST_SKIP() << kSingleTree << " not found or unreadable (set ONYX_TEST_DATA)";
  onnx::ModelProto& proto = *loaded;
  auto runWithModes = [&](float mode) -> std::string {
    onnx::ModelProto edited = proto;
    for (onnx::AttributeProto& attribute : *edited.mutable_graph()->mutable_node(0)->mutable_attribute()) {
      if (attribute.name() != "nodes_modes") continue;
      onnx::TensorProto* modes = attribute.mutable_t();
      const int count = int(modes->dims(0));
      modes->Clear();
      modes->add_dims(count);
      modes->set_data_type(onnx::TensorProto::FLOAT);
      for (int i = 0; i < count; ++i) modes->add_float_data(mode);
    }
    auto model = parseModel(edited.SerializeAsString(), {}, "tree");
    if (!model) return model.error().toString();
    auto executor = Executor::create(**model);
    if (!executor) return executor.error().toString();
    const onyx::Value& x = *(*model)->graph().inputs()[0];
    auto input = randomInput(x, {}, 1);
    if (!input) return input.error().toString();
    auto outputs = (*executor)->run({{x.name(), std::move(*input)}});
    return outputs ? std::string() : outputs.error().toString();
  };
  EXPECT_EQ(runWithModes(0.0f), "");  // BRANCH_LEQ everywhere
  for (float bad : {std::nanf(""), 7.0f, 1.5f}) {
    const std::string error = runWithModes(bad);
    EXPECT_NE(error.find("which is no split mode"), std::string::npos) << bad << ": " << error;
  }
}

// Fuzz audit: a forest of no nodes and n_targets 0 took the largest of an empty result for SOFTMAX
// (max_element of an empty vector, dereferenced). The backend suite's tree with every node removed.
TEST(FuzzRegressionsTypes, TreeEnsembleWithNoTargetsNormalisesNothing) {
  auto loaded = singleTreeModel();
  if (!loaded) GTEST_SKIP() << kSingleTree << " not found or unreadable (set ONYX_TEST_DATA)";
  onnx::ModelProto& proto = *loaded;
  onnx::NodeProto& node = *proto.mutable_graph()->mutable_node(0);
  for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
    const std::string& name = attribute.name();
    if (name == "n_targets" || name == "post_transform") {
      attribute.set_i(name == "n_targets" ? 0 : 1);  // SOFTMAX
    } else if (name.rfind("nodes_", 0) == 0 || name.rfind("leaf_", 0) == 0 || name == "tree_roots") {
      attribute.clear_ints();
      if (attribute.has_t()) {
        const auto type = attribute.t().data_type();
        attribute.mutable_t()->Clear();
        attribute.mutable_t()->set_data_type(type);
        attribute.mutable_t()->add_dims(0);
      }
    }
  }
  bool hasPost = false;
  for (const onnx::AttributeProto& attribute : node.attribute()) hasPost |= attribute.name() == "post_transform";
  if (!hasPost) {
    onnx::AttributeProto* post = node.add_attribute();
    post->set_name("post_transform");
    post->set_type(onnx::AttributeProto::INT);
    post->set_i(1);
  }
  for (onnx::ValueInfoProto& output : *proto.mutable_graph()->mutable_output())
    output.mutable_type()->mutable_tensor_type()->clear_shape();
  auto model = parseModel(proto.SerializeAsString(), {}, "tree");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  const onyx::Value& x = *(*model)->graph().inputs()[0];
  auto input = randomInput(x, {}, 1);
  ASSERT_TRUE(input.ok()) << input.error().toString();
  auto outputs = (*executor)->run({{x.name(), std::move(*input)}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*outputs)[0]).count(), 0);
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

TEST(FuzzRegressionsTypes, QuantizeLinearToInt64SaturatesAtItsMaximum) {
  // fuzz_run (UBSan): a huge quotient clamped to double(INT64_MAX), which is 2^63, then converted to int64.
  const TensorValue x = TensorValue::fromVector<float>(DataType::Float, {2}, {1e30f, -1e30f});
  const TensorValue scale = TensorValue::fromVector<float>(DataType::Float, {}, {1.0f});
  const TensorValue zero = TensorValue::fromVector<int64_t>(DataType::Int64, {}, {0});
  auto out = runNode(NodeCase("QuantizeLinear", {}, 13), {x, scale, zero}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  EXPECT_EQ(std::get<TensorValue>((*out)[0]).toInts(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::lowest()}));
}

}  // namespace
}  // namespace onyx::exec

namespace onyx::exec {
namespace {

TEST(FuzzRegressionsTypes, SwishTakesFloatsAndShrinkSaturatesIntegers) {
  // fuzz_run (UBSan): Swish of int8 converted a NaN to int8.
  const TensorValue small = TensorValue::fromVector<int8_t>(DataType::Int8, {2}, {-3, 100});
  EXPECT_NE(runError(NodeCase("Swish", {}, 24), {small}), "");
  // Shrink is defined on integers: a huge bias saturates instead of overflowing the conversion.
  auto out = runNode(NodeCase("Shrink", {Attribute::ofFloat("lambd", 0.5f), Attribute::ofFloat("bias", -1e30f)}, 9),
                     {small}, "");
  ASSERT_TRUE(out.ok()) << out.error().toString();
  const auto& y = std::get<TensorValue>((*out)[0]);
  EXPECT_EQ(y.data<int8_t>()[0], std::numeric_limits<int8_t>::lowest());
  EXPECT_EQ(y.data<int8_t>()[1], std::numeric_limits<int8_t>::max());
}

}  // namespace
}  // namespace onyx::exec
