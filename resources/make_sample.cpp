// Builds the bundled sample model with the engine's own graph API and saves it: a small residual CNN
// classifier over images of any batch size and resolution (symbolic N, H, W), with exporter-style scoped
// node names and seeded weights, so every build writes the same bytes.
//
//   onyx_make_sample [--external-data] OUT.onnx
// --external-data writes tensors of 1 KiB and more to OUT.onnx.data (a test model for external data).
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace onyx {
namespace {

constexpr int kInputChannels = 3;
constexpr int kWidth = 16;  // channels of the stem and the residual block
constexpr int kClasses = 10;

class SampleBuilder {
 public:
  SampleBuilder() : rw_(model_), graph_(model_.graph()) {}

  Model& model() { return model_; }

  Value* input(const std::string& name, Shape shape) {
    return rw_.addGraphInput(graph_, name, Type::tensor(DataType::Float, std::move(shape)));
  }

  // Uniform in [-bound, bound] from the generator's raw bits: std::uniform_real_distribution differs
  // between standard libraries, mt19937's output sequence does not.
  Value* weight(const std::string& name, std::vector<int64_t> dims, float bound) {
    int64_t count = 1;
    for (int64_t dim : dims) count *= dim;
    std::vector<float> values(static_cast<size_t>(count));
    for (float& value : values) value = (float(random_() >> 8) / float(1 << 24) * 2.0f - 1.0f) * bound;
    return rw_.addInitializer(graph_, name, Tensor::fromValues(DataType::Float, std::move(dims), values));
  }

  Value* node(const std::string& opType, const std::string& name, std::vector<Value*> inputs,
              std::vector<Attribute> attributes = {}) {
    // Output names as PyTorch's exporter writes them: "/stem/conv/Conv_output_0".
    Node* node = rw_.addNode(graph_, {.opType = opType,
                                      .domain = "",
                                      .name = name,
                                      .inputs = std::move(inputs),
                                      .outputNames = {name + "_output_0"},
                                      .attributes = std::move(attributes),
                                      .overload = "",
                                      .docString = "",
                                      .unknownFields = ""});
    return node->output(0);
  }

  // A 3x3 same-padded convolution with He-scaled weights.
  Value* conv(const std::string& scope, Value* x, int64_t inChannels, int64_t outChannels) {
    float bound = std::sqrt(6.0f / float(inChannels * 9));
    Value* w = weight(scope + ".weight", {outChannels, inChannels, 3, 3}, bound);
    Value* b = weight(scope + ".bias", {outChannels}, 0.1f);
    return node("Conv", scope + "/Conv", {x, w, b},
                {Attribute::ofInts("kernel_shape", {3, 3}), Attribute::ofInts("pads", {1, 1, 1, 1}),
                 Attribute::ofInts("strides", {1, 1})});
  }

  Rewriter& rewriter() { return rw_; }
  Graph& graph() { return graph_; }

 private:
  Model model_;
  Rewriter rw_;
  Graph& graph_;
  std::mt19937 random_{20240521};
};

void buildSample(SampleBuilder& b) {
  Model& model = b.model();
  model.irVersion = 8;
  model.opsetImports = {{"", 17}};
  model.producerName = "onyx-make-sample";
  model.producerVersion = "0.1.0";
  model.domain = "ai.onyx.samples";
  model.modelVersion = 1;
  model.docString =
      "A small residual CNN classifier bundled with Onyx; weights are seeded random, not trained.";
  model.metadata = {{"description", "3x3 conv stem, one residual block, global pooling, 10-way softmax"},
                    {"license", "MIT"}};
  b.rewriter().setGraphMetadata(b.graph(), "sample_cnn", "", "");

  Value* image =
      b.input("image", Shape{Dim::symbol("N"), kInputChannels, Dim::symbol("H"), Dim::symbol("W")});
  Value* x = b.conv("/stem/conv", image, kInputChannels, kWidth);
  x = b.node("Relu", "/stem/relu/Relu", {x});
  Value* pooled = b.node("MaxPool", "/stem/pool/MaxPool", {x},
                         {Attribute::ofInts("kernel_shape", {2, 2}), Attribute::ofInts("strides", {2, 2})});

  Value* y = b.conv("/block1/conv1", pooled, kWidth, kWidth);
  y = b.node("Relu", "/block1/relu1/Relu", {y});
  y = b.conv("/block1/conv2", y, kWidth, kWidth);
  y = b.node("Add", "/block1/add/Add", {y, pooled});
  y = b.node("Relu", "/block1/relu/Relu", {y});

  Value* features = b.node("GlobalAveragePool", "/head/pool/GlobalAveragePool", {y});
  features = b.node("Flatten", "/head/flatten/Flatten", {features}, {Attribute::ofInt("axis", 1)});
  Value* fcWeight = b.weight("/head/fc.weight", {kClasses, kWidth}, std::sqrt(6.0f / kWidth));
  Value* fcBias = b.weight("/head/fc.bias", {kClasses}, 0.1f);
  Value* logits =
      b.node("Gemm", "/head/fc/Gemm", {features, fcWeight, fcBias}, {Attribute::ofInt("transB", 1)});
  Value* probabilities = b.node("Softmax", "/head/softmax/Softmax", {logits}, {Attribute::ofInt("axis", -1)});

  b.rewriter().renameValue(probabilities, "probabilities");
  b.rewriter().setType(probabilities, Type::tensor(DataType::Float, Shape{Dim::symbol("N"), kClasses}));
  b.rewriter().setGraphOutputs(b.graph(), {probabilities});
}

}  // namespace
}  // namespace onyx

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  onyx::SaveOptions options;
  if (!args.empty() && args[0] == "--external-data") {
    options.weights = onyx::SaveOptions::Weights::External;
    args.erase(args.begin());
  }
  if (args.size() != 1) {
    std::cerr << "usage: onyx_make_sample [--external-data] OUT.onnx\n";
    return 2;
  }
  onyx::SampleBuilder builder;
  onyx::buildSample(builder);
  auto saved = onyx::saveModel(builder.model(), args[0], options);
  if (!saved) {
    std::cerr << "error: " << args[0] << ": " << saved.error().toString() << "\n";
    return 1;
  }
  return 0;
}
