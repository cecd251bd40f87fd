// Epilogue fusion: element-wise nodes after a Conv or MatMul computed as oneDNN post-ops in its output pass;
// Transposes read only by a MatMul folded into its operand strides. Each graph runs with fusion on and off
// on the same seeded inputs; the profile shows which nodes fused.
#include <gtest/gtest.h>

#include "exec_fusion_test_util.h"
#include "ops/nn/conv_silu_placement.h"

namespace onyx::exec::testing {
namespace {

TEST(ExecConvEpilogue, ActivationsBecomePostOps) {
  expectFusion(std::string(kHeader) + R"(g (float[1,3,9,9] x, float[8,3,3,3] w, float[8] b) => (float[1,8,9,9] y) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w, b)
      y = Relu (c)
    })",
               "dnnl+Relu", 1);
  expectFusion(std::string(kHeader) + R"(g (float[1,4,7,7] x, float[4,1,3,3] w) => (float[1,4,4,4] y)
      <float lo = {0.0}, float hi = {0.5}> {
      c = Conv <group = 4, strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)
      y = Clip (c, lo, hi)
    })",
               "dnnl+Clip", 1);
  expectFusion(std::string(kHeader) + R"(g (float[2,3,6,6] x, float[5,3,1,1] w) => (float[2,5,6,6] y) {
      c = Conv (x, w)
      s = Sigmoid (c)
      y = Mul (s, c)
    })",
               "dnnl+Sigmoid+Mul", 2);
  expectFusion(std::string(kHeader) + R"(g (float[1,2,5,5] x, float[3,2,3,3] w) => (float[1,3,3,3] y) {
      c = Conv (x, w)
      l = LeakyRelu <alpha = 0.2> (c)
      y = Tanh (l)
    })",
               "dnnl+LeakyRelu+Tanh", 2);
}

TEST(ExecConvEpilogue, TwoActivationsOfOneKind) {
  // oneDNN 2.6 gives the second post-op of one algorithm the first one's parameters: the chain stops there.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,5,5] x, float[3,2,3,3] w) => (float[1,3,3,3] y)
      <float lo = {-0.5}, float hi = {0.5}, float lo2 = {-0.2}, float hi2 = {0.1}> {
      c = Conv (x, w)
      l = LeakyRelu <alpha = 0.2> (c)
      m = LeakyRelu <alpha = 0.5> (l)
      k = Clip (m, lo, hi)
      y = Clip (k, lo2, hi2)
    })",
               "dnnl+LeakyRelu", 1);
}

TEST(ExecConvEpilogue, ClipBoundsFromConstantNodes) {
  // torchvision's ReLU6 exports as Clip whose bounds are Constant nodes, not initializers.
  expectFusion(std::string(kHeader) + R"(g (float[1,3,6,6] x, float[4,3,1,1] w) => (float[1,4,6,6] y) {
      lo = Constant <value = float {0.0}> ()
      hi = Constant <value = float {0.25}> ()
      c = Conv (x, w)
      y = Clip (c, lo, hi)
    })",
               "dnnl+Clip", 1);
}

TEST(ExecConvEpilogue, ResidualAddThenRelu) {
  // A ResNet basic block: the identity branch is read by the second Conv's sum post-op.
  expectFusion(std::string(kHeader) + R"(g (float[1,4,8,8] x, float[4,4,3,3] w1, float[4,4,3,3] w2) => (float[1,4,8,8] y) {
      a = Conv <pads = [1, 1, 1, 1]> (x, w1)
      r = Relu (a)
      c = Conv <pads = [1, 1, 1, 1]> (r, w2)
      s = Add (c, x)
      y = Relu (s)
    })",
               "dnnl+Add+Relu", 3);
}

// A SiLU that ends the epilogue, after the residual sum, runs as oneDNN's post-op or as our pass after the
// Conv (SiluPlacement; expectFusion's two runs take one each); one before the sum stays a post-op. Both give
// what the nodes give one by one.
TEST(ExecConvEpilogue, SiluAfterTheResidualSumAndBeforeIt) {
  expectFusion(std::string(kHeader) + R"(g (float[1,8,10,10] x, float[8,8,3,3] w) => (float[1,8,10,10] y) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w)
      a = Add (c, x)
      s = Sigmoid (a)
      y = Mul (a, s)
    })",
               "dnnl+Add+Sigmoid+Mul", 3);
  expectFusion(std::string(kHeader) + R"(g (float[1,8,10,10] x, float[8,8,3,3] w) => (float[1,8,10,10] y) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w)
      s = Sigmoid (c)
      m = Mul (s, c)
      y = Add (m, x)
    })",
               "dnnl+Sigmoid+Mul+Add", 3);
}

// A trailing SiLU runs as oneDNN's post-op and as our pass in turn over the Conv's first runs
// (SiluPlacement), then as the faster: every run gives what the nodes give one by one.
TEST(ExecConvEpilogue, TrailingSiluGivesTheSameOutputsWhereverItRuns) {
  auto model = parseModelText(std::string(kHeader) + "g (float[1,16,20,20] x) => (float[1,24,20,20] y) <" +
                              initializer("w", {24, 16, 3, 3}, 7) + R"(> {
      c = Conv <pads = [1, 1, 1, 1]> (x, w)
      s = Sigmoid (c)
      y = Mul (c, s)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const NamedValues inputs = randomInputs(**model, 3);
  const Outcome plain = runGraph(**model, inputs, false);
  ASSERT_EQ(plain.outputs.size(), 1u);
  ExecutorOptions options;
  options.fuseEpilogues = true;
  auto executor = Executor::create(**model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  for (int run = 0; run < 2 * SiluPlacement::kRunsEach + 2; ++run) {
    auto result = (*executor)->run(inputs);
    ASSERT_TRUE(result.ok()) << result.error().toString();
    EXPECT_TRUE(closeTensors(std::get<TensorValue>((*result)[0]), std::get<TensorValue>(plain.outputs[0]),
                             1e-5, 1e-5))
        << "run " << run;
  }
}

TEST(SiluPlacement, KeepsTheFasterOfItsFirstRuns) {
  SiluPlacement fasterPass;
  for (int run = 0; run < 2 * SiluPlacement::kRunsEach; ++run) {
    EXPECT_FALSE(fasterPass.decided());
    EXPECT_EQ(fasterPass.postOp(), run % 2 == 0);
    fasterPass.record(fasterPass.postOp() ? 2.0 : 1.0 + (run == 1 ? 5.0 : 0.0), 2);  // one preempted pass
  }
  EXPECT_TRUE(fasterPass.decided());
  EXPECT_FALSE(fasterPass.postOp());
  SiluPlacement fasterPostOp;
  for (int run = 0; run < 2 * SiluPlacement::kRunsEach; ++run)
    fasterPostOp.record(fasterPostOp.postOp() ? 1.0 : 2.0, 2);
  EXPECT_TRUE(fasterPostOp.postOp());
  fasterPostOp.record(9.0, 2);  // decided: later runs change nothing
  EXPECT_TRUE(fasterPostOp.postOp());
  fasterPostOp.reset();
  EXPECT_FALSE(fasterPostOp.decided());
}

// Runs on another thread count than the first (the ThreadTuner's alternate runs) are left out, and the
// alternation goes on from where it was.
TEST(SiluPlacement, CountsRunsOnTheFirstThreadCountOnly) {
  SiluPlacement placement;
  int counted = 0;
  for (int run = 0; !placement.decided(); ++run) {
    ASSERT_LT(run, 100);
    const int threads = run % 2 == 0 ? 16 : 8;
    // At 16 threads the post-op is faster; at 8 the pass would look faster if its runs counted.
    const double seconds = threads == 8 ? (placement.postOp() ? 9.0 : 0.5) : (placement.postOp() ? 1.0 : 2.0);
    counted += threads == 16;
    placement.record(seconds, threads);
  }
  EXPECT_EQ(counted, 2 * SiluPlacement::kRunsEach);
  EXPECT_TRUE(placement.postOp());
}

TEST(ExecConvEpilogue, ValuesThatMustExistAreNotFused) {
  // The Conv's output is a graph output, or read twice: nothing fuses.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,4,4] x, float[2,2,1,1] w) => (float[1,2,4,4] y, float[1,2,4,4] c) {
      c = Conv (x, w)
      y = Relu (c)
    })",
               "dnnl", 0);
  expectFusion(std::string(kHeader) + R"(g (float[1,2,4,4] x, float[2,2,1,1] w) => (float[1,2,4,4] y, float[1,2,4,4] z) {
      c = Conv (x, w)
      y = Relu (c)
      z = Neg (c)
    })",
               "dnnl", 0);
}

TEST(ExecConvEpilogue, ResidualComputedLaterIsNotFused) {
  // The Add's other operand comes from a node scheduled after the first Conv: only the second Conv (whose
  // partner is ready) takes the Add.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,4,4] x, float[2,2,1,1] w, float[2,2,1,1] v) => (float[1,2,4,4] y) {
      c = Conv (x, w)
      d = Conv (x, v)
      y = Add (c, d)
    })",
               "dnnl+Add", 1);
}

TEST(ExecConvEpilogue, BroadcastResidualRunsNodeByNode) {
  // A residual that broadcasts cannot be a sum post-op: the run falls back to the Add kernel, same values.
  expectFusion(std::string(kHeader) + R"(g (float[1,2,4,4] x, float[2,2,1,1] w, float[1,2,1,4] r) => (float[1,2,4,4] y) {
      c = Conv (x, w)
      s = Add (c, r)
      y = Relu (s)
    })",
               "dnnl", 0);
}

TEST(ExecMatmulEpilogue, BiasScaleResidualAndActivation) {
  // A transformer's projection: bias, then the residual branch; attention scores scaled by a constant.
  expectFusion(std::string(kHeader) + R"(g (float[2,5,8] x, float[8,8] w, float[2,5,8] r) => (float[2,5,8] y)
      <float[8] b = {1, -2, 3, -4, 5, -6, 7, -8}> {
      m = MatMul (x, w)
      a = Add (m, b)
      y = Add (r, a)
    })",
               "dnnl+Add+Add", 2);
  expectFusion(std::string(kHeader) + R"(g (float[2,3,4,6] q, float[2,3,6,4] k) => (float[2,3,4,4] y) <float scale = {8.0}> {
      s = MatMul (q, k)
      d = Div (s, scale)
      y = Relu (d)
    })",
               "dnnl+Div+Relu", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float[1,5] b = {0.5, -1, 2, 0, 3}, float two = {2.0}> {
      m = MatMul (x, w)
      a = Add (b, m)
      s = Mul (two, a)
      y = Sub (s, two)
    })",
               "dnnl+Add+Mul+Sub", 3);
}

TEST(ExecMatmulEpilogue, ScalingsAndActivationsInSequence) {
  // Consecutive scalings merge into one linear post-op (oneDNN 2.6 gave a second one the first's factors).
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}> {
      m = MatMul (x, w)
      a = Mul (two, m)
      y = Sub (a, two)
    })", "dnnl+Mul+Sub", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}, float[1,5] b = {0.5, -1, 2, 0, 3}> {
      m = MatMul (x, w)
      a = Add (b, m)
      y = Mul (a, two)
    })", "dnnl+Add+Mul", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}, float three = {3.0}> {
      m = MatMul (x, w)
      a = Mul (m, two)
      y = Mul (a, three)
    })", "dnnl+Mul+Mul", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}> {
      m = MatMul (x, w)
      a = Relu (m)
      y = Mul (a, two)
    })", "dnnl+Relu+Mul", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}> {
      m = MatMul (x, w)
      a = Mul (m, two)
      y = Relu (a)
    })", "dnnl+Mul+Relu", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}> {
      m = MatMul (x, w)
      a = Relu (m)
      y = Tanh (a)
    })", "dnnl+Relu+Tanh", 2);
  // A scaling after another post-op stays a separate node when one came before it.
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y)
      <float two = {2.0}, float three = {-3.0}> {
      m = MatMul (x, w)
      a = Mul (m, two)
      r = Relu (a)
      y = Mul (r, three)
    })", "dnnl+Mul+Relu", 2);
  expectFusion(std::string(kHeader) + R"(g (float[3,7] x, float[7,5] w) => (float[3,5] y) {
      m = MatMul (x, w)
      a = LeakyRelu <alpha = 0.5> (m)
      y = Relu (a)
    })", "dnnl+LeakyRelu", 1);
}

TEST(ExecMatmulEpilogue, GeluAsExportedByPyTorch) {
  // x * 0.5 * (1 + erf(x / sqrt(2))) after a biased projection: one gelu_erf post-op.
  expectFusion(std::string(kHeader) + R"(g (float[2,6,8] x, float[8,16] w) => (float[2,6,16] y)
      <float[16] b = {1, -1, 0.5, -0.5, 2, -2, 0, 0.25, 1, -1, 0.5, -0.5, 2, -2, 0, 0.25},
       float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      m = MatMul (x, w)
      h = Add (m, b)
      d = Div (h, root2)
      e = Erf (d)
      a = Add (e, one)
      p = Mul (h, a)
      y = Mul (p, half)
    })",
               "dnnl+Add+Div+Erf+Add+Mul+Mul", 6);
  // Not GELU (the last factor is not 0.5): the chain stops at the bias.
  expectFusion(std::string(kHeader) + R"(g (float[3,8] x, float[8,4] w) => (float[3,4] y)
      <float[4] b = {1, 2, 3, 4}, float root2 = {1.4142135}, float one = {1.0}, float third = {0.3}> {
      m = MatMul (x, w)
      h = Add (m, b)
      d = Div (h, root2)
      e = Erf (d)
      a = Add (e, one)
      p = Mul (h, a)
      y = Mul (p, third)
    })",
               "dnnl+Add", 1);
}

// elementwise-fusion (onyx optimize's default pipeline) turns the bias and GELU after a projection into one
// call of an onyx.fused function: its body joins the MatMul's epilogue node by node, as the unmerged nodes
// would (gpt2_small optimized: each MLP's GELU ran as a separate fused kernel, 1.6 of its 8.3 ms).
constexpr const char* kFusedGeluHeader = R"(<ir_version: 8, opset_import: ["" : 17, "onyx.fused" : 1]>
)";
constexpr const char* kFusedGeluBody = R"(
<domain: "onyx.fused", opset_import: ["" : 17]>
Fused_Add_Div_Erf_Add_Mul_Mul (in0, in1, in2, in3, in4) => (out) {
  t0 = Add (in0, in1)
  t1 = Div (t0, in2)
  t2 = Erf (t1)
  t3 = Add (t2, in3)
  t4 = Mul (t0, t3)
  out = Mul (t4, in4)
})";

TEST(ExecMatmulEpilogue, FusedFunctionCallJoinsTheEpilogue) {
  expectFusion(std::string(kFusedGeluHeader) + R"(g (float[2,6,8] x, float[8,16] w) => (float[2,6,16] y)
      <float[16] b = {1, -1, 0.5, -0.5, 2, -2, 0, 0.25, 1, -1, 0.5, -0.5, 2, -2, 0, 0.25},
       float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      m = MatMul (x, w)
      y = onyx.fused.Fused_Add_Div_Erf_Add_Mul_Mul (m, b, root2, one, half)
    })" + kFusedGeluBody,
               "dnnl+Add+Div+Erf+Add+Mul+Mul", 1);
  // The call then feeds a residual Add the chain takes as well.
  expectFusion(std::string(kFusedGeluHeader) + R"(g (float[3,8] x, float[8,4] w, float[3,4] r) => (float[3,4] y)
      <float[4] b = {1, 2, 3, 4}, float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      m = MatMul (x, w)
      g = onyx.fused.Fused_Add_Div_Erf_Add_Mul_Mul (m, b, root2, one, half)
      y = Add (g, r)
    })" + kFusedGeluBody,
               "dnnl+Add+Div+Erf+Add+Mul+Mul+Add", 2);
}

TEST(ExecMatmulEpilogue, FusedFunctionCallTheKernelCannotTakeRunsWhole) {
  // Not GELU (the last factor is 0.3): the kernel refuses the body, which stays one fused call.
  expectFusion(std::string(kFusedGeluHeader) + R"(g (float[3,8] x, float[8,4] w) => (float[3,4] y)
      <float[4] b = {1, 2, 3, 4}, float root2 = {1.4142135}, float one = {1.0}, float third = {0.3}> {
      m = MatMul (x, w)
      y = onyx.fused.Fused_Add_Div_Erf_Add_Mul_Mul (m, b, root2, one, third)
    })" + kFusedGeluBody,
               "dnnl", 0);
  // The bias is computed after the MatMul in the schedule: the call cannot run in the MatMul's pass.
  expectFusion(std::string(kFusedGeluHeader) + R"(g (float[3,8] x, float[8,4] w, float[4] c) => (float[3,4] y)
      <float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}> {
      m = MatMul (x, w)
      b = Neg (c)
      y = onyx.fused.Fused_Add_Div_Erf_Add_Mul_Mul (m, b, root2, one, half)
    })" + kFusedGeluBody,
               "dnnl", 0);
}

TEST(ExecMatmulEpilogue, AttentionMaskBroadcastsAsABinaryPostOp) {
  // BERT's scores: (Q K) / sqrt(d) + mask, the mask computed at run time as [batch, 1, 1, keys].
  expectFusion(std::string(kHeader) + R"(g (float[2,3,4,6] q, float[2,3,6,5] k, float[2,1,1,5] mask) => (float[2,3,4,5] y)
      <float scale = {8.0}> {
      s = MatMul (q, k)
      d = Div (s, scale)
      y = Add (d, mask)
    })",
               "dnnl+Div+Add", 2);
  // Along N only, with A's batch folded into M (2-D B): a [1, N] operand in the folded product.
  expectFusion(std::string(kHeader) + R"(g (float[2,4,6] x, float[6,3] w, float[3] r) => (float[2,4,3] y) {
      m = MatMul (x, w)
      a = Add (r, m)
      y = Relu (a)
    })",
               "dnnl+Add+Relu", 2);
}

TEST(ExecMatmulEpilogue, WhatOneDnnCannotTakeRunsNodeByNode) {
  // A residual along M with A's batch folded into M, a bias along rows, a constant divided by the product:
  // same values, no fusion.
  expectFusion(std::string(kHeader) + R"(g (float[2,4,6] x, float[6,3] w, float[1,4,3] r) => (float[2,4,3] y) {
      m = MatMul (x, w)
      y = Add (m, r)
    })",
               "dnnl", 0);
  expectFusion(std::string(kHeader) + R"(g (float[4,6] x, float[6,3] w) => (float[4,3] y) <float[4,1] b = {1, 2, 3, 4}> {
      m = MatMul (x, w)
      y = Add (m, b)
    })",
               "dnnl", 0);
  expectFusion(std::string(kHeader) + R"(g (float[4,6] x, float[6,3] w) => (float[4,3] y) <float one = {1.0}> {
      m = MatMul (x, w)
      y = Div (one, m)
    })",
               "dnnl", 0);
}

TEST(ExecTransposedOperand, AttentionHeadSplitsAreReadThroughStrides) {
  // BERT: Q and V split into heads by (0, 2, 1, 3), K by (0, 2, 3, 1); the scores' scale fuses as well.
  expectFusion(std::string(kHeader) + R"(g (float[2,7,3,4] q, float[2,7,3,4] k) => (float[2,3,7,7] y) <float scale = {2.0}> {
      qt = Transpose <perm = [0, 2, 1, 3]> (q)
      kt = Transpose <perm = [0, 2, 3, 1]> (k)
      s = MatMul (qt, kt)
      y = Div (s, scale)
    })",
               "dnnl+Div", 3);
  expectFusion(std::string(kHeader) + R"(g (float[2,3,7,7] p, float[2,7,3,4] v) => (float[2,3,7,4] y) {
      vt = Transpose <perm = [0, 2, 1, 3]> (v)
      y = MatMul (p, vt)
    })",
               "dnnl", 1);
  // The reversal (no perm) of a 2-D A, and a permuted A before a 2-D B, which the kernel makes first.
  expectFusion(std::string(kHeader) + R"(g (float[6,5] a, float[6,4] b) => (float[5,4] y) {
      at = Transpose (a)
      y = MatMul (at, b)
    })",
               "dnnl", 1);
  expectFusion(std::string(kHeader) + R"(g (float[3,2,5] a, float[5,4] b) => (float[2,3,4] y) {
      at = Transpose <perm = [1, 0, 2]> (a)
      y = MatMul (at, b)
    })",
               "dnnl", 1);
  // Perms that move only size-1 dims (an RNN's [seq, 1, C] as [1, seq, C]) are read as views of the
  // stored tensor; one that also swaps two dims around a size-1 dim is made by copying.
  expectFusion(std::string(kHeader) + R"(g (float[6,1,5] a, float[5,4] b) => (float[1,6,4] y) {
      at = Transpose <perm = [1, 0, 2]> (a)
      y = MatMul (at, b)
    })",
               "dnnl", 1);
  expectFusion(std::string(kHeader) + R"(g (float[1,3,1,5] a, float[5,4] b) => (float[3,1,1,4] y) {
      at = Transpose <perm = [2, 1, 0, 3]> (a)
      y = MatMul (at, b)
    })",
               "dnnl", 1);
  expectFusion(std::string(kHeader) + R"(g (float[5,1,3] a, float[5,4] b) => (float[1,3,4] y) {
      at = Transpose <perm = [1, 2, 0]> (a)
      y = MatMul (at, b)
    })",
               "dnnl", 1);
}

TEST(ExecTransposedOperand, IntegersAndValuesThatMustExistAndBadPerms) {
  // Integers: the reference kernel reads the transposed input, made from the stored one.
  auto model = parseModelText(std::string(kHeader) + R"(g (int32[2,3] a, int32[2,2] b) => (int32[3,2] y) {
      at = Transpose (a)
      y = MatMul (at, b)
    })");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  NamedValues ints = {{"a", TensorValue::fromVector<int32_t>(DataType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"b", TensorValue::fromVector<int32_t>(DataType::Int32, {2, 2}, {1, 10, 100, 1000})}};
  Outcome fused = runGraph(**model, ints, true);
  ASSERT_EQ(fused.outputs.size(), 1u);
  const auto& y = std::get<TensorValue>(fused.outputs[0]);
  EXPECT_EQ(std::vector<int32_t>(y.span<int32_t>().begin(), y.span<int32_t>().end()),
            (std::vector<int32_t>{401, 4010, 502, 5020, 603, 6030}));
  EXPECT_EQ(std::count_if(fused.variants.begin(), fused.variants.end(),
                          [](const std::string& v) { return v.rfind("fused into", 0) == 0; }),
            1);
  // A transposed value that is also a graph output stays a Transpose of its own.
  expectFusion(std::string(kHeader) + R"(g (float[4,3] a, float[4,2] b) => (float[3,2] y, float[3,4] at) {
      at = Transpose (a)
      y = MatMul (at, b)
    })",
               "dnnl", 0);
  // A perm that does not fit the input's rank: an error naming the Transpose, with fusion as without.
  auto bad = parseModelText(std::string(kHeader) + R"(g (float[2,3,4] a, float[4,2] b) => (float[3,2] y) {
      at = Transpose <perm = [1, 0]> (a)
      y = MatMul (at, b)
    })");
  ASSERT_TRUE(bad.ok()) << bad.error().toString();
  auto executor = Executor::create(**bad, ExecutorOptions{});
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  auto run = (*executor)->run(randomInputs(**bad, 3));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().toString().find("Transpose"), std::string::npos) << run.error().toString();
  EXPECT_NE(run.error().toString().find("perm"), std::string::npos) << run.error().toString();
}

}  // namespace
}  // namespace onyx::exec::testing
