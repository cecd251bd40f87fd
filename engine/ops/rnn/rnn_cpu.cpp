// Recurrent layers: LSTM, GRU and RNN (forward, reverse, bidirectional; default activations plus the
// common alternatives), float32/float64, layout 0 and 1. Gate matrices use plain loops over rows.
#include <cmath>
#include <functional>

#include "exec/kernel_util.h"

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
Expected<void> recurrentKernel(KernelContext& ctx) {
  auto xs = ctx.requireTensor(0);
  if (!xs) return xs.error();
  auto ws = ctx.requireTensor(1);
  if (!ws) return ws.error();
  auto rs = ctx.requireTensor(2);
  if (!rs) return rs.error();
  if ((*xs)->dtype() != DataType::Float && (*xs)->dtype() != DataType::Double) return ctx.unsupportedType(0);
  auto toFloat = [](const TensorValue& t) {
    std::vector<float> v(static_cast<size_t>(t.count()));
    for (int64_t i = 0; i < t.count(); ++i) v[size_t(i)] = float(t.doubleAt(i));
    return v;
  };
  const TensorValue& X = **xs;
  if (X.rank() != 3) return ctx.error("X must be 3-D, got " + X.describe(), 0);
  int64_t layout = ctx.attrInt("layout", 0);
  int64_t seqLen = layout ? X.dim(1) : X.dim(0), batch = layout ? X.dim(0) : X.dim(1), inputSize = X.dim(2);
  int64_t hidden = ctx.attrInt("hidden_size", (*rs)->dim(2));
  std::string direction = ctx.attrString("direction", "forward");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  constexpr int64_t gates = C == Cell::Lstm ? 4 : (C == Cell::Gru ? 3 : 1);
  if ((*ws)->rank() != 3 || (*ws)->dim(0) != dirs || (*ws)->dim(1) != gates * hidden ||
      (*ws)->dim(2) != inputSize)
    return ctx.error("W " + (*ws)->describe() + " does not match the input size and hidden_size", 1);
  float clip = ctx.attrFloat("clip", 0.0f);
  bool linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  int64_t inputForget = ctx.attrInt("input_forget", 0);
  auto names = ctx.attrStrings("activations");
  auto alphas = ctx.attrFloats("activation_alpha").value_or(std::vector<float>{});
  auto betas = ctx.attrFloats("activation_beta").value_or(std::vector<float>{});
  std::vector<std::string> defaults = C == Cell::Lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : C == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                       : std::vector<std::string>{"Tanh"};
  size_t perDir = defaults.size();
  std::vector<Activation> acts;
  for (size_t i = 0; i < perDir * size_t(dirs); ++i) {
    std::string name = names && i < names->size() ? (*names)[i] : defaults[i % perDir];
    float alpha =
        i < alphas.size() ? alphas[i] : (name == "LeakyRelu" ? 0.01f : (name == "HardSigmoid" ? 0.2f : 1.0f));
    float beta = i < betas.size() ? betas[i] : (name == "HardSigmoid" ? 0.5f : 0.0f);
    auto a = activation(ctx, name, alpha, beta);
    if (!a) return a.error();
    acts.push_back(*a);
  }
  std::vector<float> x = toFloat(X), w = toFloat(**ws), r = toFloat(**rs);
  std::vector<float> b = ctx.hasInput(3)
                             ? toFloat(ctx.input(3))
                             : std::vector<float>(static_cast<size_t>(dirs * 2 * gates * hidden), 0.0f);
  std::vector<int64_t> lens(static_cast<size_t>(batch), seqLen);
  if (ctx.hasInput(4)) lens = ctx.input(4).toInts();
  std::vector<float> h0 = ctx.hasInput(5)
                              ? toFloat(ctx.input(5))
                              : std::vector<float>(static_cast<size_t>(dirs * batch * hidden), 0.0f);
  std::vector<float> c0 = C == Cell::Lstm && ctx.hasInput(6)
                              ? toFloat(ctx.input(6))
                              : std::vector<float>(static_cast<size_t>(dirs * batch * hidden), 0.0f);
  std::vector<float> peep = C == Cell::Lstm && ctx.hasInput(7)
                                ? toFloat(ctx.input(7))
                                : std::vector<float>(static_cast<size_t>(dirs * 3 * hidden), 0.0f);
  if (layout) {  // initial states come as [batch, dirs, hidden]
    auto swap01 = [&](std::vector<float>& v) {
      std::vector<float> out(v.size());
      for (int64_t bi = 0; bi < batch; ++bi)
        for (int64_t d = 0; d < dirs; ++d)
          for (int64_t h = 0; h < hidden; ++h)
            out[size_t((d * batch + bi) * hidden + h)] = v[size_t((bi * dirs + d) * hidden + h)];
      v = out;
    };
    if (ctx.hasInput(5)) swap01(h0);
    if (C == Cell::Lstm && ctx.hasInput(6)) swap01(c0);
  }
  std::vector<float> Y(static_cast<size_t>(seqLen * dirs * batch * hidden), 0.0f);
  std::vector<float> hLast(static_cast<size_t>(dirs * batch * hidden)),
      cLast(static_cast<size_t>(dirs * batch * hidden));
  auto clipped = [&](float v) { return clip > 0 ? std::max(-clip, std::min(clip, v)) : v; };
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const float* W = w.data() + d * gates * hidden * inputSize;
    const float* R = r.data() + d * gates * hidden * hidden;
    const float* Wb = b.data() + d * 2 * gates * hidden;
    const float* Rb = Wb + gates * hidden;
    const float* P = peep.data() + d * 3 * hidden;
    const Activation& f = acts[size_t(d) * perDir];
    const Activation& g = acts[size_t(d) * perDir + (perDir > 1 ? 1 : 0)];
    const Activation& hAct = acts[size_t(d) * perDir + (perDir > 2 ? 2 : 0)];
    for (int64_t bi = 0; bi < batch; ++bi) {
      std::vector<float> h(h0.begin() + (d * batch + bi) * hidden,
                           h0.begin() + (d * batch + bi + 1) * hidden);
      std::vector<float> c(c0.begin() + (d * batch + bi) * hidden,
                           c0.begin() + (d * batch + bi + 1) * hidden);
      std::vector<float> xg(static_cast<size_t>(gates * hidden)), hg(static_cast<size_t>(gates * hidden));
      int64_t len = std::min<int64_t>(lens[size_t(bi)], seqLen);
      for (int64_t step = 0; step < len; ++step) {
        int64_t t = reverse ? len - 1 - step : step;
        const float* xt = x.data() + (layout ? (bi * seqLen + t) : (t * batch + bi)) * inputSize;
        for (int64_t j = 0; j < gates * hidden; ++j) {
          xg[size_t(j)] = Wb[j];
          hg[size_t(j)] = Rb[j];
        }
        gemv(W, xt, xg.data(), gates * hidden, inputSize);
        gemv(R, h.data(), hg.data(), gates * hidden, hidden);
        if constexpr (C == Cell::Lstm) {  // gate order i, o, f, c
          for (int64_t k = 0; k < hidden; ++k) {
            float i = f(clipped(xg[size_t(k)] + hg[size_t(k)] + P[k] * c[size_t(k)]));
            float fo = f(clipped(xg[size_t(2 * hidden + k)] + hg[size_t(2 * hidden + k)] +
                                 P[2 * hidden + k] * c[size_t(k)]));
            if (inputForget) fo = 1 - i;
            float cc = g(clipped(xg[size_t(3 * hidden + k)] + hg[size_t(3 * hidden + k)]));
            c[size_t(k)] = fo * c[size_t(k)] + i * cc;
            float o =
                f(clipped(xg[size_t(hidden + k)] + hg[size_t(hidden + k)] + P[hidden + k] * c[size_t(k)]));
            h[size_t(k)] = o * hAct(c[size_t(k)]);
          }
        } else if constexpr (C == Cell::Gru) {  // gate order z, r, h
          std::vector<float> hNew(static_cast<size_t>(hidden));
          for (int64_t k = 0; k < hidden; ++k) {
            float z = f(clipped(xg[size_t(k)] + hg[size_t(k)]));
            float rr = f(clipped(xg[size_t(hidden + k)] + hg[size_t(hidden + k)]));
            float hh = linearBeforeReset
                           ? g(clipped(xg[size_t(2 * hidden + k)] + rr * hg[size_t(2 * hidden + k)]))
                           : 0.0f;
            hNew[size_t(k)] = hh;
            xg[size_t(k)] = z;
            xg[size_t(hidden + k)] = rr;
          }
          if (!linearBeforeReset) {
            std::vector<float> rh(static_cast<size_t>(hidden));
            for (int64_t q = 0; q < hidden; ++q) rh[size_t(q)] = xg[size_t(hidden + q)] * h[size_t(q)];
            for (int64_t k = 0; k < hidden; ++k) {
              float acc = Rb[2 * hidden + k];
              const float* row = R + (2 * hidden + k) * hidden;
              for (int64_t q = 0; q < hidden; ++q) acc += row[q] * rh[size_t(q)];
              hNew[size_t(k)] = g(clipped(xg[size_t(2 * hidden + k)] + acc));
            }
          }
          for (int64_t k = 0; k < hidden; ++k) {
            float z = xg[size_t(k)];
            h[size_t(k)] = (1 - z) * hNew[size_t(k)] + z * h[size_t(k)];
          }
        } else {
          for (int64_t k = 0; k < hidden; ++k) h[size_t(k)] = f(clipped(xg[size_t(k)] + hg[size_t(k)]));
        }
        for (int64_t k = 0; k < hidden; ++k) {
          size_t at = layout ? size_t(((bi * seqLen + t) * dirs + d) * hidden + k)
                             : size_t(((t * dirs + d) * batch + bi) * hidden + k);
          Y[at] = h[size_t(k)];
        }
      }
      for (int64_t k = 0; k < hidden; ++k) {
        size_t at = layout ? size_t((bi * dirs + d) * hidden + k) : size_t((d * batch + bi) * hidden + k);
        hLast[at] = h[size_t(k)];
        cLast[at] = c[size_t(k)];
      }
    }
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
