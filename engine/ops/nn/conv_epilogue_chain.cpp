#include "ops/nn/conv_epilogue_chain.h"

#include "exec/cpu/fast_math.h"

namespace onyx::exec {

std::optional<std::vector<ConvEpilogueStage>> convEpilogueChain(const std::vector<EpilogueOp>& ops) {
  using Kind = ConvEpilogueKind;
  std::vector<ConvEpilogueStage> out;
  bool summed = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    const EpilogueOp& op = ops[i];
    const Node& node = *op.node;
    const std::string& type = node.opType();
    bool chainFirst = !op.inputs.empty() && op.inputs[0] <= kEpilogueChain;
    if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
    if (type == "Relu" && chainFirst) {
      out.push_back({Kind::Relu});
    } else if (type == "LeakyRelu" && chainFirst) {
      out.push_back({Kind::LeakyRelu, node.attrFloat("alpha", 0.01f)});
    } else if (type == "Tanh" && chainFirst) {
      out.push_back({Kind::Tanh});
    } else if (type == "Clip" && chainFirst) {
      auto bounds = epilogueClipBounds(op);
      if (!bounds) return std::nullopt;  // a bound computed at run time, or lo > hi
      out.push_back({Kind::Clip, bounds->lo, bounds->hi});
    } else if (type == "Sigmoid" && chainFirst) {
      // Sigmoid then Mul of the Sigmoid's input: SiLU (swish); a lone Sigmoid: logistic.
      bool silu = i + 1 < ops.size() && ops[i + 1].node->opType() == "Mul" && ops[i + 1].inputs.size() == 2;
      if (silu) {
        int before = op.inputs[0], sigmoid = kEpilogueChain - int(i + 1);
        const std::vector<int>& m = ops[i + 1].inputs;
        silu = (m[0] == before && m[1] == sigmoid) || (m[0] == sigmoid && m[1] == before);
      }
      out.push_back({silu ? Kind::Silu : Kind::Sigmoid});
      if (silu) ++i;
    } else if (type == "Add" && op.inputs.size() == 2 && !summed) {
      // The residual must be a run-time tensor read before the Conv ran (constants are biases, which the
      // conv-add-fusion pass folds).
      int chain = op.inputs[0] <= kEpilogueChain ? 0 : 1;
      int other = op.inputs[size_t(1 - chain)];
      if (op.inputs[size_t(chain)] != kEpilogueChain - int(i) || other < 0) return std::nullopt;
      out.push_back({Kind::AddResidual, 0, 0, other});
      summed = true;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

void applyConvEpilogueStage(const ConvEpilogueStage& stage, float* y, int64_t n) {
  switch (stage.kind) {
    case ConvEpilogueKind::Relu: fastRelu(y, y, n, 0, 0); break;
    case ConvEpilogueKind::LeakyRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] < 0 ? y[i] * stage.a : y[i];
      break;
    case ConvEpilogueKind::Clip: fastClip(y, y, n, stage.a, stage.b); break;
    case ConvEpilogueKind::Sigmoid: fastSigmoid(y, y, n, 0, 0); break;
    case ConvEpilogueKind::Silu: fastSilu(y, y, n, 0, 0); break;
    case ConvEpilogueKind::Tanh: fastTanh(y, y, n, 0, 0); break;
    case ConvEpilogueKind::AddResidual: break;  // needs its operand: the callers exclude it
  }
}

}  // namespace onyx::exec
