#include "exec/channels_last.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace onyx::exec {

bool isLayoutTransparent(const Node& node) {
  static constexpr std::array<std::string_view, 21> kOps = {
      "Abs",  "Add",  "Clip", "Div",       "Elu",  "Erf",  "Exp",   "Gelu",    "HardSigmoid", "HardSwish", "LeakyRelu",
      "Mul",  "Neg",  "PRelu", "Relu",     "Selu", "Sigmoid", "Softplus", "Sqrt", "Sub",       "Tanh"};
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  if (node.outputCount() != 1 || !node.subgraphs().empty()) return false;
  return std::find(kOps.begin(), kOps.end(), node.opType()) != kOps.end();
}

std::optional<std::vector<RunValue>> channelsLastViews(std::span<const RunValue* const> inputs, Dims& logical) {
  const TensorValue* reference = nullptr;  // the largest channels-last operand
  for (const RunValue* in : inputs)
    if (const auto* t = std::get_if<TensorValue>(in); t && t->channelsLast() && (!reference || t->count() > reference->count()))
      reference = t;
  if (!reference) return std::nullopt;
  logical = reference->dims();
  const size_t rank = logical.size();
  std::vector<RunValue> views;
  for (const RunValue* in : inputs) {
    const auto* t = std::get_if<TensorValue>(in);
    if (!t) {
      if (!std::holds_alternative<std::monostate>(*in)) return std::nullopt;
      views.emplace_back();
      continue;
    }
    if (t->channelsLast() && t->dims() == logical) {
      views.emplace_back(t->reshaped(TensorValue::channelsLastOrder(logical)));
      continue;
    }
    // Other operands as plain tensors: a channels-last one without spatial extent ([N,C,1,1], the
    // squeeze-excitation scale) has the same bytes in both orders.
    if (t->channelsLast() && t->count() / std::max<int64_t>(t->dim(0) * t->dim(1), 1) != 1) return std::nullopt;
    if (size_t(t->rank()) > rank) return std::nullopt;
    if (t->count() == 1) {
      views.emplace_back(t->reshaped(t->dims()));
      continue;
    }
    // Aligned from the right to the channels-last operand's rank: only batch and channels may vary, so
    // the bytes read the same in both orders.
    Dims aligned(rank - size_t(t->rank()), 1);
    aligned.insert(aligned.end(), t->dims().begin(), t->dims().end());
    for (size_t axis = 2; axis < rank; ++axis)
      if (aligned[axis] != 1) return std::nullopt;
    for (size_t axis = 0; axis < 2; ++axis)
      if (aligned[axis] != 1 && aligned[axis] != logical[axis]) return std::nullopt;
    views.emplace_back(t->reshaped(TensorValue::channelsLastOrder(aligned)));
  }
  return views;
}

bool adoptChannelsLast(RunValue& output, const Dims& logical) {
  auto* t = std::get_if<TensorValue>(&output);
  if (!t || t->dims() != TensorValue::channelsLastOrder(logical)) return false;
  *t = t->reshaped(logical);
  t->setChannelsLast(true);
  return true;
}

RunValue plainLayout(const RunValue& value) {
  const auto* t = std::get_if<TensorValue>(&value);
  return t && !t->isPlainLayout() ? RunValue(t->toPlainLayout()) : value;
}

const float* ChannelsLastStaging::input(const TensorValue& x) {
  if (x.channelsLast()) return x.data<float>();
  input_.resize(size_t(x.count()));
  const int64_t pixels = x.count() / std::max<int64_t>(x.dim(0) * x.dim(1), 1);
  transposeBatches(x.data<float>(), input_.data(), x.dim(0), x.dim(1), pixels);
  return input_.data();
}

float* ChannelsLastStaging::output(TensorValue& y) {
  if (y.channelsLast()) return y.data<float>();
  output_.resize(size_t(y.count()));
  return output_.data();
}

void ChannelsLastStaging::finish(TensorValue& y) const {
  if (y.channelsLast()) return;
  const int64_t pixels = y.count() / std::max<int64_t>(y.dim(0) * y.dim(1), 1);
  transposeBatches(output_.data(), y.data<float>(), y.dim(0), pixels, y.dim(1));
}

}  // namespace onyx::exec
