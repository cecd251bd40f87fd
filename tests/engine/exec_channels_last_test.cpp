// Channels-last storage between oneDNN convolutions: the plan keeps a Conv's output channels-last only when
// every reader takes it, and the values equal a run with plain storage everywhere.
#include <gtest/gtest.h>

#include "exec/channels_last.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"

namespace onyx::exec::testing {
namespace {

NamedValues randomInputs(const Model& model, uint64_t seed) {
  NamedValues named;
  for (const Value* v : model.graph().inputs()) {
    Dims dims;
    for (const Dim& d : *v->type().shape()) dims.push_back(*d.value());
    named.push_back({v->name(), randomTensor(DataType::Float, dims, seed++, -1.0f, 1.0f)});
  }
  return named;
}

struct Run {
  std::vector<RunValue> outputs;
  std::map<std::string, bool> channelsLast;  // per node, by its output: planned channels-last
};

Run runGraph(const Model& model, const NamedValues& inputs, bool channelsLast) {
  ExecutorOptions options;
  options.channelsLast = channelsLast;
  Run out;
  auto executor = runTwice(model, inputs, options, out.outputs);
  if (!executor) return {};
  for (const Assignment& a : executor->assignments()) out.channelsLast[a.node->output(0)->name()] = a.channelsLastOutput;
  return out;
}

// Runs with and without channels-last storage; returns the planned layout per node of the first.
std::map<std::string, bool> expectSameValues(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  if (!model.ok()) return {};
  NamedValues inputs = randomInputs(**model, 11);
  Run last = runGraph(**model, inputs, true);
  Run plain = runGraph(**model, inputs, false);
  EXPECT_EQ(last.outputs.size(), plain.outputs.size());
  for (size_t i = 0; i < plain.outputs.size() && i < last.outputs.size(); ++i) {
    const auto& a = std::get<TensorValue>(last.outputs[i]);
    const auto& b = std::get<TensorValue>(plain.outputs[i]);
    EXPECT_FALSE(a.channelsLast()) << "graph outputs are plain";
    EXPECT_TRUE(closeTensors(a, b, 1e-5, 1e-5)) << "output " << i;
  }
  for (const auto& [node, on] : plain.channelsLast) EXPECT_FALSE(on) << node;
  return last.channelsLast;
}

const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>
)";

TEST(ExecChannelsLast, ConvChainThroughElementwiseNodesStaysChannelsLast) {
  // A squeeze-excitation-like scale (Mul by [1,C,1,1]) and a Tanh between two Convs: both are computed on
  // the channels-last bytes. The last Conv writes a graph output: plain.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[1,3,10,10] x, float[16,3,3,3] w1, float[1,16,1,1] s, float[16,16,1,1] w2) => (float[1,16,10,10] y) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w1)
      m = Mul (c, s)
      t = Tanh (m)
      y = Conv (t, w2)
    })");
  EXPECT_TRUE(planned["c"]);
  EXPECT_TRUE(planned["m"]);
  EXPECT_TRUE(planned["t"]);
  EXPECT_FALSE(planned["y"]);
}

TEST(ExecChannelsLast, ReadersThatNeedPlainStorageKeepItPlain) {
  // Transpose and a Concat along H read plain storage: the Convs feeding them write plain.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[1,4,8,8] x, float[8,4,1,1] w, float[8,4,3,3] v) => (float[1,8,8,16] y, float[1,8,16,8] z) {
      p = Conv (x, w)
      q = Conv <pads = [1, 1, 1, 1]> (x, v)
      c = Concat <axis = 3> (p, q)
      y = Transpose <perm = [0, 1, 2, 3]> (c)
      r = Conv (x, w)
      z = Concat <axis = 2> (r, q)
    })");
  EXPECT_FALSE(planned["p"]);
  EXPECT_FALSE(planned["q"]);
  EXPECT_FALSE(planned["r"]);
}

TEST(ExecChannelsLast, ConcatAlongChannelsKeepsTheLayout) {
  // Two expand Convs joined along channels feed two Convs (a Concat read by one Conv is folded into it:
  // exec_concatenated_input_test). e3 is also read by a Concat that writes a graph output (plain), so e3
  // stays plain and the first Concat mixes layouts.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[1,8,9,9] x, float[4,8,1,1] ws, float[6,4,1,1] we1, float[6,4,3,3] we3, float[5,12,1,1] wn, float[1,3,9,9] extra) => (float[1,5,9,9] y, float[1,5,9,9] v, float[1,9,9,9] z) {
      s = Conv (x, ws)
      e1 = Conv (s, we1)
      e3 = Conv <pads = [1, 1, 1, 1]> (s, we3)
      f = Concat <axis = 1> (e1, e3)
      y = Conv (f, wn)
      v = Conv <pads = [1, 1, 1, 1]> (f, wn)
      z = Concat <axis = 1> (e3, extra)
    })");
  EXPECT_TRUE(planned["s"]);
  EXPECT_TRUE(planned["e1"]);
  EXPECT_FALSE(planned["e3"]);
  EXPECT_TRUE(planned["f"]);
  EXPECT_FALSE(planned["z"]);
}

TEST(ExecChannelsLast, OperandsThatBroadcastOverSpatialDimsAreConvertedAtRunTime) {
  // The Add's other operand is a full plain tensor and the Sub's varies along W: both nodes read the
  // channels-last Conv output converted to plain; the values stay right.
  expectSameValues(std::string(kHeader) + R"(g (float[1,2,6,6] x, float[4,2,1,1] w, float[1,4,6,6] r, float[6] b, float[4,4,1,1] w2) => (float[1,4,6,6] y) {
      c = Conv (x, w)
      a = Add (c, r)
      d = Sub (a, b)
      y = Conv (d, w2)
    })");
}

TEST(ExecChannelsLast, ResidualOperandInEitherLayout) {
  // The block input is read by two Convs and as the second Conv's fused residual.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[1,8,6,6] x, float[8,8,3,3] w1, float[8,8,3,3] w2, float[8,8,1,1] w3) => (float[1,8,6,6] y) {
      s = Conv (x, w3)
      a = Conv <pads = [1, 1, 1, 1]> (s, w1)
      r = Relu (a)
      b = Conv <pads = [1, 1, 1, 1]> (r, w2)
      o = Add (b, s)
      y = Relu (o)
    })");
  EXPECT_TRUE(planned["s"]);
  EXPECT_TRUE(planned["a"]);
}

TEST(ExecChannelsLast, PoolingReadsChannelsLast) {
  // MaxPool (ceil_mode, padding) between Convs stays channels-last; AveragePool with count_include_pad
  // writes a graph output, so plain. 29 channels: a 16-lane, an 8-lane and a scalar part per tap.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[2,3,11,9] x, float[29,3,3,3] w1, float[8,29,1,1] w2) => (float[2,8,6,5] y, float[2,29,6,5] a) {
      c = Conv <pads = [1, 1, 1, 1]> (x, w1)
      p = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 0, 1, 1], ceil_mode = 1> (c)
      y = Conv (p, w2)
      a = AveragePool <kernel_shape = [2, 3], strides = [2, 2], pads = [1, 1, 0, 1], count_include_pad = 1> (c)
    })");
  EXPECT_TRUE(planned["c"]);
  EXPECT_TRUE(planned["p"]);
  EXPECT_FALSE(planned["a"]);
}

TEST(ExecChannelsLast, PoolingWindowsMatchPlainStorage) {
  // The separable channels-last pooling (input rows reduced first, then each pixel's columns) over padding
  // corners, dilations, ceil_mode windows and count_include_pad; 29 channels: 16-lane, 8-lane and scalar.
  struct Window {
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil = 0;
  };
  const Window windows[] = {
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {{3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1},
      {{2, 3}, {1, 2}, {0, 1, 2, 0}, {2, 2}},
      {{5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}},
      {{4, 1}, {3, 1}, {2, 0, 2, 0}, {1, 1}, 1},
  };
  auto list = [](const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return "[" + s + "]";
  };
  for (const Window& w : windows) {
    for (Dims image : {Dims{9, 11}, Dims{16, 5}}) {
      Dims out;
      for (size_t d = 0; d < 2; ++d) {
        const int64_t span = image[d] + w.pads[d] + w.pads[d + 2] - ((w.kernel[d] - 1) * w.dilations[d] + 1);
        out.push_back((w.ceil ? (span + w.strides[d] - 1) / w.strides[d] : span / w.strides[d]) + 1);
      }
      const std::string geometry = "kernel_shape = " + list(w.kernel) + ", strides = " + list(w.strides) +
                                   ", pads = " + list(w.pads) + ", ceil_mode = " + std::to_string(w.ceil);
      const std::string o = std::to_string(out[0]) + "," + std::to_string(out[1]);
      const std::string text = std::string(kHeader) + "g (float[1,3," + std::to_string(image[0]) + "," +
                               std::to_string(image[1]) +
                               "] x, float[29,3,3,3] w1, float[8,29,1,1] w2) => (float[1,8," + o +
                               "] m, float[1,8," + o + "] a, float[1,8," + o + "] ap) {\n" +
                               "c = Conv <pads = [1, 1, 1, 1]> (x, w1)\n" + "p = MaxPool <" + geometry +
                               ", dilations = " + list(w.dilations) + "> (c)\n" + "m = Conv (p, w2)\n" +
                               "q = AveragePool <" + geometry + "> (c)\n" + "a = Conv (q, w2)\n" +
                               "qp = AveragePool <" + geometry + ", count_include_pad = 1> (c)\n" +
                               "ap = Conv (qp, w2)\n}";
      SCOPED_TRACE(text);
      auto planned = expectSameValues(text);
      EXPECT_TRUE(planned["p"]);
      EXPECT_TRUE(planned["q"]);
    }
  }
}

TEST(ExecChannelsLast, SqueezeExcitationBlock) {
  // EfficientNet's block: Conv+SiLU read by GlobalAveragePool and by the Mul that scales it.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[1,8,7,7] x, float[16,8,1,1] w, float[4,16,1,1] wr, float[16,4,1,1] we, float[8,16,1,1] wp) => (float[1,8,7,7] y) {
      c = Conv (x, w)
      s = Sigmoid (c)
      a = Mul (c, s)
      g = GlobalAveragePool (a)
      r = Conv (g, wr)
      rr = Relu (r)
      e = Conv (rr, we)
      se = Sigmoid (e)
      m = Mul (a, se)
      y = Conv (m, wp)
    })");
  EXPECT_TRUE(planned["c"]);
  // The scale is folded into the projection (exec_channel_scale_test.cpp): no step of its own, and the Conv
  // reads a, channels-last, as it lies.
  EXPECT_EQ(planned.count("m"), 0u);
}

TEST(ExecChannelsLast, InvertedResidualConvsRunOnItWithoutReordering) {
  // MobileNetV2's block: expand, depthwise, project with the residual. The depthwise and projecting Convs
  // read channels-last as it lies and write it, on every instruction set: without AVX-512 oneDNN prefers
  // channel blocks of 8, and each Conv reordered into them and back (engine.forced_avx2 runs this).
  const std::string text = std::string(kHeader) + R"(g (float[1,16,14,14] x, float[48,16,1,1] we, float[48,1,3,3] wd, float[16,48,1,1] wp, float[8,16,1,1] wo) => (float[1,8,14,14] y) {
      e = Conv (x, we)
      er = Relu (e)
      d = Conv <group = 48, pads = [1, 1, 1, 1]> (er, wd)
      dr = Relu (d)
      p = Conv (dr, wp)
      r = Add (p, x)
      y = Conv (r, wo)
    })";
  auto planned = expectSameValues(text);
  EXPECT_TRUE(planned["e"]);  // with its Relu
  EXPECT_TRUE(planned["d"]);
  auto model = parseModelText(text);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  ExecutorOptions options;
  options.profile = true;
  std::vector<RunValue> outputs;
  auto executor = runTwice(**model, randomInputs(**model, 5), options, outputs);
  ASSERT_TRUE(executor);
  int convs = 0;
  for (const ProfileEvent& e : executor->profiler().events()) {
    if (e.opType != "Conv") continue;
    SCOPED_TRACE(e.name + ": " + e.variant);
    EXPECT_NE(e.implementation.rfind("ref", 0), 0u);
    const bool readsItsInputAsItLies = convs == 1 || convs == 2;  // not the graph's input nor its output
    if (readsItsInputAsItLies) {
      EXPECT_EQ(e.implementation.find("reorders"), std::string::npos);
    }
    ++convs;
  }
  EXPECT_EQ(convs, 4);
}

TEST(ExecChannelsLast, GlobalAveragePoolSumsPixelBlocksInParallel) {
  // 13 channels (an 8-lane and a scalar part) over 900 pixels: two blocks of pixels per image, two images.
  auto planned = expectSameValues(std::string(kHeader) + R"(g (float[2,3,30,30] x, float[13,3,1,1] w) => (float[2,13,1,1] y) {
      c = Conv (x, w)
      y = GlobalAveragePool (c)
    })");
  EXPECT_TRUE(planned["c"]);
}

TEST(ExecChannelsLast, ToPlainLayoutTransposesEachBatch) {
  // (N=2, C=3, H=1, W=2) stored as (N, H, W, C).
  TensorValue last = TensorValue::fromVector<float>(DataType::Float, {2, 3, 1, 2},
                                                    {0, 10, 20, 1, 11, 21, 100, 110, 120, 101, 111, 121});
  last.setChannelsLast(true);
  TensorValue plain = last.toPlainLayout();
  EXPECT_FALSE(plain.channelsLast());
  std::vector<float> want = {0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121};
  EXPECT_EQ(std::vector<float>(plain.span<float>().begin(), plain.span<float>().end()), want);
}

TEST(ExecChannelsLast, ChannelBlocksToPlainLayout) {
  // (N=2, C=32, H=1, W=3) in blocks of 16 channels: (N, C/16, H, W, 16); element (n, c, w) holds
  // 1000n + 10c + w, stored at ((n * 2 + c / 16) * 3 + w) * 16 + c % 16.
  const int64_t n = 2, c = 32, w = 3;
  std::vector<float> blocks(size_t(n * c * w));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t x = 0; x < w; ++x)
        blocks[size_t(((b * 2 + ch / 16) * w + x) * 16 + ch % 16)] = float(1000 * b + 10 * ch + x);
  TensorValue blocked = TensorValue::fromVector<float>(DataType::Float, {n, c, 1, w}, blocks);
  blocked.setBlocked16(true);
  EXPECT_FALSE(blocked.channelsLast());
  TensorValue plain = blocked.toPlainLayout();
  EXPECT_TRUE(plain.isPlainLayout());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t x = 0; x < w; ++x)
        ASSERT_EQ(plain.data<float>()[(b * c + ch) * w + x], float(1000 * b + 10 * ch + x)) << b << " " << ch << " " << x;
  // One pixel: the same bytes in both layouts, no copy.
  TensorValue pixel = TensorValue::fromVector<float>(DataType::Float, {1, 16, 1, 1}, std::vector<float>(16, 1.0f));
  pixel.setBlocked16(true);
  EXPECT_EQ(pixel.toPlainLayout().raw(), pixel.raw());
  EXPECT_TRUE(TensorValue::canBlock16({1, 32, 5, 5}));
  EXPECT_FALSE(TensorValue::canBlock16({1, 24, 5, 5}));
}

TEST(ExecChannelsLast, ViewsRejectOperandsThatVaryOverSpace) {
  TensorValue last = TensorValue::allocate(DataType::Float, {1, 4, 3, 3});
  last.setChannelsLast(true);
  RunValue a = last, channel = TensorValue::allocate(DataType::Float, {4, 1, 1}),
           row = TensorValue::allocate(DataType::Float, {3}), scalar = TensorValue::scalar(DataType::Float, 2.0f);
  Dims logical;
  std::vector<const RunValue*> ok = {&a, &channel, &scalar};
  auto views = channelsLastViews(ok, logical);
  ASSERT_TRUE(views.has_value());
  EXPECT_EQ(logical, (Dims{1, 4, 3, 3}));
  EXPECT_EQ(std::get<TensorValue>((*views)[0]).dims(), (Dims{1, 3, 3, 4}));
  EXPECT_EQ(std::get<TensorValue>((*views)[1]).dims(), (Dims{1, 1, 1, 4}));
  // A channels-last [N,C,1,1] operand (a Conv over a pooled vector) reads the same in both orders.
  TensorValue scale = TensorValue::allocate(DataType::Float, {1, 4, 1, 1});
  scale.setChannelsLast(true);
  RunValue scaleValue = scale;
  std::vector<const RunValue*> withScale = {&scaleValue, &a};
  views = channelsLastViews(withScale, logical);
  ASSERT_TRUE(views.has_value());
  EXPECT_EQ(logical, (Dims{1, 4, 3, 3}));
  EXPECT_EQ(std::get<TensorValue>((*views)[0]).dims(), (Dims{1, 1, 1, 4}));
  std::vector<const RunValue*> bad = {&a, &row};
  EXPECT_FALSE(channelsLastViews(bad, logical).has_value());
}

}  // namespace
}  // namespace onyx::exec::testing
