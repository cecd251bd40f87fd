// The pattern and fusion passes on the shared models: what each removes (printed, so the figures can be
// reported), outputs unchanged against the unoptimized run (rtol 1e-4), the result accepted by libonnx's
// checker, and a second run changing nothing.
#include "passes_fusion_support.h"
#include "support/test_data.h"

namespace onyx::passes::fusion_testing {
namespace {

const std::vector<std::string> kPassOrder = {"transpose-cancellation", "squeeze-unsqueeze-cancellation",
                                             "reshape-chain-fusion",   "conv-bn-fusion",
                                             "conv-add-fusion",        "conv-mul-fusion",
                                             "matmul-add-to-gemm",     "gelu-fusion",
                                             "layer-norm-fusion",      "broadcast-reduction-elimination",
                                             "elementwise-fusion"};

class PassesOnSharedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(PassesOnSharedModel, KeepOutputsAndReportWhatTheyRemoved) {
  const std::string relative = "models/" + GetParam();
  ONYX_REQUIRE_SHARED(dir, relative);
  auto original = loadModel(dir / "model.onnx");
  auto model = loadModel(dir / "model.onnx");
  ASSERT_TRUE(original.ok() && model.ok());
  size_t nodesBefore = (*model)->graph().nodeCount();
  std::string report;
  bool changed = false;
  for (const std::string& name : kPassOrder) {
    size_t before = (*model)->graph().nodeCount();
    PassResult result = runPass(**model, name);
    ASSERT_EQ(result.error, "") << name;
    changed = changed || result.changed;
    std::string counters;
    for (const PassCounter& c : result.counters) counters += " " + c.name + "=" + std::to_string(c.count);
    std::map<std::string, int> reasons;
    for (const PassSkip& s : result.skips) ++reasons[s.reason];
    std::string skipped;
    for (const auto& [reason, count] : reasons)
      skipped += "\n      skipped x" + std::to_string(count) + ": " + reason;
    if (!counters.empty() || !skipped.empty())
      report += "  " + name + ": nodes " + std::to_string(before) + " -> " +
                std::to_string((*model)->graph().nodeCount()) + counters + skipped + "\n";
  }
  std::cout << GetParam() << ": " << nodesBefore << " -> " << (*model)->graph().nodeCount() << " nodes\n"
            << report;
  for (const std::string& name : kPassOrder) EXPECT_FALSE(runPass(**model, name).changed) << name << " again";
  if ((*model)->opsetVersion("") <= 17) {
    EXPECT_EQ(checkerError(**model), "");
  }
  if (!changed) return;
  auto data = exec::loadTestDataSet(**original, dir / "test_data_set_0");
  ASSERT_TRUE(data.ok()) << data.error().toString();
  // atol 1e-4 as the model tests use: the unoptimized run takes the fast approximate Tanh/Exp kernels where
  // the fused kernel calls std::tanh/std::exp, which moves values near 0 by about 1e-5 (gpt2_small's GELU).
  expectSameOutputs(**original, **model, data->inputs, 1e-4, 1e-4);
  auto outputs = run(**model, data->inputs);
  ASSERT_EQ(outputs.size(), data->outputs.size());
  if (GetParam().rfind("ssdlite", 0) == 0) {
    EXPECT_TRUE(exec::compareDetectionsAsSets(outputs, data->outputs, {1e-3, 1e-4}).ok);
    return;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    auto c = exec::compareValues(outputs[k], data->outputs[k], {1e-3, 1e-4});
    EXPECT_TRUE(c.ok) << "against the exported outputs, output " << k << ": " << c.reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, PassesOnSharedModel,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
                                           "shufflenet_v2_x1_0", "bert_small", "gpt2_small", "rnn_lstm_gru",
                                           "ssdlite320_mobilenet_v3_large"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace onyx::passes::fusion_testing
