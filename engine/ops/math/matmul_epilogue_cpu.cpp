#include "ops/math/matmul_epilogue_cpu.h"

#include "exec/cpu/fast_math.h"

namespace onyx::exec {

std::optional<CpuMatmulEpilogue> CpuMatmulEpilogue::of(const std::vector<EpilogueOp>& ops) {
  auto chain = matmulEpilogueChain(ops);
  if (!chain) return std::nullopt;
  CpuMatmulEpilogue epilogue;
  for (const MatmulEpilogueStage& s : *chain) {
    Stage stage{s.kind, s.a, s.b, {}, 0, s.residual};
    if (s.kind == MatmulEpilogueKind::Bias) {
      const TensorValue bias = TensorValue::fromConstant(*s.bias);
      if (bias.dtype() != DataType::Float || bias.rank() == 0) return std::nullopt;
      for (int64_t i = 0; i + 1 < bias.rank(); ++i)  // values along the last dim only
        if (bias.dim(i) != 1) return std::nullopt;
      stage.bias.assign(bias.data<float>(), bias.data<float>() + bias.count());
      stage.biasRank = size_t(bias.rank());
    }
    epilogue.stages_.push_back(std::move(stage));
  }
  return epilogue;
}

bool CpuMatmulEpilogue::fits(const KernelContext& ctx, const Dims& outDims) const {
  if (outDims.empty()) return false;
  const int64_t n = outDims.back();
  int64_t count = 1;
  for (int64_t d : outDims) count *= d;
  for (const Stage& s : stages_) {
    if (s.kind == MatmulEpilogueKind::Bias) {
      // A bias of more dims than the output would broadcast the output up; one of other than n values
      // would not run along the last dim.
      if (int64_t(s.bias.size()) != n || s.biasRank > outDims.size()) return false;
    } else if (s.kind == MatmulEpilogueKind::Residual) {
      const TensorValue& r = ctx.epilogueOperand(size_t(s.residual));
      if (r.dtype() != DataType::Float || r.channelsLast() || r.blocked16() || size_t(r.rank()) > outDims.size()) return false;
      if (r.dims() == outDims) continue;
      if (r.rank() == 0 || r.count() != n || r.dim(r.rank() - 1) != n) return false;
    }
  }
  return count > 0;
}

void CpuMatmulEpilogue::apply(const KernelContext& ctx, float* y, int64_t ldy, int64_t n, int64_t row0, int64_t rows,
                              int64_t col0, int64_t cols) const {
  float* tile = y + row0 * ldy + col0;
  // tile[r, j] = tile[r, j] op b(r, j): b's rows bRow apart, or one value when it does not step.
  auto arith = [&](Arith op, const float* b, int64_t bRow, bool bSteps, float* out, int64_t outRow) {
    fastArithRows(op, {tile, b, out, rows, cols, ldy, bRow, true, bSteps, outRow});
  };
  auto eachRow = [&](void (*f)(const float*, float*, int64_t, float, float)) {
    for (int64_t r = 0; r < rows; ++r) f(tile + r * ldy, tile + r * ldy, cols, 0, 0);
  };
  for (const Stage& s : stages_) {
    switch (s.kind) {
      case MatmulEpilogueKind::Linear:
        if (s.a != 1.0f) arith(Arith::Mul, &s.a, 0, false, tile, ldy);
        if (s.b != 0.0f) arith(Arith::Add, &s.b, 0, false, tile, ldy);
        break;
      case MatmulEpilogueKind::Relu: eachRow(fastRelu); break;
      case MatmulEpilogueKind::Tanh: eachRow(fastTanh); break;
      case MatmulEpilogueKind::Sigmoid: eachRow(fastSigmoid); break;
      case MatmulEpilogueKind::LeakyRelu:
        for (int64_t r = 0; r < rows; ++r)
          for (float* v = tile + r * ldy; v < tile + r * ldy + cols; ++v) *v = *v < 0 ? *v * s.a : *v;
        break;
      case MatmulEpilogueKind::GeluErf: eachRow(fastGeluErf); break;
      case MatmulEpilogueKind::Bias: arith(Arith::Add, s.bias.data() + col0, 0, true, tile, ldy); break;
      case MatmulEpilogueKind::Residual: {
        const TensorValue& t = ctx.epilogueOperand(size_t(s.residual));
        const bool row = t.count() == n;  // one row for every output row
        arith(Arith::Add, t.data<float>() + (row ? 0 : row0 * n) + col0, row ? 0 : n, true, tile, ldy);
        break;
      }
    }
  }
}

}  // namespace onyx::exec
