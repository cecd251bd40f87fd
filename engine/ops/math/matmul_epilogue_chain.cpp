#include "ops/math/matmul_epilogue_chain.h"

#include <cmath>

namespace onyx::exec {

namespace {

bool isOnnxOp(const EpilogueOp& op, const char* type) {
  return op.node->opType() == type && (op.node->domain().empty() || op.node->domain() == "ai.onnx");
}

// Which input of `op` is `value`, -1 if none.
int inputIndexOf(const EpilogueOp& op, int value) {
  for (size_t j = 0; j < op.inputs.size(); ++j)
    if (op.inputs[j] == value) return int(j);
  return -1;
}

bool scalarNear(const EpilogueOp& op, size_t input, float want) {
  auto c = input < op.constants.size() ? scalarConstant(op.constants[input]) : std::nullopt;
  return c && std::abs(*c - want) <= 1e-4f * std::abs(want);
}

// ops[i..i+4] = Div(v, sqrt 2), Erf, Add(1), Mul(v, .), Mul(0.5): GELU with the exact erf, v being the chain
// value before ops[i].
bool isGeluErf(const std::vector<EpilogueOp>& ops, size_t i) {
  if (i + 4 >= ops.size()) return false;
  const int v = kEpilogueChain - int(i);
  auto chainOf = [&](size_t k) { return kEpilogueChain - int(k); };  // the value ops[k] reads from before
  if (!isOnnxOp(ops[i], "Div") || ops[i].inputs.size() != 2 || ops[i].inputs[0] != v || !scalarNear(ops[i], 1, 1.41421356f))
    return false;
  if (!isOnnxOp(ops[i + 1], "Erf") || ops[i + 1].inputs[0] != chainOf(i + 1)) return false;
  int one = inputIndexOf(ops[i + 2], chainOf(i + 2));
  if (!isOnnxOp(ops[i + 2], "Add") || one < 0 || !scalarNear(ops[i + 2], size_t(1 - one), 1.0f)) return false;
  if (!isOnnxOp(ops[i + 3], "Mul") || inputIndexOf(ops[i + 3], chainOf(i + 3)) < 0 || inputIndexOf(ops[i + 3], v) < 0)
    return false;
  int half = inputIndexOf(ops[i + 4], chainOf(i + 4));
  return isOnnxOp(ops[i + 4], "Mul") && half >= 0 && scalarNear(ops[i + 4], size_t(1 - half), 0.5f);
}

// A Mul, Div, Add or Sub of a scalar as v * a + b, the chain value being input `chain`; nullopt for others.
std::optional<MatmulEpilogueStage> linearStage(const std::string& type, int chain, float v) {
  using Kind = MatmulEpilogueKind;
  if (type == "Mul") return MatmulEpilogueStage{Kind::Linear, v, 0};
  if (type == "Div" && chain == 0) return MatmulEpilogueStage{Kind::Linear, 1.0f / v, 0};
  if (type == "Add") return MatmulEpilogueStage{Kind::Linear, 1.0f, v};
  if (type == "Sub" && chain == 0) return MatmulEpilogueStage{Kind::Linear, 1.0f, -v};
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<MatmulEpilogueStage>> matmulEpilogueChain(const std::vector<EpilogueOp>& ops) {
  using Kind = MatmulEpilogueKind;
  std::vector<MatmulEpilogueStage> out;
  bool summed = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    const EpilogueOp& op = ops[i];
    const Node& node = *op.node;
    const std::string& type = node.opType();
    const int previous = kEpilogueChain - int(i);
    if (!node.domain().empty() && node.domain() != "ai.onnx") return std::nullopt;
    if (op.inputs.empty()) return std::nullopt;
    if (op.inputs.size() == 1 || type == "Clip") {
      if (op.inputs[0] != previous) return std::nullopt;
      if (type == "Relu")
        out.push_back({Kind::Relu});
      else if (type == "Tanh")
        out.push_back({Kind::Tanh});
      else if (type == "Sigmoid")
        out.push_back({Kind::Sigmoid});
      else if (type == "LeakyRelu")
        out.push_back({Kind::LeakyRelu, node.attrFloat("alpha", 0.01f)});
      else
        return std::nullopt;
      continue;
    }
    if (type == "Div" && isGeluErf(ops, i)) {
      out.push_back({Kind::GeluErf});
      i += 4;
      continue;
    }
    if (op.inputs.size() != 2) return std::nullopt;
    int chain = op.inputs[0] == previous ? 0 : op.inputs[1] == previous ? 1 : -1;
    if (chain < 0) return std::nullopt;
    const int other = 1 - chain;
    const onyx::Tensor* constant = op.constants[size_t(other)];
    if (auto v = scalarConstant(constant)) {
      auto linear = linearStage(type, chain, *v);
      if (!linear) return std::nullopt;
      if (!out.empty() && out.back().kind == Kind::Linear) {  // consecutive scalings become one
        MatmulEpilogueStage& first = out.back();
        first.b = first.b * linear->a + linear->b;
        first.a *= linear->a;
      } else {
        out.push_back(*linear);
      }
    } else if (type == "Add" && constant) {
      if (constant->dtype() != DataType::Float) return std::nullopt;
      MatmulEpilogueStage bias{Kind::Bias};
      bias.bias = constant;
      out.push_back(bias);
    } else if (type == "Add" && op.inputs[size_t(other)] >= 0 && !summed) {
      MatmulEpilogueStage residual{Kind::Residual};
      residual.residual = op.inputs[size_t(other)];
      out.push_back(residual);
      summed = true;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace onyx::exec
