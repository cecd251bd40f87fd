#include "exec/fused_elementwise.h"

#include "exec/cpu/fast_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace onyx::exec {

namespace {

using Op = ElementwiseProgram::Op;

struct OpInfo {
  const char* name;
  Op op;
  int minInputs, maxInputs;
};

constexpr OpInfo kOps[] = {
    {"Add", Op::Add, 2, 2},
    {"Sub", Op::Sub, 2, 2},
    {"Mul", Op::Mul, 2, 2},
    {"Div", Op::Div, 2, 2},
    {"Pow", Op::Pow, 2, 2},
    {"Max", Op::Max, 2, 2},
    {"Min", Op::Min, 2, 2},
    {"PRelu", Op::PRelu, 2, 2},
    {"Relu", Op::Relu, 1, 1},
    {"LeakyRelu", Op::LeakyRelu, 1, 1},
    {"Sigmoid", Op::Sigmoid, 1, 1},
    {"HardSigmoid", Op::HardSigmoid, 1, 1},
    {"HardSwish", Op::HardSwish, 1, 1},
    {"Tanh", Op::Tanh, 1, 1},
    {"Exp", Op::Exp, 1, 1},
    {"Log", Op::Log, 1, 1},
    {"Sqrt", Op::Sqrt, 1, 1},
    {"Neg", Op::Neg, 1, 1},
    {"Abs", Op::Abs, 1, 1},
    {"Erf", Op::Erf, 1, 1},
    {"Reciprocal", Op::Reciprocal, 1, 1},
    {"Floor", Op::Floor, 1, 1},
    {"Ceil", Op::Ceil, 1, 1},
    {"Clip", Op::Clip, 1, 3},
};

const OpInfo* opInfo(const Node& node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") return nullptr;
  for (const OpInfo& info : kOps)
    if (node.opType() == info.name) return &info;
  return nullptr;
}

constexpr int64_t kBlock = 256;

// Output dims and, per input, the element stride along each output dim (0 where it broadcasts).
struct Layout {
  Dims dims;
  std::vector<std::vector<int64_t>> strides;
};

std::optional<Layout> broadcastLayout(const std::vector<const TensorValue*>& inputs) {
  Layout layout;
  size_t rank = 0;
  for (const TensorValue* t : inputs) rank = std::max(rank, t->dims().size());
  layout.dims.assign(rank, 1);
  for (const TensorValue* t : inputs) {
    size_t offset = rank - t->dims().size();
    for (size_t d = 0; d < t->dims().size(); ++d) {
      int64_t size = t->dims()[d];
      int64_t& out = layout.dims[offset + d];
      if (size == out || size == 1) continue;
      if (out != 1) return std::nullopt;
      out = size;
    }
  }
  for (const TensorValue* t : inputs) {
    std::vector<int64_t> strides(rank, 0);
    size_t offset = rank - t->dims().size();
    int64_t stride = 1;
    for (size_t d = t->dims().size(); d-- > 0;) {
      strides[offset + d] = t->dims()[d] == 1 && layout.dims[offset + d] != 1 ? 0 : stride;
      stride *= t->dims()[d];
    }
    layout.strides.push_back(std::move(strides));
  }
  // Merge adjacent dims where every input is either contiguous across both or broadcast along both, so the
  // innermost run is as long as possible.
  Layout merged;
  merged.strides.resize(inputs.size());
  for (size_t d = 0; d < rank; ++d) {
    if (layout.dims[d] == 1 && rank > 1) continue;  // size-1 dims add nothing
    bool canMerge = !merged.dims.empty();
    for (size_t i = 0; canMerge && i < inputs.size(); ++i) {
      int64_t outer = merged.strides[i].back(), inner = layout.strides[i][d];
      canMerge = (outer == 0 && inner == 0) || (inner != 0 && outer == inner * layout.dims[d]);
    }
    if (canMerge) {
      merged.dims.back() *= layout.dims[d];
      for (size_t i = 0; i < inputs.size(); ++i) merged.strides[i].back() = layout.strides[i][d];
    } else {
      merged.dims.push_back(layout.dims[d]);
      for (size_t i = 0; i < inputs.size(); ++i) merged.strides[i].push_back(layout.strides[i][d]);
    }
  }
  if (merged.dims.empty()) {
    merged.dims.push_back(1);
    for (auto& s : merged.strides) s.push_back(0);
  }
  return merged;
}

void apply(const ElementwiseProgram::Instruction& in, const float* a, const float* b, const float* c,
           float* y, int64_t n) {
  switch (in.op) {
    case Op::Add:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
      break;
    case Op::Sub:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
      break;
    case Op::Mul:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
      break;
    case Op::Div:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] / b[i];
      break;
    case Op::Pow:
      for (int64_t i = 0; i < n; ++i) y[i] = std::pow(a[i], b[i]);
      break;
    case Op::Max:
      for (int64_t i = 0; i < n; ++i) y[i] = std::max(a[i], b[i]);
      break;
    case Op::Min:
      for (int64_t i = 0; i < n; ++i) y[i] = std::min(a[i], b[i]);
      break;
    case Op::PRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] < 0 ? a[i] * b[i] : a[i];
      break;
    case Op::Relu:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] > 0 ? a[i] : 0.0f;
      break;
    case Op::LeakyRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] < 0 ? in.alpha * a[i] : a[i];
      break;
    case Op::Sigmoid:
      fastSigmoid(a, y, n, 0, 0);
      break;
    case Op::HardSigmoid:
      for (int64_t i = 0; i < n; ++i) y[i] = std::max(0.0f, std::min(1.0f, in.alpha * a[i] + in.beta));
      break;
    case Op::HardSwish:
      for (int64_t i = 0; i < n; ++i) y[i] = a[i] * std::max(0.0f, std::min(1.0f, a[i] / 6.0f + 0.5f));
      break;
    case Op::Tanh:
      fastTanh(a, y, n, 0, 0);
      break;
    case Op::Exp:
      fastExp(a, y, n, 0, 0);
      break;
    case Op::Log:
      for (int64_t i = 0; i < n; ++i) y[i] = std::log(a[i]);
      break;
    case Op::Sqrt:
      for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(a[i]);
      break;
    case Op::Neg:
      for (int64_t i = 0; i < n; ++i) y[i] = -a[i];
      break;
    case Op::Abs:
      for (int64_t i = 0; i < n; ++i) y[i] = std::abs(a[i]);
      break;
    case Op::Erf:
      fastErf(a, y, n, 0, 0);
      break;
    case Op::Reciprocal:
      for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / a[i];
      break;
    case Op::Floor:
      for (int64_t i = 0; i < n; ++i) y[i] = std::floor(a[i]);
      break;
    case Op::Ceil:
      for (int64_t i = 0; i < n; ++i) y[i] = std::ceil(a[i]);
      break;
    case Op::Clip:
      for (int64_t i = 0; i < n; ++i) {
        float v = a[i];
        if (b) v = std::max(v, b[i]);
        if (c) v = std::min(v, c[i]);
        y[i] = v;
      }
      break;
  }
}

}  // namespace

bool isFusibleElementwise(const Node& node) {
  const OpInfo* info = opInfo(node);
  if (!info) return false;
  int inputs = 0;
  for (const onyx::Value* v : node.inputs()) inputs += v && !v->name().empty() ? 1 : 0;
  if (int(node.inputCount()) > info->maxInputs || inputs < info->minInputs || node.outputCount() != 1)
    return false;
  if (info->op != Op::Clip && inputs != int(node.inputCount())) return false;
  // Clip may omit its bounds, never its input (an unnamed one left the register index -1).
  if (node.inputCount() == 0 || !node.input(0) || node.input(0)->name().empty()) return false;
  for (const Attribute& a : node.attributes()) {
    if (a.isReference()) return false;
    bool known = (info->op == Op::LeakyRelu && a.name() == "alpha") ||
                 (info->op == Op::HardSigmoid && (a.name() == "alpha" || a.name() == "beta"));
    if (!known) return false;  // Clip-6's min/max attributes, legacy broadcast/axis: run op by op
  }
  return true;
}

std::optional<ElementwiseProgram> compileElementwiseBody(const Graph& body) {
  if (body.outputs().size() != 1 || !body.initializers().empty()) return std::nullopt;
  ElementwiseProgram program;
  std::unordered_map<const onyx::Value*, int> registerOf;
  for (const onyx::Value* input : body.inputs()) registerOf[input] = program.inputCount++;
  program.registerCount = program.inputCount;
  for (const Node* node : body.nodes()) {
    if (!isFusibleElementwise(*node)) return std::nullopt;
    ElementwiseProgram::Instruction in;
    in.op = opInfo(*node)->op;
    int* operands[3] = {&in.a, &in.b, &in.c};
    for (size_t i = 0; i < node->inputCount(); ++i) {
      const onyx::Value* v = node->input(i);
      if (!v || v->name().empty()) continue;
      auto found = registerOf.find(v);
      if (found == registerOf.end()) return std::nullopt;  // defined later or outside: not a plain chain
      *operands[i] = found->second;
    }
    if (in.op == Op::LeakyRelu) in.alpha = node->attrFloat("alpha", 0.01f);
    if (in.op == Op::HardSigmoid) {
      in.alpha = node->attrFloat("alpha", 0.2f);
      in.beta = node->attrFloat("beta", 0.5f);
    }
    in.result = program.registerCount++;
    registerOf[node->output(0)] = in.result;
    program.code.push_back(in);
  }
  auto output = registerOf.find(body.outputs()[0]);
  if (output == registerOf.end() || output->second < program.inputCount) return std::nullopt;
  program.output = output->second;
  return program;
}

Expected<void> runElementwiseProgram(const ElementwiseProgram& program, KernelContext& context) {
  std::vector<const TensorValue*> inputs;
  for (int i = 0; i < program.inputCount; ++i) {
    auto t = context.requireTensor(size_t(i));
    if (!t) return t.error();
    if ((*t)->dtype() != DataType::Float) return context.unsupportedType(i);
    inputs.push_back(*t);
  }
  auto layout = broadcastLayout(inputs);
  if (!layout) return context.error("the inputs do not broadcast together");
  Dims outDims;
  {
    size_t rank = 0;
    for (const TensorValue* t : inputs) rank = std::max(rank, t->dims().size());
    outDims.assign(rank, 1);
    for (const TensorValue* t : inputs)
      for (size_t d = 0; d < t->dims().size(); ++d)
        outDims[rank - t->dims().size() + d] = std::max(outDims[rank - t->dims().size() + d], t->dims()[d]);
    for (const TensorValue* t : inputs)
      for (size_t d = 0; d < t->dims().size(); ++d)
        if (t->dims()[d] == 0) outDims[rank - t->dims().size() + d] = 0;
  }
  auto out = context.allocateOutput(0, DataType::Float, outDims);
  if (!out) return out.error();
  float* y = (*out)->data<float>();
  int64_t total = (*out)->count();
  if (total == 0) return {};
  const Dims& dims = layout->dims;
  size_t rank = dims.size();
  int64_t inner = dims.back();
  int64_t rows = total / inner;
  int64_t blocksPerRow = (inner + kBlock - 1) / kBlock;
  std::vector<const float*> base;
  for (const TensorValue* t : inputs) base.push_back(t->data<float>());

  auto runBlocks = [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(size_t(program.registerCount) * kBlock);
    std::vector<const float*> reg(size_t(program.registerCount));
    std::vector<int64_t> offsets(inputs.size());
    for (int64_t block = begin; block < end; ++block) {
      int64_t row = block / blocksPerRow;
      int64_t start = (block % blocksPerRow) * kBlock;
      int64_t n = std::min(kBlock, inner - start);
      std::fill(offsets.begin(), offsets.end(), 0);
      int64_t rest = row;
      for (size_t d = rank - 1; d-- > 0;) {
        int64_t index = rest % dims[d];
        rest /= dims[d];
        for (size_t i = 0; i < inputs.size(); ++i) offsets[i] += index * layout->strides[i][d];
      }
      for (size_t i = 0; i < inputs.size(); ++i) {
        int64_t step = layout->strides[i][rank - 1];
        const float* p = base[i] + offsets[i] + start * step;
        if (step == 1) {
          reg[i] = p;
        } else {
          float* buffer = scratch.data() + i * kBlock;
          for (int64_t k = 0; k < n; ++k) buffer[k] = p[k * step];  // step 0: broadcast
          reg[i] = buffer;
        }
      }
      float* result = y + row * inner + start;
      for (const auto& in : program.code) {
        float* target = in.result == program.output ? result : scratch.data() + size_t(in.result) * kBlock;
        apply(in, reg[size_t(in.a)], in.b >= 0 ? reg[size_t(in.b)] : nullptr,
              in.c >= 0 ? reg[size_t(in.c)] : nullptr, target, n);
        reg[size_t(in.result)] = target;
      }
    }
  };
  int64_t blocks = rows * blocksPerRow;
  if (total < 32768) {
    runBlocks(0, blocks);
  } else {
    context.parallelFor(blocks, std::max<int64_t>(1, 16384 / kBlock), runBlocks);
  }
  return {};
}

}  // namespace onyx::exec
