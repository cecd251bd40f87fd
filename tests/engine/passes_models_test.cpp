// The default pipeline on every shared model: at most as many nodes as ONNX Runtime's basic level leaves,
// outputs unchanged on test_data_set_0 (rtol 1e-4 against the unoptimized run), a model the onnx checker
// accepts, and a second run that changes nothing.
#include <gtest/gtest.h>

#include "exec/compare.h"
#include "exec/executor.h"
#include "onnx/onnx_checker.h"
#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"
#include "support/test_data.h"

namespace onyx::passes::testing {
namespace {

struct SharedModel {
  const char* name;
  size_t ortBasicNodes;  // ONNX Runtime 1.x, GraphOptimizationLevel::ORT_ENABLE_BASIC, optimizedModelFilePath
  // What the core passes (without the fusion passes) reached when this test was written: a regression floor.
  size_t coreNodes;
  bool detections = false;  // compare as a set of detections (near-tied scores may reorder)
};

const SharedModel kModels[] = {
    {"resnet18", 49, 49},
    {"mobilenet_v2", 100, 100},
    {"squeezenet1_1", 65, 65},
    {"efficientnet_b0", 239, 239},
    {"shufflenet_v2_x1_0", 443, 209},
    {"bert_small", 154, 154},
    {"gpt2_small", 189, 137},
    {"rnn_lstm_gru", 25, 19},
    {"ssdlite320_mobilenet_v3_large", 2155, 1771, true},
};

// Without the executor's epilogue fusion: a pass that rewrites a GELU or a bias changes which oneDNN
// post-ops apply (gelu_erf's polynomial against our Erf), a numeric difference of the executor, not of the
// pass, and one the epilogue tests bound on their own.
Expected<std::vector<exec::RunValue>> runOn(const Model& model, const exec::NamedValues& inputs) {
  exec::ExecutorOptions options;
  options.fuseEpilogues = false;
  auto executor = exec::Executor::create(model, options);
  if (!executor) return executor.error();
  auto outputs = (*executor)->run(inputs);
  if (!outputs) return outputs.error();
  for (auto& value : *outputs)
    if (auto* tensor = std::get_if<exec::TensorValue>(&value)) value = tensor->clone();
  return std::move(*outputs);
}

class DefaultPipelineOnSharedModel : public ::testing::TestWithParam<SharedModel> {};

TEST_P(DefaultPipelineOnSharedModel, FewerNodesSameOutputsValidAndStable) {
  const SharedModel& shared = GetParam();
  const std::string relative = std::string("models/") + shared.name;
  ONYX_REQUIRE_SHARED(folder, relative);
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto data = exec::loadTestDataSet(**model, folder / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  auto before = runOn(**model, data->inputs);
  ASSERT_TRUE(before.ok()) << before.error().toString();

  PassManager manager(**model);
  PipelineOptions checked;
  checked.checkStructure = true;  // each step must leave the model as valid as it found it
  PipelineResult result = manager.run(defaultPipeline(), checked);
  ASSERT_FALSE(result.error) << result.error->toString();
  EXPECT_LE(result.nodesAfter, shared.ortBasicNodes)
      << shared.name << ": " << result.nodesBefore << " -> " << result.nodesAfter;
  EXPECT_LE(result.nodesAfter, shared.coreNodes)
      << shared.name << ": " << result.nodesBefore << " -> " << result.nodesAfter;
  RecordProperty("nodes_after", int(result.nodesAfter));

  auto after = runOn(**model, data->inputs);
  ASSERT_TRUE(after.ok()) << after.error().toString();
  exec::Tolerance tolerance{1e-4, 1e-5};
  if (shared.detections) {
    exec::Comparison c = exec::compareDetectionsAsSets(*after, *before, tolerance);
    EXPECT_TRUE(c.ok) << c.reason;
  } else {
    ASSERT_EQ(after->size(), before->size());
    for (size_t k = 0; k < before->size(); ++k) {
      exec::Comparison c = exec::compareValues((*after)[k], (*before)[k], tolerance);
      EXPECT_TRUE(c.ok) << "output " << k << ": " << c.reason;
    }
  }

  auto accepted = checkWithOnnx(**model);
  EXPECT_TRUE(accepted.ok()) << accepted.error().toString();

  std::string optimized = printModelText(**model);
  PipelineResult again = manager.run(defaultPipeline(), checked);
  ASSERT_FALSE(again.error) << again.error->toString();
  for (const PassStep& step : again.steps)
    EXPECT_FALSE(step.changed) << step.pass << " changed the model again";
  EXPECT_EQ(printModelText(**model), optimized);
}

INSTANTIATE_TEST_SUITE_P(Passes, DefaultPipelineOnSharedModel, ::testing::ValuesIn(kModels),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace onyx::passes::testing
