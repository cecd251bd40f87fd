#include "layout/synthetic_models.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/rewriter.h"

namespace onyx::layout {
namespace {

class NetBuilder {
 public:
  NetBuilder() : model_(std::make_unique<Model>()), rw_(*model_), graph_(model_->graph()) {}

  // An initializer; generated weights of one shape share one zero buffer so 100k-node graphs stay small.
  Value* weight(const std::string& name, std::vector<int64_t> dims, DataType dtype = DataType::Float) {
    auto& buffer = buffers_[{static_cast<int>(dtype), dims}];
    if (!buffer) {
      int64_t count = 1;
      for (int64_t d : dims) count *= d;
      buffer = Buffer::fromVector(std::vector<std::byte>(dataTypeStorageBytes(dtype, count)));
    }
    return rw_.addInitializer(graph_, uniqueValueName(name), Tensor(dtype, std::move(dims), buffer));
  }

  // A node named "<scope>/<op>" (with "_K" when the scope already has one), with one output of `type`.
  Value* op(const std::string& scope, const std::string& opType, std::vector<Value*> inputs, Type type,
            std::vector<Attribute> attributes = {}) {
    std::string name = scope + "/" + opType;
    if (int seen = nameCounts_[name]++; seen > 0) name += "_" + std::to_string(seen);
    Rewriter::NodeSpec spec;
    spec.opType = opType;
    spec.name = name;
    spec.inputs = std::move(inputs);
    spec.outputNames = {name + "_output_0"};
    spec.attributes = std::move(attributes);
    Node* node = rw_.addNode(graph_, std::move(spec));
    rw_.setType(node->output(0), std::move(type));
    return node->output(0);
  }

  Value* input(const std::string& name, Type type) {
    return rw_.addGraphInput(graph_, name, std::move(type));
  }
  void outputs(std::vector<Value*> values) { rw_.setGraphOutputs(graph_, std::move(values)); }
  std::unique_ptr<Model> finish() { return std::move(model_); }

 private:
  std::string uniqueValueName(const std::string& name) {
    int seen = nameCounts_[name]++;
    return seen == 0 ? name : name + "_" + std::to_string(seen);
  }

  std::unique_ptr<Model> model_;
  Rewriter rw_;
  Graph& graph_;
  std::map<std::pair<int, std::vector<int64_t>>, std::shared_ptr<const Buffer>> buffers_;
  std::unordered_map<std::string, int> nameCounts_;
};

Type image(int64_t channels, int64_t height, int64_t width) {
  return Type::tensor(DataType::Float, Shape{Dim::symbol("N"), channels, height, width});
}

struct Feature {
  Value* value;
  int64_t channels;
  int64_t size;  // square spatial size
};

Feature convBn(NetBuilder& b, const std::string& scope, const std::string& convName,
               const std::string& bnName, Feature in, int64_t channels, int64_t kernel, int64_t stride) {
  int64_t pad = kernel / 2;
  int64_t size = (in.size + 2 * pad - kernel) / stride + 1;
  Value* w = b.weight(scope + convName + ".weight", {channels, in.channels, kernel, kernel});
  Value* conv =
      b.op(scope + "/" + convName, "Conv", {in.value, w}, image(channels, size, size),
           {Attribute::ofInts("kernel_shape", {kernel, kernel}),
            Attribute::ofInts("strides", {stride, stride}), Attribute::ofInts("pads", {pad, pad, pad, pad}),
            Attribute::ofInts("dilations", {1, 1}), Attribute::ofInt("group", 1)});
  std::vector<Value*> bnInputs{conv};
  for (const char* part : {".weight", ".bias", ".running_mean", ".running_var"}) {
    bnInputs.push_back(b.weight(scope + bnName + part, {channels}));
  }
  Value* bn = b.op(scope + "/" + bnName, "BatchNormalization", bnInputs, image(channels, size, size),
                   {Attribute::ofFloat("epsilon", 1e-5f), Attribute::ofFloat("momentum", 0.9f)});
  return {bn, channels, size};
}

Feature relu(NetBuilder& b, const std::string& scope, Feature in) {
  return {b.op(scope, "Relu", {in.value}, image(in.channels, in.size, in.size)), in.channels, in.size};
}

Feature bottleneck(NetBuilder& b, const std::string& scope, Feature in, int64_t width, int64_t stride,
                   bool downsample) {
  Feature x = relu(b, scope + "/relu", convBn(b, scope, "conv1", "bn1", in, width, 1, 1));
  x = relu(b, scope + "/relu_1", convBn(b, scope, "conv2", "bn2", x, width, 3, stride));
  x = convBn(b, scope, "conv3", "bn3", x, width * 4, 1, 1);
  Feature identity = in;
  if (downsample)
    identity = convBn(b, scope + "/downsample", "downsample.0", "downsample.1", in, width * 4, 1, stride);
  Value* sum = b.op(scope, "Add", {x.value, identity.value}, image(x.channels, x.size, x.size));
  return relu(b, scope + "/relu_2", {sum, x.channels, x.size});
}

}  // namespace

std::unique_ptr<Model> makeResNet50Like() {
  NetBuilder b;
  Feature x{b.input("input", image(3, 224, 224)), 3, 224};
  x = convBn(b, "", "conv1", "bn1", x, 64, 7, 2);
  x = relu(b, "/relu", x);
  int64_t pooled = (x.size + 2 - 3) / 2 + 1;
  x = {b.op("/maxpool", "MaxPool", {x.value}, image(64, pooled, pooled),
            {Attribute::ofInts("kernel_shape", {3, 3}), Attribute::ofInts("strides", {2, 2}),
             Attribute::ofInts("pads", {1, 1, 1, 1})}),
       64, pooled};
  const int blocks[] = {3, 4, 6, 3};
  for (int layer = 0; layer < 4; ++layer) {
    int64_t width = int64_t{64} << layer;
    for (int block = 0; block < blocks[layer]; ++block) {
      std::string scope = "/layer" + std::to_string(layer + 1) + "/layer" + std::to_string(layer + 1) + "." +
                          std::to_string(block);
      int64_t stride = block == 0 && layer > 0 ? 2 : 1;
      x = bottleneck(b, scope, x, width, stride, block == 0);
    }
  }
  Value* pooled1 = b.op("/avgpool", "GlobalAveragePool", {x.value}, image(x.channels, 1, 1));
  Value* flat =
      b.op("", "Flatten", {pooled1}, Type::tensor(DataType::Float, Shape{Dim::symbol("N"), x.channels}),
           {Attribute::ofInt("axis", 1)});
  Value* logits = b.op(
      "/fc", "Gemm", {flat, b.weight("fc.weight", {1000, x.channels}), b.weight("fc.bias", {1000})},
      Type::tensor(DataType::Float, Shape{Dim::symbol("N"), 1000}),
      {Attribute::ofFloat("alpha", 1.0f), Attribute::ofFloat("beta", 1.0f), Attribute::ofInt("transB", 1)});
  b.outputs({logits});
  return b.finish();
}

namespace {

constexpr int64_t kHidden = 768;
constexpr int64_t kHeads = 12;

Type hiddenType(int64_t width = kHidden) {
  return Type::tensor(DataType::Float, Shape{Dim::symbol("N"), Dim::symbol("S"), width});
}
Type headsType() {
  return Type::tensor(DataType::Float, Shape{Dim::symbol("N"), kHeads, Dim::symbol("S"), kHidden / kHeads});
}

Value* linear(NetBuilder& b, const std::string& scope, Value* x, int64_t in, int64_t out) {
  Value* product = b.op(scope, "MatMul", {x, b.weight(scope + ".weight", {in, out})}, hiddenType(out));
  return b.op(scope, "Add", {product, b.weight(scope + ".bias", {out})}, hiddenType(out));
}

Value* layerNorm(NetBuilder& b, const std::string& scope, Value* x) {
  return b.op(scope, "LayerNormalization",
              {x, b.weight(scope + ".weight", {kHidden}), b.weight(scope + ".bias", {kHidden})}, hiddenType(),
              {Attribute::ofInt("axis", -1), Attribute::ofFloat("epsilon", 1e-12f)});
}

Value* heads(NetBuilder& b, const std::string& scope, Value* x) {
  Value* shape = b.weight(scope + ".shape", {4}, DataType::Int64);
  Value* split = b.op(
      scope, "Reshape", {x, shape},
      Type::tensor(DataType::Float, Shape{Dim::symbol("N"), Dim::symbol("S"), kHeads, kHidden / kHeads}));
  return b.op(scope, "Transpose", {split}, headsType(), {Attribute::ofInts("perm", {0, 2, 1, 3})});
}

Value* encoderLayer(NetBuilder& b, const std::string& scope, Value* x) {
  std::string attention = scope + "/attention";
  Value* q = heads(b, attention, linear(b, attention + "/query", x, kHidden, kHidden));
  Value* k = heads(b, attention, linear(b, attention + "/key", x, kHidden, kHidden));
  Value* v = heads(b, attention, linear(b, attention + "/value", x, kHidden, kHidden));
  Type scoresType =
      Type::tensor(DataType::Float, Shape{Dim::symbol("N"), kHeads, Dim::symbol("S"), Dim::symbol("S")});
  Value* kT = b.op(attention, "Transpose", {k}, headsType(), {Attribute::ofInts("perm", {0, 1, 3, 2})});
  Value* scores = b.op(attention, "MatMul", {q, kT}, scoresType);
  Value* scaled = b.op(attention, "Div", {scores, b.weight(attention + ".scale", {})}, scoresType);
  Value* probs = b.op(attention, "Softmax", {scaled}, scoresType, {Attribute::ofInt("axis", -1)});
  Value* context = b.op(attention, "MatMul", {probs, v}, headsType());
  Value* merged =
      b.op(attention, "Transpose", {context}, headsType(), {Attribute::ofInts("perm", {0, 2, 1, 3})});
  Value* flat = b.op(attention, "Reshape",
                     {merged, b.weight(attention + ".merge_shape", {3}, DataType::Int64)}, hiddenType());
  Value* projected = linear(b, attention + "/output", flat, kHidden, kHidden);
  Value* h = layerNorm(b, scope + "/attention_norm", b.op(scope, "Add", {x, projected}, hiddenType()));

  std::string mlp = scope + "/mlp";
  Value* up = linear(b, mlp + "/up", h, kHidden, 4 * kHidden);
  // Gelu as exporters spell it before opset 20: x * 0.5 * (1 + erf(x / sqrt(2))).
  Value* divided = b.op(mlp, "Div", {up, b.weight(mlp + ".sqrt2", {})}, hiddenType(4 * kHidden));
  Value* erf = b.op(mlp, "Erf", {divided}, hiddenType(4 * kHidden));
  Value* shifted = b.op(mlp, "Add", {erf, b.weight(mlp + ".one", {})}, hiddenType(4 * kHidden));
  Value* gated = b.op(mlp, "Mul", {up, shifted}, hiddenType(4 * kHidden));
  Value* gelu = b.op(mlp, "Mul", {gated, b.weight(mlp + ".half", {})}, hiddenType(4 * kHidden));
  Value* down = linear(b, mlp + "/down", gelu, 4 * kHidden, kHidden);
  return layerNorm(b, scope + "/output_norm", b.op(scope, "Add", {h, down}, hiddenType()));
}

constexpr size_t kNodesPerLayer = 34;

}  // namespace

std::unique_ptr<Model> makeNetworkLike(const NetworkShape& shape) {
  NetBuilder b;
  Value* ids = b.input("input_ids", Type::tensor(DataType::Int64, Shape{Dim::symbol("N"), Dim::symbol("S")}));
  Value* embedded =
      b.op("/embeddings/word_embeddings", "Gather",
           {b.weight("embeddings.word_embeddings.weight", {30522, kHidden}), ids}, hiddenType());
  Value* positioned =
      b.op("/embeddings", "Add", {embedded, b.weight("embeddings.position_embeddings", {512, kHidden})},
           hiddenType());
  Value* x = layerNorm(b, "/embeddings/LayerNorm", positioned);
  size_t layers = shape.nodes > 3 + kNodesPerLayer ? (shape.nodes - 3) / kNodesPerLayer : 1;
  for (size_t layer = 0; layer < layers; ++layer) {
    std::string scope = "/encoder";
    if (shape.layersPerStage > 0) scope += "/stage." + std::to_string(layer / shape.layersPerStage);
    x = encoderLayer(b, scope + "/layer." + std::to_string(layer), x);
  }
  b.outputs({x});
  return b.finish();
}

}  // namespace onyx::layout
