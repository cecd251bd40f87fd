// Concats along channels folded into the Conv or 2-D pooling that alone reads them: the Conv runs once per
// part on its slice of the weights, the pooling writes each part's channel range. Each graph runs with the
// folding on and off on the same seeded inputs; the profile shows the Concat as fused.
#include <gtest/gtest.h>

#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

int fusedCount(const Outcome& outcome) {
  return int(std::count_if(outcome.variants.begin(), outcome.variants.end(),
                           [](const std::string& v) { return v.rfind("fused into", 0) == 0; }));
}

TEST(ExecConcatenatedInput, ConvRunsOncePerPartOnItsWeightSlice) {
  // Parts of 5, 7 and 3 channels: two channels-last Conv outputs and the plain graph input; the joined
  // Conv's bias belongs to the first part only, its Sigmoid to the last.
  expectFusion(std::string(kHeader) + R"(g (float[1,3,9,9] x, float[5,3,3,3] wa, float[5] ba, float[7,3,1,1] wb,
                                             float[4,15,3,3] w, float[4] b) => (float[1,4,5,5] y) {
      a = Conv <pads = [1, 1, 1, 1]> (x, wa, ba)
      ar = Relu (a)
      c = Conv (x, wb)
      j = Concat <axis = 1> (ar, c, x)
      s = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (j, w, b)
      y = Sigmoid (s)
    })",
               "dnnl+Sigmoid", 3);
  // SqueezeNet's fire module: a squeeze, two expands joined, the next squeeze over the join.
  expectFusion(std::string(kHeader) + R"(g (float[1,8,13,13] x, float[4,8,1,1] ws, float[6,4,1,1] w1,
                                             float[6,4,3,3] w3, float[5,12,1,1] wn, float[5] bn)
                                             => (float[1,5,13,13] y) {
      s = Conv (x, ws)
      sr = Relu (s)
      e1 = Conv (sr, w1)
      e3 = Conv <pads = [1, 1, 1, 1]> (sr, w3)
      j = Concat <axis = 1> (e1, e3)
      n = Conv (j, wn, bn)
      y = LeakyRelu (n)
    })",
               "dnnl+LeakyRelu", 3);
}

TEST(ExecConcatenatedInput, PoolingWritesEachPartsChannelRange) {
  // MaxPool over two channels-last parts (17 and 19 channels: past one 16-lane block) into a Conv.
  expectFusion(std::string(kHeader) + R"(g (float[1,3,11,11] x, float[17,3,3,3] wa, float[19,3,1,1] wb,
                                             float[4,36,1,1] w) => (float[1,4,5,5] y) {
      a = Conv <pads = [1, 1, 1, 1]> (x, wa)
      c = Conv (x, wb)
      j = Concat <axis = 1> (a, c)
      p = MaxPool <kernel_shape = [3, 3], strides = [2, 2]> (j)
      y = Conv (p, w)
    })",
               "fast", 1);
  // AveragePool counting the padding, written plain (it is the graph output).
  expectFusion(std::string(kHeader) + R"(g (float[2,3,7,7] x, float[5,3,1,1] wa, float[6,3,3,3] wb)
                                             => (float[2,11,4,4] y) {
      a = Conv (x, wa)
      c = Conv <pads = [1, 1, 1, 1]> (x, wb)
      j = Concat <axis = 1> (a, c)
      y = AveragePool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1], count_include_pad = 1> (j)
    })",
               "fast", 1);
  // A plain part (the graph input): the pooling reads the joined tensor, with the same result.
  expectFusion(std::string(kHeader) + R"(g (float[1,3,8,8] x, float[5,3,1,1] wa) => (float[1,8,4,4] y) {
      a = Conv (x, wa)
      j = Concat <axis = 1> (a, x)
      y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (j)
    })",
               "fast", 1);
}

TEST(ExecConcatenatedInput, JoinedWhereThePartsCannotBeReadApart) {
  // A residual in the fused epilogue: the parts' sum post-op would add it before the Relu.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,6,6] p, float[1,3,6,6] q, float[4,5,3,3] w, float[1,4,6,6] r)
                                             => (float[1,4,6,6] y) {
      j = Concat <axis = 1> (p, q)
      c = Conv <pads = [1, 1, 1, 1]> (j, w)
      a = Relu (c)
      y = Add (a, r)
    })",
               "dnnl+Relu+Add", 3);
  // Integers: the reference kernel reads the joined tensor.
  auto model = parseModelText(std::string(kHeader) + R"(g (int32[1,1,2,2] p, int32[1,1,2,2] q) => (int32[1,2,1,1] y) {
      j = Concat <axis = 1> (p, q)
      y = MaxPool <kernel_shape = [2, 2]> (j)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  NamedValues ints = {{"p", TensorValue::fromVector<int32_t>(DataType::Int32, {1, 1, 2, 2}, {4, -1, 9, 2})},
                      {"q", TensorValue::fromVector<int32_t>(DataType::Int32, {1, 1, 2, 2}, {-5, -7, -3, -8})}};
  Outcome fused = runGraph(**model, ints, true);
  ASSERT_EQ(fused.outputs.size(), 1u);
  const auto& y = std::get<TensorValue>(fused.outputs[0]);
  EXPECT_EQ(std::vector<int32_t>(y.span<int32_t>().begin(), y.span<int32_t>().end()), (std::vector<int32_t>{9, -3}));
  EXPECT_EQ(fusedCount(fused), 1);
}

TEST(ExecConcatenatedInput, StaysAConcatWhereOthersReadItOrTheReaderCannotSplit) {
  // Grouped Conv: its groups do not follow the parts.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,5,5] p, float[1,2,5,5] q, float[4,2,3,3] w)
                                             => (float[1,4,3,3] y) {
      j = Concat <axis = 1> (p, q)
      y = Conv <group = 2> (j, w)
    })",
               "dnnl", 0);
  // The joined value is a graph output as well.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,5,5] p, float[1,3,5,5] q, float[4,5,1,1] w)
                                             => (float[1,4,5,5] y, float[1,5,5,5] j) {
      j = Concat <axis = 1> (p, q)
      y = Conv (j, w)
    })",
               "dnnl", 0);
  // Joined along the spatial axis.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,3,5] p, float[1,2,4,5] q, float[4,2,1,1] w)
                                             => (float[1,4,7,5] y) {
      j = Concat <axis = 2> (p, q)
      y = Conv (j, w)
    })",
               "dnnl", 0);
}

TEST(ExecConcatenatedInput, PartsThatDoNotJoinAreAnErrorNamingTheConcat) {
  for (const char* reader : {"y = Conv (j, w)", "y = MaxPool <kernel_shape = [2, 2]> (j)"}) {
    auto model = parseModelText(std::string(kHeader) + R"(g (float[1,2,5,5] p, float[1,3,4,4] q, float[4,5,1,1] w)
                                               => (float[1,4,5,5] y) {
        j = Concat <axis = 1> (p, q)
        )" + reader + "\n}");
    ASSERT_TRUE(model.ok()) << model.error().toString();
    for (bool fuse : {true, false}) {
      const std::string message = runError(**model, fuse);
      EXPECT_NE(message.find("Concat"), std::string::npos) << message;
      EXPECT_NE(message.find("Concat (#1), input 1 'q'"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace onyx::exec::testing
