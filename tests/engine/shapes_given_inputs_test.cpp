// GivenInputs: a test_data_set folder's input_K.pb files as shape-inference input values (the loader
// `onyx shapes --inputs`, the GUI's bind panel and the backend acceptance test share).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "shapes/given_inputs.h"
#include "shapes_test_support.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::parseOrFail;
using testing::shapeNamed;

const char* kReshapeByInput = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 6] x, int64[2] target) => (float[?, ?] y) {
  y = Reshape(x, target)
}
)";

Tensor int64Tensor(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return Tensor::fromValues(DataType::Int64, std::move(dims), values);
}

Tensor floatZeros(std::vector<int64_t> dims) {
  return Tensor::fromValues(DataType::Float, dims, std::vector<float>(static_cast<size_t>(dims[0] * dims[1]), 0.0f));
}

class GivenInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("onyx_given_inputs_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST_F(GivenInputsTest, ShapeCarryingInputsResolveFromTheirValues) {
  auto model = parseOrFail(kReshapeByInput);
  ASSERT_TRUE(model);
  ASSERT_TRUE(saveTensorFile(floatZeros({4, 6}), folder_ / "input_0.pb"));
  ASSERT_TRUE(saveTensorFile(int64Tensor({2}, {3, 8}), folder_ / "input_1.pb"));
  EXPECT_EQ(shapeNamed(inferShapes(*model), "y"), "[?, ?]");
  auto given = GivenInputs::load(*model, folder_);
  ASSERT_TRUE(given) << given.error().toString();
  EXPECT_EQ(given->size(), 2u);
  ShapeInferenceOptions options;
  given->applyTo(options);
  ShapeInference result = inferShapes(*model, options);
  EXPECT_EQ(shapeNamed(result, "x"), "[4, 6]");
  EXPECT_EQ(shapeNamed(result, "y"), "[3, 8]");
}

TEST_F(GivenInputsTest, ABrokenFileNamesTheFileAndTheInput) {
  auto model = parseOrFail(kReshapeByInput);
  ASSERT_TRUE(model);
  ASSERT_TRUE(saveTensorFile(floatZeros({4, 6}), folder_ / "input_0.pb"));
  std::ofstream(folder_ / "input_1.pb") << "not a tensor proto";
  auto given = GivenInputs::load(*model, folder_);
  ASSERT_FALSE(given);
  EXPECT_NE(given.error().message.find("graph input 1 'target' from input_1.pb"), std::string::npos) << given.error().message;
  EXPECT_EQ(given.error().where, (folder_ / "input_1.pb").string());
}

TEST_F(GivenInputsTest, MoreFilesThanInputsAndNoFilesAreErrors) {
  auto model = parseOrFail(kReshapeByInput);
  ASSERT_TRUE(model);
  auto empty = GivenInputs::load(*model, folder_);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no input_0.pb"), std::string::npos);
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(saveTensorFile(int64Tensor({2}, {3, 8}), folder_ / ("input_" + std::to_string(k) + ".pb")));
  auto extra = GivenInputs::load(*model, folder_);
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message.find("input_2.pb has no graph input"), std::string::npos) << extra.error().message;
  EXPECT_FALSE(GivenInputs::load(*model, folder_ / "missing"));
}

}  // namespace
}  // namespace onyx
