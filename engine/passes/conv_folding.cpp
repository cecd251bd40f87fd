#include "passes/conv_folding.h"

#include "passes/rewrite_helpers.h"

namespace onyx::passes {

namespace {
std::optional<std::vector<float>> floats(const Value* value) {
  const Tensor* tensor = constantOf(value);
  if (!tensor || tensor->dtype() != DataType::Float || tensor->isExternal()) return std::nullopt;
  auto span = tensor->values<float>();
  if (int64_t(span.size()) != tensor->elementCount()) return std::nullopt;
  return std::vector<float>(span.begin(), span.end());
}
}  // namespace

std::variant<ConvWeights, std::string> convFeeding(PassContext& context, const Value* value) {
  Node* conv = producerOf(value, "Conv");
  if (!conv) return std::string();
  if (!context.inScope(*conv)) return std::string("the Conv is outside the scope");
  if (value->uses().size() != 1) return "the Conv's output '" + value->name() + "' has other uses";
  const Tensor* w = constantOf(conv->input(1));
  auto weights = floats(conv->input(1));
  if (!w || !weights || w->dims().size() < 3 || w->dims()[0] <= 0)
    return std::string("the Conv's weights are not a constant float32 tensor");
  ConvWeights out;
  out.conv = conv;
  out.weightDims = w->dims();
  out.weights = std::move(*weights);
  if (conv->inputCount() > 2 && conv->input(2)) {
    auto bias = floats(conv->input(2));
    if (!bias || int64_t(bias->size()) != out.channels())
      return std::string("the Conv's bias is not a constant float32 tensor of one value per channel");
    out.bias = std::move(*bias);
  } else {
    out.bias.assign(size_t(out.channels()), 0.0f);
  }
  return out;
}

std::optional<std::vector<float>> perChannelConstant(const Value* c, const ConvWeights& conv) {
  const Tensor* tensor = constantOf(c);
  auto values = floats(c);
  if (!tensor || !values) return std::nullopt;
  const auto& dims = tensor->dims();
  size_t outRank = conv.weightDims.size();
  if (dims.size() > outRank) return std::nullopt;
  int64_t m = conv.channels();
  // Align right against [N, M, spatial...]: every dim is 1 but the channel dim, which is 1 or M.
  size_t channelAt = outRank - 1 - 1;  // index from the right of the channel axis
  for (size_t r = 0; r < dims.size(); ++r) {
    size_t fromRight = dims.size() - 1 - r;
    int64_t d = dims[r];
    if (fromRight == channelAt ? (d != 1 && d != m) : d != 1) return std::nullopt;
  }
  if (values->size() == 1) return std::vector<float>(size_t(m), (*values)[0]);
  if (int64_t(values->size()) != m) return std::nullopt;
  return values;
}

void writeConvWeights(PassContext& context, const ConvWeights& conv, bool weightsChanged) {
  Rewriter& rw = context.rewriter();
  Graph& graph = *conv.conv->graph();
  std::string base = conv.conv->name().empty() ? conv.conv->output(0)->name() : conv.conv->name();
  Value* oldW = conv.conv->input(1);
  Value* oldB = conv.conv->inputCount() > 2 ? conv.conv->input(2) : nullptr;
  Value* w = weightsChanged
                 ? addFloatInitializer(rw, graph, base + ".weight_folded", conv.weightDims, conv.weights)
                 : oldW;
  Value* b = addFloatInitializer(rw, graph, base + ".bias_folded", {conv.channels()}, conv.bias);
  std::vector<Value*> inputs = conv.conv->inputs();
  inputs.resize(3);
  inputs[1] = w;
  inputs[2] = b;
  rw.setInputs(conv.conv, std::move(inputs));
  for (Value* old : {oldW, oldB}) {
    if (!old || !old->uses().empty() || isGraphOutput(old)) continue;
    if (old->isInitializer() && !old->isGraphInput())
      rw.removeValue(old);
    else if (old->producer())
      removeIfUnused(rw, {old->producer()});
  }
}

}  // namespace onyx::passes
