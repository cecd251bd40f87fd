// Shape functions of string, signal-processing, classic-ML and training ops.
#include "catalog/op_registry.h"
#include "shapes/shape_helpers.h"

namespace onyx {

using namespace shapes;

namespace {

Expected<void> inferStringNormalizer(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::String)) return {};
  Shape out = *ctx.inputShape(0);
  auto stopwords = ctx.attr("stopwords");
  if (stopwords && stopwords->getStrings() && !stopwords->getStrings()->empty() && !out.empty()) {
    out.back() = ctx.unknownDim("StringNormalizer: how many strings remain after removing stopwords depends on the data");
  }
  ctx.setOutputTensor(0, DataType::String, std::move(out));
  return {};
}

Expected<void> inferStringSplit(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::String)) {
    ctx.setOutputUnknownRank(1, DataType::Int64, ctx.rankOriginOf(0));
    return {};
  }
  Shape out = *ctx.inputShape(0);
  ctx.setOutputTensor(1, DataType::Int64, out);
  out.push_back(ctx.unknownDim("StringSplit: the most substrings in one string depends on the data"));
  ctx.setOutputTensor(0, DataType::String, std::move(out));
  return {};
}

Expected<void> inferStringConcat(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::String) || forwardUnknownRank(ctx, 1, 0, DataType::String)) return {};
  const size_t inputs[] = {0, 1};
  auto shape = ctx.broadcast(inputs);
  if (!shape) return shape.error();
  ctx.setOutputTensor(0, DataType::String, std::move(*shape));
  return {};
}

Expected<void> inferRegexFullMatch(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Bool)) return {};
  ctx.setOutputTensor(0, DataType::Bool, *ctx.inputShape(0));
  return {};
}

Expected<void> inferTfIdfVectorizer(ShapeContext& ctx) {
  if (forwardUnknownRank(ctx, 0, 0, DataType::Float)) return {};
  const Shape& x = *ctx.inputShape(0);
  auto indexes = ctx.attrInts("ngram_indexes");
  if (!indexes || indexes->empty()) return ctx.error("TfIdfVectorizer needs ngram_indexes");
  Dim width(*std::max_element(indexes->begin(), indexes->end()) + 1);
  if (x.size() == 2) ctx.setOutputTensor(0, DataType::Float, {x[0], width});
  else ctx.setOutputTensor(0, DataType::Float, {width});
  return {};
}

Expected<void> inferImageDecoder(ShapeContext& ctx) {
  std::string format = ctx.attrString("pixel_format", "RGB");
  Dim height = ctx.unknownDim("ImageDecoder: image height is stored in the encoded data");
  Dim width = ctx.unknownDim("ImageDecoder: image width is stored in the encoded data");
  ctx.setOutputTensor(0, DataType::Uint8, {height, width, Dim(format == "Grayscale" ? 1 : 3)});
  return {};
}

Expected<void> inferDft(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  if (out.size() < 2) return ctx.error("DFT input needs rank >= 2 (the last dim holds real/imaginary parts)");
  int64_t axis = 1;
  if (ctx.opset() >= 20) {
    auto given = ctx.hasInput(2) ? ctx.inputInts(2) : std::optional<std::vector<int64_t>>(std::vector<int64_t>{-2});
    if (!given || given->size() != 1) {
      ctx.setOutputTensor(0, elem, ctx.unknownDims(out.size(), runtimeReason(ctx, 2, "the axis")));
      return {};
    }
    axis = (*given)[0];
  } else {
    axis = ctx.attrInt("axis", 1);
  }
  auto normalized = ctx.normalizeAxis(axis, out.size());
  if (!normalized) return normalized.error();
  bool onesided = ctx.attrInt("onesided", 0) != 0;
  bool inverse = ctx.attrInt("inverse", 0) != 0;
  if (onesided && inverse) {
    // An inverse of a one-sided spectrum: n/2 + 1 bins give 2*(n - 1) real samples (or dft_length).
    const auto& length = ctx.hasInput(1) ? ctx.inputValue(1) : std::nullopt;
    out[*normalized] = length && length->size() == 1 ? (*length)[0] : dimMul(dimSub(out[*normalized], Dim(1)), Dim(2));
    out.back() = Dim(1);
    ctx.setOutputTensor(0, elem, std::move(out));
    return {};
  }
  if (ctx.hasInput(1)) {
    const auto& length = ctx.inputValue(1);
    out[*normalized] = length && length->size() == 1 ? (*length)[0] : ctx.unknownDim(runtimeReason(ctx, 1, "the DFT length"));
  }
  if (onesided) out[*normalized] = dimAdd(dimFloorDiv(out[*normalized], Dim(2)), Dim(1));
  out.back() = Dim(2);
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

Expected<void> inferStft(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  const Shape& signal = *ctx.inputShape(0);
  if (signal.size() != 3) return ctx.error("STFT signal must have rank 3 (batch, length, 1 or 2)");
  const auto& step = ctx.inputValue(1);
  Dim frameLength;
  if (const auto& given = ctx.inputValue(3); given && given->size() == 1) frameLength = (*given)[0];
  else if (const auto& window = ctx.inputShape(2); window && window->size() == 1) frameLength = (*window)[0];
  else frameLength = ctx.unknownDim("STFT: frame length comes from a runtime tensor");
  Dim frames = step && step->size() == 1 ? dimAdd(dimFloorDiv(dimSub(signal[1], frameLength), (*step)[0]), Dim(1))
                                         : ctx.unknownDim(runtimeReason(ctx, 1, "the frame step"));
  Dim bins = ctx.attrInt("onesided", 1) != 0 ? dimAdd(dimFloorDiv(frameLength, Dim(2)), Dim(1)) : frameLength;
  ctx.setOutputTensor(0, elem, {signal[0], frames, bins, Dim(2)});
  return {};
}

Expected<void> inferWindow(ShapeContext& ctx) {
  DataType elem = static_cast<DataType>(ctx.attrInt("output_datatype", static_cast<int64_t>(DataType::Float)));
  const auto& size = ctx.inputValue(0);
  ctx.setOutputTensor(0, elem, {size && size->size() == 1 ? (*size)[0] : ctx.unknownDim(runtimeReason(ctx, 0, "the window size"))});
  return {};
}

Expected<void> inferMelWeightMatrix(ShapeContext& ctx) {
  DataType elem = static_cast<DataType>(ctx.attrInt("output_datatype", static_cast<int64_t>(DataType::Float)));
  const auto& bins = ctx.inputValue(0);
  const auto& dftLength = ctx.inputValue(1);
  Dim rows = dftLength && dftLength->size() == 1 ? dimAdd(dimFloorDiv((*dftLength)[0], Dim(2)), Dim(1))
                                                 : ctx.unknownDim(runtimeReason(ctx, 1, "the DFT length"));
  Dim columns = bins && bins->size() == 1 ? (*bins)[0] : ctx.unknownDim(runtimeReason(ctx, 0, "the number of mel bins"));
  ctx.setOutputTensor(0, elem, {rows, columns});
  return {};
}

Expected<void> inferLabelEncoder(ShapeContext& ctx) {
  DataType elem = DataType::Float;
  if (ctx.hasAttr("values_strings")) elem = DataType::String;
  else if (ctx.hasAttr("values_int64s")) elem = DataType::Int64;
  else if (const Tensor* values = ctx.attrTensor("values_tensor")) elem = values->dtype();
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  ctx.setOutputTensor(0, elem, *ctx.inputShape(0));
  return {};
}

Expected<void> inferTreeEnsemble(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  const auto& x = ctx.inputShape(0);
  Dim rows = x && !x->empty() ? (*x)[0] : Dim::unknown(ctx.rankOriginOf(0));
  ctx.setOutputTensor(0, elem, {rows, Dim(ctx.attrInt("n_targets", 1))});
  return {};
}

Expected<void> inferArrayFeatureExtractor(ShapeContext& ctx) {
  DataType elem = ctx.inputElemType(0);
  if (forwardUnknownRank(ctx, 0, 0, elem)) return {};
  Shape out = *ctx.inputShape(0);
  const auto& indices = ctx.inputShape(1);
  Dim count = indices ? dimProduct(*indices) : Dim::unknown(ctx.rankOriginOf(1));
  if (out.size() <= 1) out = {Dim(1), count};
  else out.back() = count;
  ctx.setOutputTensor(0, elem, std::move(out));
  return {};
}

// Momentum, Adagrad and Adam: inputs R, T, then groups of n tensors (X, G, state...); outputs are the same
// groups without G, each output taking the type of its input.
Expected<void> inferTrainingOptimizer(ShapeContext& ctx) {
  if (ctx.inputCount() < 2 + ctx.outputCount() || ctx.outputCount() == 0) return ctx.error(ctx.node().opType() + " has too few inputs");
  size_t n = ctx.inputCount() - 2 - ctx.outputCount();
  if (n == 0) return ctx.error(ctx.node().opType() + " inputs and outputs do not form groups");
  for (size_t j = 0; j < ctx.outputCount(); ++j) {
    size_t group = j / n;
    size_t input = group == 0 ? 2 + j : 2 + (group + 1) * n + j % n;
    InferredValue out = ctx.input(input);
    out.constant = nullptr;
    out.value = std::nullopt;
    ctx.setOutput(j, std::move(out));
  }
  return {};
}

Expected<void> inferGradient(ShapeContext& ctx) {
  const Attribute* xs = ctx.attr("xs");
  const auto* names = xs ? xs->getStrings() : nullptr;
  if (!names) return ctx.error("Gradient needs the 'xs' attribute");
  for (size_t i = 0; i < ctx.outputCount() && i < names->size(); ++i) {
    const InferredValue* x = ctx.valueNamed((*names)[i]);
    if (!x) return ctx.error("Gradient: no value named '" + (*names)[i] + "'");
    InferredValue out = *x;
    out.constant = nullptr;
    out.value = std::nullopt;
    ctx.setOutput(i, std::move(out));
  }
  return {};
}

}  // namespace

void registerMiscSchemas(OpRegistry& registry) {
  registry.add({"", "StringNormalizer", OpCategory::Other, {10}, 1, 1, 1, 1, false, inferStringNormalizer});
  registry.add({"", "StringSplit", OpCategory::Other, {20}, 1, 1, 2, 2, false, inferStringSplit});
  registry.add({"", "StringConcat", OpCategory::Other, {20}, 2, 2, 1, 1, false, inferStringConcat});
  registry.add({"", "RegexFullMatch", OpCategory::Other, {20}, 1, 1, 1, 1, false, inferRegexFullMatch});
  registry.add({"", "TfIdfVectorizer", OpCategory::Other, {9}, 1, 1, 1, 1, false, inferTfIdfVectorizer});
  registry.add({"", "ImageDecoder", OpCategory::Other, {20}, 1, 1, 1, 1, false, inferImageDecoder});
  registry.add({"", "DFT", OpCategory::Other, {17, 20}, 1, 3, 1, 1, false, inferDft});
  registry.add({"", "STFT", OpCategory::Other, {17}, 2, 4, 1, 1, false, inferStft});
  registry.add({"", "HammingWindow", OpCategory::Creation, {17}, 1, 1, 1, 1, false, inferWindow});
  registry.add({"", "HannWindow", OpCategory::Creation, {17}, 1, 1, 1, 1, false, inferWindow});
  registry.add({"", "BlackmanWindow", OpCategory::Creation, {17}, 1, 1, 1, 1, false, inferWindow});
  registry.add({"", "MelWeightMatrix", OpCategory::Creation, {17}, 5, 5, 1, 1, false, inferMelWeightMatrix});
  registry.add({"ai.onnx.ml", "LabelEncoder", OpCategory::Other, {1, 2, 4}, 1, 1, 1, 1, false, inferLabelEncoder});
  registry.add({"ai.onnx.ml", "TreeEnsemble", OpCategory::Other, {5}, 1, 1, 1, 1, false, inferTreeEnsemble});
  registry.add({"ai.onnx.ml", "Binarizer", OpCategory::Other, {1}, 1, 1, 1, 1, true, inferUnary});
  registry.add({"ai.onnx.ml", "ArrayFeatureExtractor", OpCategory::Other, {1}, 2, 2, 1, 1, false, inferArrayFeatureExtractor});
  registry.add({"ai.onnx.preview.training", "Momentum", OpCategory::Other, {1}, 3, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferTrainingOptimizer});
  registry.add({"ai.onnx.preview.training", "Adagrad", OpCategory::Other, {1}, 3, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferTrainingOptimizer});
  registry.add({"ai.onnx.preview.training", "Adam", OpCategory::Other, {1}, 3, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferTrainingOptimizer});
  registry.add({"ai.onnx.preview.training", "Gradient", OpCategory::Other, {1}, 1, OpSchema::kVariadic, 1, OpSchema::kVariadic, false, inferGradient});
}

}  // namespace onyx
