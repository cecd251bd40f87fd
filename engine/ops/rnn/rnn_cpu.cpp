// Recurrent layers: LSTM, GRU and RNN (forward, reverse, bidirectional; default activations plus the
// common alternatives), float32/float64, layout 0 and 1. Gate matrices use plain loops over rows.
#include <cmath>
#include <functional>

#include "exec/kernel_util.h"
#include "ops/rnn/rnn_checks.h"

namespace onyx::exec {
namespace {

using Activation = std::function<float(float)>;

Expected<Activation> activation(const KernelContext& ctx, const std::string& name, float alpha, float beta) {
  if (name == "Sigmoid") return Activation([](float x) { return 1.0f / (1.0f + std::exp(-x)); });
  if (name == "Tanh") return Activation([](float x) { return std::tanh(x); });
  if (name == "Relu") return Activation([](float x) { return x > 0 ? x : 0.0f; });
  if (name == "HardSigmoid")
    return Activation([=](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
  if (name == "LeakyRelu") return Activation([=](float x) { return x >= 0 ? x : alpha * x; });
  if (name == "ThresholdedRelu") return Activation([=](float x) { return x > alpha ? x : 0.0f; });
  if (name == "ScaledTanh") return Activation([=](float x) { return alpha * std::tanh(beta * x); });
  if (name == "Elu") return Activation([=](float x) { return x >= 0 ? x : alpha * (std::exp(x) - 1); });
  if (name == "Softsign") return Activation([](float x) { return x / (1 + std::abs(x)); });
  if (name == "Softplus") return Activation([](float x) { return std::log1p(std::exp(x)); });
  if (name == "Affine") return Activation([=](float x) { return alpha * x + beta; });
  return ctx.error("does not support activation " + name);
}

enum class Cell { Lstm, Gru, Rnn };

// y[j] = sum_k x[k] * W[j][k] for a [rows, cols] row-major W.
void gemv(const float* w, const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t j = 0; j < rows; ++j) {
    const float* row = w + j * cols;
    float acc = 0;
    for (int64_t k = 0; k < cols; ++k) acc += row[k] * x[k];
    y[j] += acc;
  }
}

template <Cell C>
constexpr int64_t kGates = C == Cell::Lstm ? 4 : (C == Cell::Gru ? 3 : 1);

// The activations of every direction, perDir of them each (f, g and h for LSTM): the attribute's, else
// the cell's defaults, with their alpha and beta.
template <Cell C>
Expected<std::vector<Activation>> activationsOf(const KernelContext& ctx, int64_t dirs, size_t& perDir) {
  auto names = ctx.attrStrings("activations");
  auto alphas = ctx.attrFloats("activation_alpha").value_or(std::vector<float>{});
  auto betas = ctx.attrFloats("activation_beta").value_or(std::vector<float>{});
  std::vector<std::string> defaults = C == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : C == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                       : std::vector<std::string>{"Tanh"};
  perDir = defaults.size();
  std::vector<Activation> acts;
  for (size_t i = 0; i < perDir * size_t(dirs); ++i) {
    std::string name = names && i < names->size() ? (*names)[i] : defaults[i % perDir];
    float alpha =
        i < alphas.size() ? alphas[i] : (name == "LeakyRelu" ? 0.01f : (name == "HardSigmoid" ? 0.2f : 1.0f));
    float beta = i < betas.size() ? betas[i] : (name == "HardSigmoid" ? 0.5f : 0.0f);
    auto act = activation(ctx, name, alpha, beta);
    if (!act) return act.error();
    acts.push_back(*act);
  }
  return acts;
}

// The node's inputs as float vectors, absent optional ones as zeros, initial states as [dirs, batch,
// hidden] whatever the layout.
struct RecurrentInputs {
  int64_t layout = 0, seqLen = 0, batch = 0, inputSize = 0, hidden = 0, dirs = 1;
  std::vector<float> x, w, r, b, h0, c0, peep;
  std::vector<int64_t> lens;
};

std::vector<float> toFloat(const TensorValue& t) {
  std::vector<float> v(static_cast<size_t>(t.count()));
  for (int64_t i = 0; i < t.count(); ++i) v[size_t(i)] = float(t.doubleAt(i));
  return v;
}

template <Cell C>
RecurrentInputs readInputs(const KernelContext& ctx, const TensorValue& X, const TensorValue& W,
                           const TensorValue& R, int64_t dirs) {
  constexpr int64_t gates = kGates<C>;
  RecurrentInputs in;
  in.layout = ctx.attrInt("layout", 0);
  in.seqLen = in.layout ? X.dim(1) : X.dim(0);
  in.batch = in.layout ? X.dim(0) : X.dim(1);
  in.inputSize = X.dim(2);
  in.hidden = ctx.attrInt("hidden_size", R.dim(2));
  in.dirs = dirs;
  const int64_t batch = in.batch, hidden = in.hidden;
  auto orZeros = [&](bool present, size_t i, int64_t count) {
    return present ? toFloat(ctx.input(i)) : std::vector<float>(static_cast<size_t>(count), 0.0f);
  };
  in.x = toFloat(X);
  in.w = toFloat(W);
  in.r = toFloat(R);
  in.b = orZeros(ctx.hasInput(3), 3, dirs * 2 * gates * hidden);
  in.lens.assign(static_cast<size_t>(batch), in.seqLen);
  if (ctx.hasInput(4)) in.lens = ctx.input(4).toInts();
  in.h0 = orZeros(ctx.hasInput(5), 5, dirs * batch * hidden);
  in.c0 = orZeros(C == Cell::Lstm && ctx.hasInput(6), 6, dirs * batch * hidden);
  in.peep = orZeros(C == Cell::Lstm && ctx.hasInput(7), 7, dirs * 3 * hidden);
  if (in.layout) {  // initial states come as [batch, dirs, hidden]
    auto swap01 = [&](std::vector<float>& v) {
      std::vector<float> out(v.size());
      for (int64_t bi = 0; bi < batch; ++bi)
        for (int64_t d = 0; d < dirs; ++d)
          for (int64_t h = 0; h < hidden; ++h)
            out[size_t((d * batch + bi) * hidden + h)] = v[size_t((bi * dirs + d) * hidden + h)];
      v = out;
    };
    if (ctx.hasInput(5)) swap01(in.h0);
    if (C == Cell::Lstm && ctx.hasInput(6)) swap01(in.c0);
  }
  return in;
}

// One direction's weights, biases, peepholes and activations, and the cell's attributes.
struct DirectionCell {
  const float *W, *R, *Wb, *Rb, *P;
  const Activation *f, *g, *hAct;
  int64_t hidden;
  float clip;
  bool linearBeforeReset;
  bool inputForget;
  float clipped(float v) const { return clip > 0 ? std::max(-clip, std::min(clip, v)) : v; }
};

// LSTM, gate order i, o, f, c: the new c and h from the gates' input (xg) and recurrent (hg) products.
void lstmStep(const DirectionCell& cell, const std::vector<float>& xg, const std::vector<float>& hg,
              std::vector<float>& h, std::vector<float>& c) {
  const int64_t hidden = cell.hidden;
  const float* P = cell.P;
  const Activation &f = *cell.f, &g = *cell.g, &hAct = *cell.hAct;
  for (int64_t k = 0; k < hidden; ++k) {
    float i = f(cell.clipped(xg[size_t(k)] + hg[size_t(k)] + P[k] * c[size_t(k)]));
    float fo = f(cell.clipped(xg[size_t(2 * hidden + k)] + hg[size_t(2 * hidden + k)] +
                              P[2 * hidden + k] * c[size_t(k)]));
    if (cell.inputForget) fo = 1 - i;
    float cc = g(cell.clipped(xg[size_t(3 * hidden + k)] + hg[size_t(3 * hidden + k)]));
    c[size_t(k)] = fo * c[size_t(k)] + i * cc;
    float o = f(cell.clipped(xg[size_t(hidden + k)] + hg[size_t(hidden + k)] + P[hidden + k] * c[size_t(k)]));
    h[size_t(k)] = o * hAct(c[size_t(k)]);
  }
}

// GRU, gate order z, r, h: the new h. Without linear_before_reset the h gate multiplies R_h by r * h.
void gruStep(const DirectionCell& cell, std::vector<float>& xg, const std::vector<float>& hg,
             std::vector<float>& h) {
  const int64_t hidden = cell.hidden;
  const Activation &f = *cell.f, &g = *cell.g;
  std::vector<float> hNew(static_cast<size_t>(hidden));
  for (int64_t k = 0; k < hidden; ++k) {
    float z = f(cell.clipped(xg[size_t(k)] + hg[size_t(k)]));
    float rr = f(cell.clipped(xg[size_t(hidden + k)] + hg[size_t(hidden + k)]));
    float hh = cell.linearBeforeReset
                   ? g(cell.clipped(xg[size_t(2 * hidden + k)] + rr * hg[size_t(2 * hidden + k)]))
                   : 0.0f;
    hNew[size_t(k)] = hh;
    xg[size_t(k)] = z;
    xg[size_t(hidden + k)] = rr;
  }
  if (!cell.linearBeforeReset) {
    std::vector<float> rh(static_cast<size_t>(hidden));
    for (int64_t q = 0; q < hidden; ++q) rh[size_t(q)] = xg[size_t(hidden + q)] * h[size_t(q)];
    for (int64_t k = 0; k < hidden; ++k) {
      float acc = cell.Rb[2 * hidden + k];
      const float* row = cell.R + (2 * hidden + k) * hidden;
      for (int64_t q = 0; q < hidden; ++q) acc += row[q] * rh[size_t(q)];
      hNew[size_t(k)] = g(cell.clipped(xg[size_t(2 * hidden + k)] + acc));
    }
  }
  for (int64_t k = 0; k < hidden; ++k) {
    float z = xg[size_t(k)];
    h[size_t(k)] = (1 - z) * hNew[size_t(k)] + z * h[size_t(k)];
  }
}

// Runs direction d of batch row bi over its sequence: Y's entries, and the final h and c.
template <Cell C>
void runSequence(const RecurrentInputs& in, const DirectionCell& cell, int64_t d, int64_t bi, bool reverse,
                 std::vector<float>& Y, std::vector<float>& hLast, std::vector<float>& cLast) {
  constexpr int64_t gates = kGates<C>;
  const int64_t hidden = in.hidden, batch = in.batch, seqLen = in.seqLen, dirs = in.dirs;
  const int64_t state = (d * batch + bi) * hidden;
  std::vector<float> h(in.h0.begin() + state, in.h0.begin() + state + hidden);
  std::vector<float> c(in.c0.begin() + state, in.c0.begin() + state + hidden);
  std::vector<float> xg(static_cast<size_t>(gates * hidden)), hg(static_cast<size_t>(gates * hidden));
  int64_t len = std::min<int64_t>(in.lens[size_t(bi)], seqLen);
  for (int64_t step = 0; step < len; ++step) {
    int64_t t = reverse ? len - 1 - step : step;
    const float* xt = in.x.data() + (in.layout ? (bi * seqLen + t) : (t * batch + bi)) * in.inputSize;
    for (int64_t j = 0; j < gates * hidden; ++j) {
      xg[size_t(j)] = cell.Wb[j];
      hg[size_t(j)] = cell.Rb[j];
    }
    gemv(cell.W, xt, xg.data(), gates * hidden, in.inputSize);
    gemv(cell.R, h.data(), hg.data(), gates * hidden, hidden);
    if constexpr (C == Cell::Lstm)
      lstmStep(cell, xg, hg, h, c);
    else if constexpr (C == Cell::Gru)
      gruStep(cell, xg, hg, h);
    else
      for (int64_t k = 0; k < hidden; ++k)
        h[size_t(k)] = (*cell.f)(cell.clipped(xg[size_t(k)] + hg[size_t(k)]));
    for (int64_t k = 0; k < hidden; ++k) {
      size_t at = in.layout ? size_t(((bi * seqLen + t) * dirs + d) * hidden + k)
                            : size_t(((t * dirs + d) * batch + bi) * hidden + k);
      Y[at] = h[size_t(k)];
    }
  }
  for (int64_t k = 0; k < hidden; ++k) {
    size_t at = in.layout ? size_t((bi * dirs + d) * hidden + k) : size_t((d * batch + bi) * hidden + k);
    hLast[at] = h[size_t(k)];
    cLast[at] = c[size_t(k)];
  }
}

template <Cell C>
Expected<void> recurrentKernel(KernelContext& ctx) {
  auto tensors = requireTensors<3>(ctx);
  if (!tensors) return tensors.error();
  auto [X, Wt, Rt] = *tensors;
  if (X.dtype() != DataType::Float && X.dtype() != DataType::Double) return ctx.unsupportedType(0);
  if (X.rank() != 3) return ctx.error("X must be 3-D, got " + X.describe(), 0);
  const int64_t layout = ctx.attrInt("layout", 0);
  const int64_t inputSize = X.dim(2);
  // R's rank first: hidden_size defaults to its last dim (fuzz_run: a 1-D R read past its dims under ASan).
  if (Rt.rank() != 3) return ctx.error("R must be 3-D, got " + Rt.describe(), 2);
  const int64_t hidden = ctx.attrInt("hidden_size", Rt.dim(2));
  std::string direction = ctx.attrString("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  constexpr int64_t gates = kGates<C>;
  const int64_t batchRows = layout ? X.dim(0) : X.dim(1);
  if (auto ok = checkRecurrentOperands(ctx, {gates, dirs, batchRows, inputSize, hidden, C == Cell::Lstm}); !ok)
    return ok.error();
  size_t perDir = 0;
  auto acts = activationsOf<C>(ctx, dirs, perDir);
  if (!acts) return acts.error();
  const RecurrentInputs in = readInputs<C>(ctx, X, Wt, Rt, dirs);
  const int64_t seqLen = in.seqLen, batch = in.batch;
  std::vector<float> Y(static_cast<size_t>(seqLen * dirs * batch * hidden), 0.0f);
  std::vector<float> hLast(static_cast<size_t>(dirs * batch * hidden)),
      cLast(static_cast<size_t>(dirs * batch * hidden));
  for (int64_t d = 0; d < dirs; ++d) {
    DirectionCell cell;
    cell.W = in.w.data() + d * gates * hidden * inputSize;
    cell.R = in.r.data() + d * gates * hidden * hidden;
    cell.Wb = in.b.data() + d * 2 * gates * hidden;
    cell.Rb = cell.Wb + gates * hidden;
    cell.P = in.peep.data() + d * 3 * hidden;
    cell.f = &(*acts)[size_t(d) * perDir];
    cell.g = &(*acts)[size_t(d) * perDir + (perDir > 1 ? 1 : 0)];
    cell.hAct = &(*acts)[size_t(d) * perDir + (perDir > 2 ? 2 : 0)];
    cell.hidden = hidden;
    cell.clip = ctx.attrFloat("clip", 0.0f);
    cell.linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
    cell.inputForget = ctx.attrInt("input_forget", 0) != 0;
    const bool reverse = direction == "reverse" || d == 1;
    for (int64_t bi = 0; bi < batch; ++bi) runSequence<C>(in, cell, d, bi, reverse, Y, hLast, cLast);
  }
  DataType dt = X.dtype();
  auto store = [&](size_t index, Dims dims, const std::vector<float>& v) -> Expected<void> {
    if (!ctx.wantsOutput(index)) return {};
    auto out = ctx.allocateOutput(index, dt, dims);
    if (!out) return out.error();
    for (size_t i = 0; i < v.size(); ++i) {
      if (dt == DataType::Float)
        (*out)->template data<float>()[i] = v[i];
      else
        (*out)->template data<double>()[i] = v[i];
    }
    return {};
  };
  Dims yDims = layout ? Dims{batch, seqLen, dirs, hidden} : Dims{seqLen, dirs, batch, hidden};
  Dims hDims = layout ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden};
  if (auto e = store(0, yDims, Y); !e) return e;
  if (auto e = store(1, hDims, hLast); !e) return e;
  if (C == Cell::Lstm)
    if (auto e = store(2, hDims, cLast); !e) return e;
  return {};
}

}  // namespace

void registerRnnCpuKernels(KernelRegistry& r) {
  r.add(kernel("LSTM", recurrentKernel<Cell::Lstm>, 1));
  r.add(kernel("GRU", recurrentKernel<Cell::Gru>, 1));
  r.add(kernel("RNN", recurrentKernel<Cell::Rnn>, 1));
}

}  // namespace onyx::exec
