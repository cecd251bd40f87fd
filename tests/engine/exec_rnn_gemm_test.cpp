// The GEMM variant of LSTM, GRU and RNN (ops/rnn/rnn_gemm_cpu.cpp) against the reference kernel: both
// layouts and all directions, ragged sequence lengths (including 0), initial states, clip, peepholes,
// input_forget, linear_before_reset, batch 1 and 3, hidden units split between threads, batches past the
// packed product; other activations and float64 stay on the reference.
#include <gtest/gtest.h>

#include "exec_kernel_test_util.h"

namespace onyx::exec::testing {
namespace {

struct RnnCase {
  std::string op;
  int64_t gates;
  std::string direction = "forward";
  int64_t layout = 0;
  int64_t batch = 3;
  bool lens = false, initial = false, peepholes = false;
  std::vector<Attribute> extra;
};

// Inputs X, W, R, B, sequence_lens, initial_h, initial_c, P (absent ones empty).
std::vector<TensorValue> rnnInputs(const RnnCase& c, int64_t seq, int64_t input, int64_t hidden, DataType dt,
                                   uint64_t seed) {
  int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  Dims xDims = c.layout ? Dims{c.batch, seq, input} : Dims{seq, c.batch, input};
  Dims stateDims = c.layout ? Dims{c.batch, dirs, hidden} : Dims{dirs, c.batch, hidden};
  std::vector<TensorValue> in = {randomTensor(dt, xDims, seed, -1, 1),
                                 randomTensor(dt, {dirs, c.gates * hidden, input}, seed + 1, -0.5f, 0.5f),
                                 randomTensor(dt, {dirs, c.gates * hidden, hidden}, seed + 2, -0.5f, 0.5f),
                                 randomTensor(dt, {dirs, 2 * c.gates * hidden}, seed + 3, -0.5f, 0.5f)};
  TensorValue lens;
  if (c.lens) {
    lens = TensorValue::allocate(DataType::Int32, {c.batch});
    for (int64_t b = 0; b < c.batch; ++b) lens.data<int32_t>()[b] = int32_t(b == 1 ? 0 : seq - b);
  }
  in.push_back(lens);
  in.push_back(c.initial ? randomTensor(dt, stateDims, seed + 4, -1, 1) : TensorValue());
  if (c.op == "LSTM") {
    in.push_back(c.initial ? randomTensor(dt, stateDims, seed + 5, -1, 1) : TensorValue());
    in.push_back(c.peepholes ? randomTensor(dt, {dirs, 3 * hidden}, seed + 6, -0.5f, 0.5f) : TensorValue());
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  return in;
}

std::string variantRunning(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  auto model = singleNodeModel(c, inputs);
  auto executor = Executor::create(*model, {});
  EXPECT_TRUE(executor.ok());
  return executor.ok() ? (*executor)->assignments().at(0).variant : "";
}

TEST(ExecRnnGemm, MatchesTheReference) {
  std::vector<RnnCase> cases;
  for (auto [op, gates] : {std::pair<std::string, int64_t>{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}})
    for (std::string dir : {"forward", "reverse", "bidirectional"})
      for (int64_t layout : {0, 1}) {
        RnnCase c{op, gates, dir, layout};
        c.lens = layout == 0;
        c.initial = dir != "forward";
        c.peepholes = op == "LSTM" && dir == "bidirectional";
        cases.push_back(c);
      }
  cases.push_back({"LSTM", 4, "forward", 0, 1, false, true, true, {Attribute::ofFloat("clip", 0.7f)}});
  cases.push_back({"LSTM", 4, "reverse", 0, 3, true, true, false, {Attribute::ofInt("input_forget", 1)}});
  cases.push_back({"GRU", 3, "forward", 0, 2, false, true, false, {Attribute::ofInt("linear_before_reset", 1)}});
  cases.push_back(
      {"GRU", 3, "bidirectional", 1, 3, false, true, false,
       {Attribute::ofInt("linear_before_reset", 1), Attribute::ofFloat("clip", 0.5f)}});
  uint64_t seed = 10;
  for (const RnnCase& rc : cases) {
    const int64_t hidden = 5, seq = 4, input = 3;
    std::vector<Attribute> attrs = rc.extra;
    attrs.push_back(Attribute::ofInt("hidden_size", hidden));
    attrs.push_back(Attribute::ofString("direction", rc.direction));
    attrs.push_back(Attribute::ofInt("layout", rc.layout));
    NodeCase c(rc.op, attrs, 14, rc.op == "LSTM" ? 3 : 2);
    auto inputs = rnnInputs(rc, seq, input, hidden, DataType::Float, seed += 10);
    SCOPED_TRACE(rc.op + " " + rc.direction + " layout " + std::to_string(rc.layout) + " batch " +
                 std::to_string(rc.batch));
    EXPECT_EQ(variantRunning(c, inputs), "gemm");
    expectMatchesReference(c, inputs, "gemm", 1e-5, 1e-6);
  }
}

TEST(ExecRnnGemm, LongerSequencesStayClose) {
  // The exported model's size class: hidden 64, 40 steps, where rounding differences accumulate.
  RnnCase rc{"LSTM", 4, "bidirectional", 0, 2, true, true, false};
  std::vector<Attribute> attrs = {Attribute::ofInt("hidden_size", 64),
                                  Attribute::ofString("direction", rc.direction)};
  NodeCase c("LSTM", attrs, 14, 3);
  expectMatchesReference(c, rnnInputs(rc, 40, 32, 64, DataType::Float, 7), "gemm", 1e-4, 1e-5);
  RnnCase gru{"GRU", 3, "forward", 1, 2};
  NodeCase g("GRU", {Attribute::ofInt("hidden_size", 64), Attribute::ofInt("layout", 1)}, 14, 2);
  expectMatchesReference(g, rnnInputs(gru, 40, 32, 64, DataType::Float, 8), "gemm", 1e-4, 1e-5);
}

TEST(ExecRnnGemm, SplitUnitsAndLargeBatchesMatchTheReference) {
  // Hidden 72 splits a one-way cell's units between the two threads (36 each, 32 at least: parts that are
  // not a multiple of the 16-unit panels, a barrier per step);
  // batch 6 is past the packed GEMV and takes one GEMM per step. Ragged lengths stop rows mid-split.
  for (int64_t batch : {1, 6})
    for (auto [op, gates] : {std::pair<std::string, int64_t>{"LSTM", 4}, {"GRU", 3}, {"RNN", 1}})
      for (int64_t beforeReset : {0, 1}) {
        if (op != "GRU" && beforeReset) continue;
        RnnCase rc{op, gates, "reverse", 0, batch, batch > 1, true, op == "LSTM"};
        std::vector<Attribute> attrs = {Attribute::ofInt("hidden_size", 72),
                                        Attribute::ofString("direction", rc.direction)};
        if (op == "GRU") attrs.push_back(Attribute::ofInt("linear_before_reset", beforeReset));
        NodeCase c(op, attrs, 14, op == "LSTM" ? 3 : 2);
        SCOPED_TRACE(op + " batch " + std::to_string(batch) + " linear_before_reset " +
                     std::to_string(beforeReset));
        expectMatchesReference(c, rnnInputs(rc, 9, 7, 72, DataType::Float, uint64_t(20 + batch)), "gemm",
                               1e-4, 1e-5);
      }
}

TEST(ExecRnnGemm, OtherActivationsAndTypesUseTheReference) {
  RnnCase rc{"LSTM", 4};
  NodeCase custom("LSTM",
                  {Attribute::ofInt("hidden_size", 4),
                   Attribute::ofStrings("activations", {"HardSigmoid", "Tanh", "Tanh"})},
                  14, 3);
  auto inputs = rnnInputs(rc, 3, 2, 4, DataType::Float, 3);
  EXPECT_EQ(variantRunning(custom, inputs), "reference");
  NodeCase plain("LSTM", {Attribute::ofInt("hidden_size", 4)}, 14, 3);
  auto doubles = rnnInputs(rc, 3, 2, 4, DataType::Double, 4);
  expectMatchesReference(plain, doubles, "gemm", 0, 0);  // the gemm variant hands float64 to the reference
}

TEST(ExecRnnGemm, MismatchedWeightsNameTheInput) {
  RnnCase rc{"GRU", 3};
  auto inputs = rnnInputs(rc, 3, 2, 4, DataType::Float, 5);
  NodeCase c("GRU", {Attribute::ofInt("hidden_size", 5)}, 14, 2);
  auto result = runNode(c, inputs, "gemm");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().toString().find("input 1"), std::string::npos) << result.error().toString();
}

}  // namespace
}  // namespace onyx::exec::testing
