// Recurrent layers through GEMM (variant "gemm"): float32 LSTM, GRU and RNN with their default activations.
// The input projection of every time step is one GEMM before the loop. For small batches each step's
// recurrent product streams R packed in panels (fastGemvPanels): the threads split the hidden units, each
// multiplying its units' gate rows and computing their gates, with one barrier per step; a bidirectional
// cell runs its directions side by side instead. Larger batches take one GEMM per step. Sequence lengths,
// both directions, both layouts, clip, peepholes, input_forget and linear_before_reset as in rnn_cpu.cpp,
// which stays the oracle and takes other types and activations.
#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "exec/cpu/fast_math.h"
#include "exec/cpu/gemm.h"
#include "exec/kernel_util.h"
#include "ops/rnn/rnn_checks.h"
#include "exec/thread_pool.h"

namespace onyx::exec {
namespace {

enum class Cell { Lstm, Gru, Rnn };

template <Cell C>
constexpr int64_t kGates = C == Cell::Lstm ? 4 : (C == Cell::Gru ? 3 : 1);

// Batches up to this many rows stream the packed R once per row and step; larger ones take a GEMM.
constexpr int64_t kMaxPackedBatch = 4;
constexpr int64_t kMinUnitsPerThread = 32;

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

// The hidden units [begin, end) of one direction that one thread owns, with R's rows for them packed as
// gemv panels: gate-major outputs (gate g, unit u at g * units + u - begin). GRU without
// linear_before_reset multiplies its h gate by r * h, a second product: those rows are packed apart.
struct UnitRange {
  int64_t begin = 0, end = 0;
  std::vector<float> gateRows, resetRows;
  int64_t units() const { return end - begin; }
};

std::vector<float> packRows(const float* r, int64_t hidden, int64_t firstGate, int64_t gates, int64_t begin,
                            int64_t end) {
  const int64_t units = end - begin, outputs = gates * units;
  std::vector<float> panels(size_t(gemvPanelsSize(hidden, outputs)), 0.0f);
  for (int64_t o = 0; o < outputs; ++o)
    packGemvColumn(panels.data(), hidden, o, r + ((firstGate + o / units) * hidden + begin + o % units) * hidden);
  return panels;
}

// What one run reads from the node and its inputs: shapes, sequence lengths and attributes, checked.
struct Setup {
  Shapes s;
  std::vector<int64_t> lens;  // per batch row, clamped to [0, seqLen]
  std::string direction;
  float clip = 0;
  bool linearBeforeReset = false;
  bool inputForget = false;
};

template <Cell C>
Expected<Setup> readSetup(const KernelContext& ctx, const TensorValue& X, const TensorValue& R) {
  constexpr int64_t G = kGates<C>;
  Setup setup;
  Shapes& s = setup.s;
  s.batchFirst = ctx.attrInt("layout", 0) != 0;
  s.seqLen = s.batchFirst ? X.dim(1) : X.dim(0);
  s.batch = s.batchFirst ? X.dim(0) : X.dim(1);
  s.inputSize = X.dim(2);
  s.hidden = ctx.attrInt("hidden_size", R.dim(2));
  setup.direction = ctx.attrString("direction", "forward");
  s.dirs = setup.direction == "bidirectional" ? 2 : 1;
  const int64_t H = s.hidden;
  if (auto ok = checkRecurrentOperands(ctx, {G, s.dirs, s.batch, s.inputSize, H, C == Cell::Lstm}); !ok)
    return ok.error();
  setup.lens.assign(size_t(s.batch), s.seqLen);
  if (ctx.hasInput(4)) {
    setup.lens = ctx.input(4).toInts();
    for (int64_t& len : setup.lens) len = std::clamp<int64_t>(len, 0, s.seqLen);
  }
  setup.clip = ctx.attrFloat("clip", 0.0f);
  setup.linearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  setup.inputForget = ctx.attrInt("input_forget", 0) != 0;
  return setup;
}

// One direction of one run: the input projection, the state, and the steps over the units of some
// UnitRanges. Threads that split the hidden units each run their own ranges' steps (recur) on the shared
// state, meeting at `barrier`.
template <Cell C>
class Direction {
 public:
  static constexpr int64_t G = kGates<C>;

  // `serial`: the GEMMs run on the calling thread (directions side by side, one thread each).
  Direction(const KernelContext& ctx, const Setup& setup, int64_t d, bool packedPath, bool serial, float* y)
      : ctx_(ctx), setup_(setup), s_(setup.s), H(setup.s.hidden), d_(d), packedPath_(packedPath),
        product_(serial ? sgemmSerial : sgemm), y_(y) {
    const TensorValue& W = ctx.input(1);
    const TensorValue& R = ctx.input(2);
    reverse_ = setup.direction == "reverse" || d == 1;
    w_ = W.data<float>() + d * G * H * s_.inputSize;
    r_ = R.data<float>() + d * G * H * H;
    wb_ = ctx.hasInput(3) ? ctx.input(3).data<float>() + d * 2 * G * H : nullptr;
    rb_ = wb_ ? wb_ + G * H : nullptr;
    peep_ = C == Cell::Lstm && ctx.hasInput(7) ? ctx.input(7).data<float>() + d * 3 * H : nullptr;
    resetProduct_ = C == Cell::Gru && !setup.linearBeforeReset;
    recurrentGates_ = resetProduct_ ? 2 : G;
    // A batch of 0 has no sequences (fuzz_run: the largest of no lengths was dereferenced).
    steps_ = setup.lens.empty() ? 0 : *std::max_element(setup.lens.begin(), setup.lens.end());
  }

  // The input projection of every time step, one GEMM, with the biases that can be added once: all but
  // GRU's h gate recurrence bias when the reset gate multiplies (R_h h + Rb_h).
  void projectInputs() {
    const int64_t rows = s_.seqLen * s_.batch;
    xproj_.assign(size_t(rows * G * H), 0.0f);
    std::vector<float> combinedBias(size_t(G * H), 0.0f);
    if (wb_)
      for (int64_t j = 0; j < G * H; ++j)
        combinedBias[size_t(j)] =
            wb_[j] + (C == Cell::Gru && setup_.linearBeforeReset && j >= 2 * H ? 0.0f : rb_[j]);
    product_(false, true, rows, G * H, s_.inputSize, 1.0f, ctx_.input(0).data<float>(), s_.inputSize, w_,
            s_.inputSize, 0.0f, xproj_.data(), G * H);
    for (int64_t row = 0; row < rows; ++row) {
      float* p = xproj_.data() + row * G * H;
      for (int64_t j = 0; j < G * H; ++j) p[j] += combinedBias[size_t(j)];
    }
  }

  // The state as two buffers, read one and written the other each step, so that threads computing their
  // own units never read a unit another thread is writing.
  void loadInitialState() {
    hBuffers_.assign(size_t(2 * s_.batch * H), 0.0f);
    c_.assign(size_t(s_.batch * H), 0.0f);
    resetH_.assign(size_t(s_.batch * H), 0.0f);
    for (int64_t b = 0; b < s_.batch; ++b) {
      const int64_t at = s_.stateOffset(d_, b);
      for (int64_t k = 0; k < H; ++k) {
        hBuffers_[size_t(b * H + k)] = ctx_.hasInput(5) ? ctx_.input(5).data<float>()[at + k] : 0.0f;
        const bool initialC = C == Cell::Lstm && ctx_.hasInput(6);
        c_[size_t(b * H + k)] = initialC ? ctx_.input(6).data<float>()[at + k] : 0.0f;
      }
    }
  }

  // The units of `ranges` over every step; `barrier` waits for the threads running the other ranges.
  void recur(const std::vector<const UnitRange*>& ranges, const std::function<void()>& barrier) {
    Scratch scratch(ranges.size());
    for (size_t q = 0; q < ranges.size(); ++q) {
      scratch.hproj[q].resize(size_t(s_.batch * G * ranges[q]->units()));
      scratch.gates[q].resize(size_t(s_.batch * 4 * ranges[q]->units()));
    }
    for (int64_t step = 0; step < steps_; ++step) {
      const float* hIn = hBuffers_.data() + (step % 2) * s_.batch * H;
      float* hOut = hBuffers_.data() + ((step + 1) % 2) * s_.batch * H;
      for (size_t q = 0; q < ranges.size(); ++q) stepGates(*ranges[q], scratch, q, step, hIn, hOut);
      if (resetProduct_) {
        barrier();  // every unit's r * h is written
        for (size_t q = 0; q < ranges.size(); ++q) resetProducts(*ranges[q], scratch.gates[q], step);
      }
      if constexpr (C == Cell::Gru)
        for (size_t q = 0; q < ranges.size(); ++q) gruOutputs(*ranges[q], scratch.gates[q], step, hIn, hOut);
      if (y_)
        for (const UnitRange* range : ranges) writeOutputs(*range, step, hOut);
      barrier();  // the step's state is complete before the next reads it
    }
  }

  // The final h and c into the Y_h and Y_c buffers of every direction.
  void storeFinalState(std::vector<float>& hLast, std::vector<float>& cLast) const {
    const float* hFinal = hBuffers_.data() + (steps_ % 2) * s_.batch * H;
    for (int64_t b = 0; b < s_.batch; ++b) {
      const int64_t at = s_.stateOffset(d_, b);
      std::memcpy(hLast.data() + at, hFinal + b * H, size_t(H) * sizeof(float));
      std::memcpy(cLast.data() + at, c_.data() + b * H, size_t(H) * sizeof(float));
    }
  }

 private:
  // Per range of one thread: the recurrent product and the gates of every batch row.
  struct Scratch {
    explicit Scratch(size_t ranges) : hproj(ranges), gates(ranges) {}
    std::vector<std::vector<float>> hproj, gates;
  };

  int64_t timeOf(int64_t step, int64_t b) const {
    return reverse_ ? setup_.lens[size_t(b)] - 1 - step : step;
  }
  const float* inputProjection(int64_t step, int64_t b, int64_t unit) const {
    return xproj_.data() + s_.xRow(timeOf(step, b), b) * G * H + unit;
  }
  void clip(float* x, int64_t n) const { clipInPlace(x, n, setup_.clip); }

  // The recurrent product of one range's units, then per batch row the cell's gates (all of LSTM and RNN,
  // GRU's z and r, and its h gate too with linear_before_reset).
  void stepGates(const UnitRange& range, Scratch& scratch, size_t q, int64_t step, const float* hIn,
                 float* hOut) {
    const int64_t U = range.units(), a = range.begin;
    float* hp = scratch.hproj[q].data();
    if (packedPath_) {
      for (int64_t b = 0; b < s_.batch; ++b)
        fastGemvPanels(range.gateRows.data(), hIn + b * H, H, recurrentGates_ * U, hp + b * G * U);
    } else {
      product_(false, true, s_.batch, recurrentGates_ * H, H, 1.0f, hIn, H, r_, H, 0.0f, hp, G * H);
    }
    for (int64_t b = 0; b < s_.batch; ++b) {
      const float* hb = hIn + b * H + a;
      float* next = hOut + b * H + a;
      if (step >= setup_.lens[size_t(b)]) {  // finished: the state stays
        std::memcpy(next, hb, size_t(U) * sizeof(float));
        continue;
      }
      const float* xp = inputProjection(step, b, a);
      const float* hpb = hp + b * G * U;
      float* g = scratch.gates[q].data() + b * 4 * U;
      if constexpr (C == Cell::Lstm)
        lstmUnits(U, a, xp, hpb, g, c_.data() + b * H + a, next);
      else if constexpr (C == Cell::Gru)
        gruGates(U, a, xp, hpb, g, hb, resetH_.data() + b * H + a);
      else
        rnnUnits(U, xp, hpb, g, next);
    }
  }

  // LSTM, gate order i, o, f, c: the new c in place and the new h.
  void lstmUnits(int64_t U, int64_t a, const float* xp, const float* hpb, float* g, float* cb,
                 float* next) const {
    const float* pk = peep_ ? peep_ + a : nullptr;
    float *gi = g, *go = g + U, *gf = g + 2 * U, *gc = g + 3 * U;
    for (int64_t k = 0; k < U; ++k) {
      gi[k] = xp[k] + hpb[k] + (pk ? pk[k] * cb[k] : 0.0f);
      gf[k] = xp[2 * H + k] + hpb[2 * U + k] + (pk ? pk[2 * H + k] * cb[k] : 0.0f);
      gc[k] = xp[3 * H + k] + hpb[3 * U + k];
    }
    clip(gi, U);
    clip(gf, U);
    clip(gc, U);
    fastSigmoid(gi, gi, U, 0, 0);
    fastSigmoid(gf, gf, U, 0, 0);
    fastTanh(gc, gc, U, 0, 0);
    for (int64_t k = 0; k < U; ++k) {
      const float f = setup_.inputForget ? 1.0f - gi[k] : gf[k];
      cb[k] = f * cb[k] + gi[k] * gc[k];
      go[k] = xp[H + k] + hpb[U + k] + (pk ? pk[H + k] * cb[k] : 0.0f);
    }
    clip(go, U);
    fastSigmoid(go, go, U, 0, 0);
    fastTanh(cb, gc, U, 0, 0);
    for (int64_t k = 0; k < U; ++k) next[k] = go[k] * gc[k];
  }

  // GRU, gate order z, r, h: z and r, then r * h for the reset product or, with linear_before_reset, the h
  // gate before its tanh (gruOutputs finishes both).
  void gruGates(int64_t U, int64_t a, const float* xp, const float* hpb, float* g, const float* hb,
                float* rh) const {
    float *gz = g, *gr = g + U;
    for (int64_t k = 0; k < U; ++k) {
      gz[k] = xp[k] + hpb[k];
      gr[k] = xp[H + k] + hpb[U + k];
    }
    clip(g, 2 * U);
    fastSigmoid(g, g, 2 * U, 0, 0);
    if (resetProduct_) {
      for (int64_t k = 0; k < U; ++k) rh[k] = gr[k] * hb[k];
    } else {
      float* gh = g + 2 * U;
      const float* rbh = rb_ ? rb_ + 2 * H + a : nullptr;
      for (int64_t k = 0; k < U; ++k)
        gh[k] = xp[2 * H + k] + gr[k] * (hpb[2 * U + k] + (rbh ? rbh[k] : 0.0f));
    }
  }

  void rnnUnits(int64_t U, const float* xp, const float* hpb, float* g, float* next) const {
    float* gh = g;
    for (int64_t k = 0; k < U; ++k) gh[k] = xp[k] + hpb[k];
    clip(gh, U);
    fastTanh(gh, next, U, 0, 0);
  }

  // GRU without linear_before_reset: the h gate's product R_h (r * h), once every unit's r * h is known.
  void resetProducts(const UnitRange& range, std::vector<float>& gates, int64_t step) {
    const int64_t U = range.units(), a = range.begin;
    for (int64_t b = 0; b < s_.batch; ++b) {
      if (step >= setup_.lens[size_t(b)]) continue;
      float* gh = gates.data() + b * 4 * U + 2 * U;
      if (packedPath_)
        fastGemvPanels(range.resetRows.data(), resetH_.data() + b * H, H, U, gh);
      else
        sgemmSerial(false, true, 1, H, H, 1.0f, resetH_.data() + b * H, H, r_ + 2 * H * H, H, 0.0f, gh, H);
      const float* xp = inputProjection(step, b, a);
      for (int64_t k = 0; k < U; ++k) gh[k] += xp[2 * H + k];
    }
  }

  // GRU: the h gate's tanh and the new h, (1 - z) * h~ + z * h.
  void gruOutputs(const UnitRange& range, std::vector<float>& gates, int64_t step, const float* hIn,
                  float* hOut) const {
    const int64_t U = range.units(), a = range.begin;
    for (int64_t b = 0; b < s_.batch; ++b) {
      if (step >= setup_.lens[size_t(b)]) continue;
      float* g = gates.data() + b * 4 * U;
      float *gz = g, *gh = g + 2 * U;
      clip(gh, U);
      fastTanh(gh, gh, U, 0, 0);
      const float* hb = hIn + b * H + a;
      float* next = hOut + b * H + a;
      for (int64_t k = 0; k < U; ++k) next[k] = (1.0f - gz[k]) * gh[k] + gz[k] * hb[k];
    }
  }

  void writeOutputs(const UnitRange& range, int64_t step, const float* hOut) const {
    for (int64_t b = 0; b < s_.batch; ++b) {
      if (step >= setup_.lens[size_t(b)]) continue;
      std::memcpy(y_ + s_.yOffset(timeOf(step, b), d_, b) + range.begin, hOut + b * H + range.begin,
                  size_t(range.units()) * sizeof(float));
    }
  }

  const KernelContext& ctx_;
  const Setup& setup_;
  const Shapes& s_;
  const int64_t H;
  const int64_t d_;
  const bool packedPath_;
  decltype(&sgemm) product_;
  float* y_;
  bool reverse_ = false;
  const float *w_ = nullptr, *r_ = nullptr, *wb_ = nullptr, *rb_ = nullptr, *peep_ = nullptr;
  bool resetProduct_ = false;     // GRU without linear_before_reset: h's product follows from r * h
  int64_t recurrentGates_ = G;    // gates of the per-step product: z and r only for the reset product
  int64_t steps_ = 0;
  std::vector<float> xproj_, hBuffers_, c_, resetH_;
};

template <Cell C>
class RecurrentGemm final : public Kernel {
 public:
  Expected<void> run(KernelContext& ctx) override;

 private:
  // Packs R for the units each of `parts` threads owns, unless the packing of the last run still holds.
  void packRecurrentWeights(const KernelContext& ctx, const Setup& setup, int64_t parts);

  // Per direction, per part of the hidden units; kept while R is a constant of the same storage and dims.
  std::vector<std::vector<UnitRange>> packed_;
  const void* packedFrom_ = nullptr;
  Dims packedDims_;
  bool packedLinearBeforeReset_ = false;
};

template <Cell C>
void RecurrentGemm<C>::packRecurrentWeights(const KernelContext& ctx, const Setup& setup, int64_t parts) {
  constexpr int64_t G = kGates<C>;
  const TensorValue& R = ctx.input(2);
  const int64_t H = setup.s.hidden;
  const bool resetProduct = C == Cell::Gru && !setup.linearBeforeReset;
  const bool reuse = ctx.inputIsConstant(2) && packedFrom_ == R.raw() && packedDims_ == R.dims() &&
                     packedLinearBeforeReset_ == setup.linearBeforeReset && !packed_.empty() &&
                     int64_t(packed_[0].size()) == parts;
  if (reuse) return;
  packed_.assign(size_t(setup.s.dirs), std::vector<UnitRange>(size_t(parts)));
  for (int64_t d = 0; d < setup.s.dirs; ++d) {
    const float* r = R.data<float>() + d * G * H * H;
    for (int64_t p = 0; p < parts; ++p) {
      UnitRange& range = packed_[size_t(d)][size_t(p)];
      range.begin = H * p / parts;
      range.end = H * (p + 1) / parts;
      range.gateRows = packRows(r, H, 0, resetProduct ? 2 : G, range.begin, range.end);
      if (resetProduct) range.resetRows = packRows(r, H, 2, 1, range.begin, range.end);
    }
  }
  packedFrom_ = R.raw();
  packedDims_ = R.dims();
  packedLinearBeforeReset_ = setup.linearBeforeReset;
}

template <Cell C>
Expected<void> RecurrentGemm<C>::run(KernelContext& ctx) {
  const TensorValue& X = ctx.input(0);
  const TensorValue& W = ctx.input(1);
  const TensorValue& R = ctx.input(2);
  bool floats = X.dtype() == DataType::Float && W.dtype() == DataType::Float && R.dtype() == DataType::Float;
  for (size_t i = 3; i < 8 && floats; ++i)  // sequence_lens (4) is int32
    floats = i == 4 || !ctx.hasInput(i) || ctx.input(i).dtype() == DataType::Float;
  if (!floats || X.rank() != 3 || W.rank() != 3 || R.rank() != 3) return runReferenceKernel(ctx);
  auto setupOr = readSetup<C>(ctx, X, R);
  if (!setupOr) return setupOr.error();
  const Setup& setup = *setupOr;
  const Shapes& s = setup.s;
  const int64_t H = s.hidden;

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

  const int threads = ctx.pool().threadCount();
  const bool packedPath = s.batch <= kMaxPackedBatch;
  // A bidirectional cell runs its directions side by side, one thread each: every step's product is too
  // small to split well, and the directions share nothing until the outputs. A one-way cell splits its
  // hidden units between the threads, at least kMinUnitsPerThread each, so that a step's share of the
  // product is worth the barrier that ends it (on a 16-core Xeon, rnn_lstm_gru ran no faster at 16 threads
  // than at 8 while its 256-unit LSTMs were split 16 ways).
  const bool sideBySide = s.dirs == 2 && threads > 1;
  const int64_t parts = packedPath && !sideBySide
                            ? std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, H / kMinUnitsPerThread))
                            : 1;
  if (packedPath) packRecurrentWeights(ctx, setup, parts);

  auto runDirection = [&](int64_t d, bool serial) {
    Direction<C> direction(ctx, setup, d, packedPath, serial, y);
    direction.projectInputs();
    direction.loadInitialState();
    const UnitRange whole{0, H, {}, {}};
    if (!packedPath) {
      direction.recur({&whole}, [] {});
    } else if (parts == 1) {
      direction.recur({&packed_[size_t(d)][0]}, [] {});
    } else {
      ctx.pool().runTeam(int(parts), [&](int thread, int threadsRunning, const std::function<void()>& barrier) {
        std::vector<const UnitRange*> mine;
        for (int64_t p = thread; p < parts; p += threadsRunning)
          mine.push_back(&packed_[size_t(d)][size_t(p)]);
        direction.recur(mine, barrier);
      });
    }
    direction.storeFinalState(hLast, cLast);
  };
  if (sideBySide) {
    ctx.parallelFor(2, 1, [&](int64_t b, int64_t e) {
      for (int64_t d = b; d < e; ++d) runDirection(d, true);
    });
  } else {
    for (int64_t d = 0; d < s.dirs; ++d) runDirection(d, false);
  }
  auto store = [&](size_t index, const std::vector<float>& v) -> Expected<void> {
    if (!ctx.wantsOutput(index)) return {};
    auto out = ctx.allocateOutput(index, DataType::Float, stateDims);
    if (!out) return out.error();
    if (!v.empty()) std::memcpy((*out)->raw(), v.data(), v.size() * sizeof(float));  // batch 0: no data pointer
    return {};
  };
  if (auto e = store(1, hLast); !e) return e;
  if (C == Cell::Lstm)
    if (auto e = store(2, cLast); !e) return e;
  return {};
}

template <Cell C>
KernelDef gemmVariant(std::string op) {
  KernelDef def =
      kernelFactory(std::move(op), [](const PrepareContext&) -> Expected<std::unique_ptr<Kernel>> {
        return std::unique_ptr<Kernel>(std::make_unique<RecurrentGemm<C>>());
      });
  def.variant = "gemm";
  def.isaDispatched = true;
  def.priority = 10;
  def.supports = defaultActivations<C>;
  return def;
}

}  // namespace

void registerRnnGemmCpuKernels(KernelRegistry& r) {
  r.add(gemmVariant<Cell::Lstm>("LSTM"));
  r.add(gemmVariant<Cell::Gru>("GRU"));
  r.add(gemmVariant<Cell::Rnn>("RNN"));
}

}  // namespace onyx::exec
