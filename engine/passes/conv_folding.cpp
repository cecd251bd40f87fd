#include "passes/conv_folding.h"

namespace onyx::passes {

std::variant<ConvWeights, PatternResult> convWeightsOf(PatternContext& context, Node& conv,
                                                       const Value* value) {
  if (!context.inScope(&conv)) return PatternResult::skipped("the Conv is outside the scope");
  // The folded weights are constants of the root's graph, which the Conv of an enclosing graph cannot read.
  if (conv.graph() != &context.graph()) return PatternResult::skipped("the Conv lies in an enclosing graph");
  if (value->uses().size() != 1)
    return PatternResult::skipped("the Conv's output '" + value->name() + "' has other uses");
  auto w = constantValue(conv.input(1));
  auto weights = constantFloats(conv.input(1));
  if (!w || !weights || w->dims().size() < 3 || w->dims()[0] <= 0)
    return PatternResult::skipped("the Conv's weights are not a constant float32 tensor");
  ConvWeights out;
  out.conv = &conv;
  out.weightDims = w->dims();
  out.weights = std::move(*weights);
  if (conv.inputCount() > 2 && conv.input(2)) {
    auto bias = constantFloats(conv.input(2));
    if (!bias || int64_t(bias->size()) != out.channels())
      return PatternResult::skipped(
          "the Conv's bias is not a constant float32 tensor of one value per channel");
    out.bias = std::move(*bias);
  } else {
    out.bias.assign(size_t(out.channels()), 0.0f);
  }
  return out;
}

std::optional<std::vector<float>> perChannelConstant(const Value* c, const ConvWeights& conv) {
  auto tensor = constantValue(c);
  auto values = constantFloats(c);
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

void writeConvWeights(PatternContext& context, const ConvWeights& conv, bool weightsChanged) {
  Rewriter& rw = context.rewriter();
  Node* node = conv.conv;
  std::string base = node->name().empty() ? node->output(0)->name() : node->name();
  Value* oldW = node->input(1);
  Value* oldB = node->inputCount() > 2 ? node->input(2) : nullptr;
  Value* w = weightsChanged
                 ? context.addConstant(
                       base + ".weight_folded",
                       Tensor::fromValues<float>(DataType::Float, conv.weightDims, conv.weights), node)
                 : oldW;
  Value* b = context.addConstant(
      base + ".bias_folded", Tensor::fromValues<float>(DataType::Float, {conv.channels()}, conv.bias), node);
  std::vector<Value*> inputs = node->inputs();
  inputs.resize(3);
  inputs[1] = w;
  inputs[2] = b;
  rw.setInputs(node, std::move(inputs));
  for (Value* old : {oldW, oldB}) {
    if (!old || !old->uses().empty()) continue;
    if (old->isInitializer() && !old->isGraphInput())
      rw.removeValue(old);
    else if (old->producer())
      removeIfUnused(rw, {old->producer()});
  }
}

PatternResult foldChannelConstantIntoConv(Node& root, PatternContext& context, const ChannelFold& fold,
                                          bool weightsChanged, const std::string& counter) {
  return matchOperandProducedBy(root, "Conv", [&](Node& convNode, Value* produced, Value* other) {
    if (!constantValue(other)) return PatternResult::noMatch();  // only Conv (op) constant is a candidate
    auto found = convWeightsOf(context, convNode, produced);
    if (auto* skip = std::get_if<PatternResult>(&found)) return *skip;
    ConvWeights conv = std::get<ConvWeights>(std::move(found));
    auto c = perChannelConstant(other, conv);
    if (!c) return PatternResult::skipped("the other operand is not a float32 constant per output channel");
    if (auto reason = whyNotReplaceable(root, {conv.conv->output(0)})) return PatternResult::skipped(*reason);
    fold(conv, *c);
    writeConvWeights(context, conv, weightsChanged);
    replaceNode(context.rewriter(), &root, {conv.conv->output(0)});
    return PatternResult::rewritten(counter);
  });
}

}  // namespace onyx::passes
