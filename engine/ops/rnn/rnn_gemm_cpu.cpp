// Recurrent layers through GEMM (variant "gemm"): float32 LSTM, GRU and RNN with their default activations.
// The input projection of every time step is one GEMM before the loop; each step is then one GEMM of the
// hidden state by R plus vectorised gate math. Sequence lengths, both directions, both layouts, clip,
// peepholes, input_forget and linear_before_reset as in rnn_cpu.cpp, which stays the oracle and takes
// other types and activations.
#include <algorithm>
#include <cstring>
#include <vector>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/gemm.h"
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

enum class Cell { Lstm, Gru, Rnn };

template <Cell C>
constexpr int64_t kGates = C == Cell::Lstm ? 4 : (C == Cell::Gru ? 3 : 1);

// Only the default activations (what exporters emit); others go to the reference kernel.
template <Cell C>
bool defaultActivations(const Node& node, int) {
  const Attribute* a = node.attribute("activations");
  if (!a) return true;
  if (!a->getStrings()) return false;
  std::vector<std::string> defaults = C == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : C == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                       : std::vector<std::string>{"Tanh"};
  const auto& names = *a->getStrings();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] != defaults[i % defaults.size()]) return false;
  return true;
}

void clipInPlace(float* x, int64_t n, float clip) {
  if (clip > 0) fastClip(x, x, n, -clip, clip);
}

struct Shapes {
  int64_t seqLen, batch, inputSize, hidden, dirs;
  bool batchFirst;
  int64_t xRow(int64_t t, int64_t b) const { return batchFirst ? b * seqLen + t : t * batch + b; }
  int64_t yOffset(int64_t t, int64_t d, int64_t b) const {
    return (batchFirst ? (b * seqLen + t) * dirs + d : (t * dirs + d) * batch + b) * hidden;
  }
  int64_t stateOffset(int64_t d, int64_t b) const {
    return (batchFirst ? b * dirs + d : d * batch + b) * hidden;
  }
};

template <Cell C>
Expected<void> recurrentGemm(KernelContext& ctx) {
  const TensorValue& X = ctx.input(0);
  const TensorValue& W = ctx.input(1);
  const TensorValue& R = ctx.input(2);
  bool floats = X.dtype() == DataType::Float && W.dtype() == DataType::Float && R.dtype() == DataType::Float;
  for (size_t i = 3; i < 8 && floats; ++i)  // sequence_lens (4) is int32
    floats = i == 4 || !ctx.hasInput(i) || ctx.input(i).dtype() == DataType::Float;
  if (!floats || X.rank() != 3 || W.rank() != 3 || R.rank() != 3) return runReferenceKernel(ctx);
  constexpr int64_t G = kGates<C>;
  Shapes s;
  s.batchFirst = ctx.attrInt("layout", 0) != 0;
  s.seqLen = s.batchFirst ? X.dim(1) : X.dim(0);
  s.batch = s.batchFirst ? X.dim(0) : X.dim(1);
  s.inputSize = X.dim(2);
  s.hidden = ctx.attrInt("hidden_size", R.dim(2));
  std::string direction = ctx.attrString("direction", "forward");
  s.dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t H = s.hidden;
  if (W.dim(0) != s.dirs || W.dim(1) != G * H || W.dim(2) != s.inputSize)
    return ctx.error("W " + W.describe() + " does not match the input size and hidden_size", 1);
  if (R.dim(0) != s.dirs || R.dim(1) != G * H || R.dim(2) != H)
    return ctx.error("R " + R.describe() + " does not match hidden_size " + std::to_string(H), 2);
  auto expectCount = [&](size_t i, int64_t count, const char* what) -> Expected<void> {
    if (ctx.hasInput(i) && ctx.input(i).count() != count)
      return ctx.error(std::string(what) + " " + ctx.input(i).describe() + " should hold " +
                           std::to_string(count) + " values",
                       int(i));
    return {};
  };
  if (auto e = expectCount(3, s.dirs * 2 * G * H, "B"); !e) return e;
  if (auto e = expectCount(5, s.dirs * s.batch * H, "initial_h"); !e) return e;
  if (C == Cell::Lstm) {
    if (auto e = expectCount(6, s.dirs * s.batch * H, "initial_c"); !e) return e;
    if (auto e = expectCount(7, s.dirs * 3 * H, "P"); !e) return e;
  }
  std::vector<int64_t> lens(size_t(s.batch), s.seqLen);
  if (ctx.hasInput(4)) {
    lens = ctx.input(4).toInts();
    if (int64_t(lens.size()) != s.batch)
      return ctx.error("sequence_lens " + ctx.input(4).describe() + " should hold one length per batch row", 4);
    for (int64_t& len : lens) len = std::clamp<int64_t>(len, 0, s.seqLen);
  }
  float clip = ctx.attrFloat("clip", 0.0f);
  bool linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  bool inputForget = ctx.attrInt("input_forget", 0) != 0;

  Dims yDims = s.batchFirst ? Dims{s.batch, s.seqLen, s.dirs, H} : Dims{s.seqLen, s.dirs, s.batch, H};
  Dims stateDims = s.batchFirst ? Dims{s.batch, s.dirs, H} : Dims{s.dirs, s.batch, H};
  float* y = nullptr;
  if (ctx.wantsOutput(0)) {
    auto out = ctx.allocateOutput(0, DataType::Float, yDims);
    if (!out) return out.error();
    y = (*out)->template data<float>();
    std::fill(y, y + (*out)->count(), 0.0f);
  }
  std::vector<float> hLast(size_t(s.dirs * s.batch * H)), cLast(hLast.size());

  const int64_t rows = s.seqLen * s.batch;
  const float* x = X.data<float>();
  // A bidirectional cell runs its two directions side by side, one thread each: every step's product is
  // too small to split well, and the directions share nothing until the outputs.
  const bool sideBySide = s.dirs == 2;
  auto product = sideBySide ? sgemmSerial : sgemm;
  auto runDirection = [&](int64_t d) {
    std::vector<float> xproj(size_t(rows * G * H)), hproj(size_t(s.batch * G * H));
    std::vector<float> h(size_t(s.batch * H)), c(size_t(s.batch * H)), rh(size_t(s.batch * H));
    std::vector<float> gate(size_t(4 * H)), combinedBias(size_t(G * H));
    bool reverse = direction == "reverse" || d == 1;
    const float* w = W.data<float>() + d * G * H * s.inputSize;
    const float* r = R.data<float>() + d * G * H * H;
    const float* wb = ctx.hasInput(3) ? ctx.input(3).data<float>() + d * 2 * G * H : nullptr;
    const float* rb = wb ? wb + G * H : nullptr;
    const float* peep = C == Cell::Lstm && ctx.hasInput(7) ? ctx.input(7).data<float>() + d * 3 * H : nullptr;
    // Biases that can be added once to the input projection: all but GRU's h gate recurrence bias when the
    // reset gate multiplies (R_h h + Rb_h).
    std::fill(combinedBias.begin(), combinedBias.end(), 0.0f);
    if (wb)
      for (int64_t j = 0; j < G * H; ++j)
        combinedBias[size_t(j)] = wb[j] + (C == Cell::Gru && linearBeforeReset && j >= 2 * H ? 0.0f : rb[j]);
    product(false, true, rows, G * H, s.inputSize, 1.0f, x, s.inputSize, w, s.inputSize, 0.0f, xproj.data(), G * H);
    for (int64_t row = 0; row < rows; ++row) {
      float* p = xproj.data() + row * G * H;
      for (int64_t j = 0; j < G * H; ++j) p[j] += combinedBias[size_t(j)];
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      int64_t at = s.stateOffset(d, b);
      for (int64_t k = 0; k < H; ++k) {
        h[size_t(b * H + k)] = ctx.hasInput(5) ? ctx.input(5).data<float>()[at + k] : 0.0f;
        c[size_t(b * H + k)] = C == Cell::Lstm && ctx.hasInput(6) ? ctx.input(6).data<float>()[at + k] : 0.0f;
      }
    }
    int64_t steps = *std::max_element(lens.begin(), lens.end());
    for (int64_t step = 0; step < steps; ++step) {
      // Recurrent projection of every batch row at once (GRU without linear_before_reset: z and r only).
      int64_t recurrentGates = C == Cell::Gru && !linearBeforeReset ? 2 : G;
      product(false, true, s.batch, recurrentGates * H, H, 1.0f, h.data(), H, r, H, 0.0f, hproj.data(), G * H);
      for (int64_t b = 0; b < s.batch; ++b) {
        if (step >= lens[size_t(b)]) continue;
        int64_t t = reverse ? lens[size_t(b)] - 1 - step : step;
        const float* xp = xproj.data() + s.xRow(t, b) * G * H;
        const float* hp = hproj.data() + b * G * H;
        float* hb = h.data() + b * H;
        float* cb = c.data() + b * H;
        float* g = gate.data();
        if constexpr (C == Cell::Lstm) {  // gate order i, o, f, c
          float *gi = g, *go = g + H, *gf = g + 2 * H, *gc = g + 3 * H;
          for (int64_t k = 0; k < H; ++k) {
            gi[k] = xp[k] + hp[k] + (peep ? peep[k] * cb[k] : 0.0f);
            gf[k] = xp[2 * H + k] + hp[2 * H + k] + (peep ? peep[2 * H + k] * cb[k] : 0.0f);
            gc[k] = xp[3 * H + k] + hp[3 * H + k];
          }
          clipInPlace(g, 4 * H, clip);
          fastSigmoid(gi, gi, H, 0, 0);
          fastSigmoid(gf, gf, H, 0, 0);
          fastTanh(gc, gc, H, 0, 0);
          for (int64_t k = 0; k < H; ++k) {
            float f = inputForget ? 1.0f - gi[k] : gf[k];
            cb[k] = f * cb[k] + gi[k] * gc[k];
            go[k] = xp[H + k] + hp[H + k] + (peep ? peep[H + k] * cb[k] : 0.0f);
          }
          clipInPlace(go, H, clip);
          fastSigmoid(go, go, H, 0, 0);
          fastTanh(cb, gc, H, 0, 0);
          for (int64_t k = 0; k < H; ++k) hb[k] = go[k] * gc[k];
        } else if constexpr (C == Cell::Gru) {  // gate order z, r, h
          float *gz = g, *gr = g + H, *gh = g + 2 * H;
          for (int64_t k = 0; k < 2 * H; ++k) g[k] = xp[k] + hp[k];
          clipInPlace(g, 2 * H, clip);
          fastSigmoid(g, g, 2 * H, 0, 0);
          if (linearBeforeReset) {
            const float* rbh = rb ? rb + 2 * H : nullptr;
            for (int64_t k = 0; k < H; ++k) gh[k] = xp[2 * H + k] + gr[k] * (hp[2 * H + k] + (rbh ? rbh[k] : 0.0f));
          } else {
            float* rhb = rh.data() + b * H;
            for (int64_t k = 0; k < H; ++k) rhb[k] = gr[k] * hb[k];
            sgemmSerial(false, true, 1, H, H, 1.0f, rhb, H, r + 2 * H * H, H, 0.0f, gh, H);
            for (int64_t k = 0; k < H; ++k) gh[k] += xp[2 * H + k];
          }
          clipInPlace(gh, H, clip);
          fastTanh(gh, gh, H, 0, 0);
          for (int64_t k = 0; k < H; ++k) hb[k] = (1.0f - gz[k]) * gh[k] + gz[k] * hb[k];
        } else {
          for (int64_t k = 0; k < H; ++k) g[k] = xp[k] + hp[k];
          clipInPlace(g, H, clip);
          fastTanh(g, hb, H, 0, 0);
        }
        if (y) std::memcpy(y + s.yOffset(t, d, b), hb, size_t(H) * sizeof(float));
      }
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      int64_t at = s.stateOffset(d, b);
      std::memcpy(hLast.data() + at, h.data() + b * H, size_t(H) * sizeof(float));
      std::memcpy(cLast.data() + at, c.data() + b * H, size_t(H) * sizeof(float));
    }
  };
  if (sideBySide) {
    ctx.parallelFor(2, 1, [&](int64_t b, int64_t e) {
      for (int64_t d = b; d < e; ++d) runDirection(d);
    });
  } else {
    runDirection(0);
  }
  auto store = [&](size_t index, const std::vector<float>& v) -> Expected<void> {
    if (!ctx.wantsOutput(index)) return {};
    auto out = ctx.allocateOutput(index, DataType::Float, stateDims);
    if (!out) return out.error();
    std::memcpy((*out)->raw(), v.data(), v.size() * sizeof(float));
    return {};
  };
  if (auto e = store(1, hLast); !e) return e;
  if (C == Cell::Lstm)
    if (auto e = store(2, cLast); !e) return e;
  return {};
}

KernelDef gemmVariant(std::string op, KernelFunction function, bool (*supports)(const Node&, int)) {
  KernelDef def = kernel(std::move(op), function, 1);
  def.variant = "gemm";
  def.priority = 10;
  def.supports = supports;
  return def;
}

}  // namespace

void registerRnnGemmCpuKernels(KernelRegistry& r) {
  r.add(gemmVariant("LSTM", recurrentGemm<Cell::Lstm>, defaultActivations<Cell::Lstm>));
  r.add(gemmVariant("GRU", recurrentGemm<Cell::Gru>, defaultActivations<Cell::Gru>));
  r.add(gemmVariant("RNN", recurrentGemm<Cell::Rnn>, defaultActivations<Cell::Rnn>));
}

}  // namespace onyx::exec
