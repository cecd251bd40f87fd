// Every shared model matches its test_data_set_0 and _1 outputs (rtol 1e-3, atol 1e-4). ssdlite320's
// detections are compared as a set (near-tied scores reorder rows; see ../shared/models/README.md).
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "exec/executor.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::exec {
namespace {

class SharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModel, MatchesBothTestDataSets) {
  const std::string relative = "models/" + GetParam();
  ONYX_REQUIRE_SHARED(dir, relative);
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto executor = Executor::create(**model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  Tolerance tolerance{1e-3, 1e-4};
  bool detections = GetParam().rfind("ssdlite", 0) == 0;
  for (const char* set : {"test_data_set_0", "test_data_set_1"}) {
    SCOPED_TRACE(set);
    auto data = loadTestDataSet(**model, dir / set);
    ASSERT_TRUE(data.ok()) << data.error().toString();
    auto outputs = (*executor)->run(data->inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
    ASSERT_EQ(outputs->size(), data->outputs.size());
    if (detections) {
      Comparison c = compareDetectionsAsSets(*outputs, data->outputs, tolerance);
      EXPECT_TRUE(c.ok) << c.reason;
      continue;
    }
    for (size_t k = 0; k < outputs->size(); ++k) {
      Comparison c = compareValues((*outputs)[k], data->outputs[k], tolerance);
      EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Exec, SharedModel,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
                                           "shufflenet_v2_x1_0", "bert_small", "gpt2_small", "rnn_lstm_gru",
                                           "ssdlite320_mobilenet_v3_large"));

}  // namespace
}  // namespace onyx::exec
