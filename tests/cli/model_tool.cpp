// A helper for the CLI tests (not installed): builds .onnx files from ONNX's textual syntax, so tests of bad
// input keep their models as readable text, lists a model's value_info entries, so a test can check what
// `onyx shapes --write` stored, and writes the malformed-model corpus (tests/cli/malformed/cases.txt). It also
// generates models too big to keep as text, for the scale tests (issue #25: `optimize` and `render` on long
// chains, a model full of unused initializers).
//
// usage: onyx_test_model_tool from-text IN.onnxtxt OUT.onnx
//        onyx_test_model_tool proto-from-text IN.onnxtxt OUT.onnx  (libonnx alone: for models Onyx refuses to
//                                                                  load, such as a recursive function)
//        onyx_test_model_tool value-info MODEL.onnx
//        onyx_test_model_tool corpus CASES.txt OUT_DIR
//        onyx_test_model_tool chain N OUT.onnx [OP]
//        onyx_test_model_tool unused-initializers N OUT.onnx
//        onyx_test_model_tool nested-ifs N OUT.onnx
//        onyx_test_model_tool many-dims N OUT.onnx
//        onyx_test_model_tool peak-rss MAX_MB COMMAND [ARGS...]   (runs COMMAND; fails when it fails or its peak
//                                                                 resident memory is over MAX_MB)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <onnx/defs/parser.h>

#include "corpus_writer.h"
#include "ir/rewriter.h"
#include "onnx/onnx_io.h"

namespace {

int fail(const std::string& what, const onyx::Error& error) {
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), error.toString().c_str());
  return 1;
}

int fromText(const std::string& in, const std::string& out) {
  std::ifstream file(in);
  if (!file) return fail(in, onyx::Error{"cannot open the file", ""});
  std::stringstream text;
  text << file.rdbuf();
  auto model = onyx::parseModelText(text.str());
  if (!model) return fail(in, model.error());
  auto saved = onyx::saveModel(**model, out);
  if (!saved) return fail(out, saved.error());
  return 0;
}

int protoFromText(const std::string& in, const std::string& out) {
  std::ifstream file(in);
  if (!file) return fail(in, onyx::Error{"cannot open the file", ""});
  std::stringstream text;
  text << file.rdbuf();
  std::string input = text.str();
  onnx::ModelProto proto;
  onnx::OnnxParser parser(input.c_str());
  if (auto status = parser.Parse(proto); !status.IsOK()) return fail(in, onyx::Error{status.ErrorMessage(), ""});
  std::ofstream written(out, std::ios::binary);
  if (!proto.SerializeToOstream(&written)) return fail(out, onyx::Error{"cannot write", ""});
  return 0;
}

// One line per value_info entry of the main graph: "name: type".
int valueInfo(const std::string& path) {
  auto model = onyx::loadModel(path);
  if (!model) return fail(path, model.error());
  for (const onyx::Value* value : (*model)->graph().valueInfo()) {
    std::printf("%s: %s\n", value->name().c_str(), value->type().toString().c_str());
  }
  return 0;
}

int save(const onyx::Model& model, const std::string& out) {
  auto saved = onyx::saveModel(model, out);
  if (!saved) return fail(out, saved.error());
  return 0;
}

std::unique_ptr<onyx::Model> emptyModel() {
  auto model = std::make_unique<onyx::Model>();
  model->opsetImports = {{"", 17}};
  return model;
}

onyx::Type rowType() { return onyx::Type::tensor(onyx::DataType::Float, onyx::Shape{1, 4}); }

// A chain of `count` nodes from one input to one output. With OP, every node is that unary op. Without, the
// chain repeats MatMul by a 4x4 weight, Add of a bias, Identity and Relu, with a weight and a bias of its own
// for each repeat (all equal), so the default pipeline has work for most of its passes: constant-deduplication
// merges the weights and biases, identity-elimination removes the Identity nodes, matmul-add-to-gemm makes
// each MatMul and Add one Gemm, and `count` / 4 * 2 nodes remain.
int chain(long count, const std::string& out, const std::string& op) {
  auto model = emptyModel();
  onyx::Rewriter rw(*model);
  onyx::Graph& graph = model->graph();
  onyx::Value* current = rw.addGraphInput(graph, "x", rowType());
  std::vector<float> ones(16, 1.0f);
  for (long i = 0; i < count; ++i) {
    std::string suffix = std::to_string(i);
    std::string opType = op;
    std::vector<onyx::Value*> inputs = {current};
    if (op.empty()) {
      static const char* kCycle[] = {"MatMul", "Add", "Identity", "Relu"};
      opType = kCycle[i % 4];
      if (opType == "MatMul" || opType == "Add") {
        std::vector<int64_t> dims = opType == "MatMul" ? std::vector<int64_t>{4, 4} : std::vector<int64_t>{4};
        std::vector<float> values(opType == "MatMul" ? 16 : 4, opType == "MatMul" ? 0.25f : 0.5f);
        inputs.push_back(rw.addInitializer(graph, "c" + suffix,
                                           onyx::Tensor::fromValues(onyx::DataType::Float, dims, values)));
      }
    }
    onyx::Node* node = rw.addNode(graph, {.opType = opType,
                                          .name = "n" + suffix,
                                          .inputs = std::move(inputs),
                                          .outputNames = {"v" + suffix}});
    current = node->output(0);
  }
  rw.setType(current, rowType());
  rw.setGraphOutputs(graph, {current});
  return save(*model, out);
}

// One Relu and `count` initializers that nothing uses (dead-code-elimination removes them all).
int unusedInitializers(long count, const std::string& out) {
  auto model = emptyModel();
  onyx::Rewriter rw(*model);
  onyx::Graph& graph = model->graph();
  onyx::Value* x = rw.addGraphInput(graph, "x", rowType());
  onyx::Node* relu = rw.addNode(graph, {.opType = "Relu", .name = "relu", .inputs = {x}, .outputNames = {"y"}});
  rw.setType(relu->output(0), rowType());
  rw.setGraphOutputs(graph, {relu->output(0)});
  for (long i = 0; i < count; ++i) {
    rw.addInitializer(graph, "unused" + std::to_string(i),
                      onyx::Tensor::fromValues(onyx::DataType::Float, {1}, std::vector<float>{float(i)}));
  }
  return save(*model, out);
}

// An If whose then_branch holds an If, N levels deep; the innermost branch and every else_branch pass the
// main graph's input `x` through an Identity.
int nestedIfs(long depth, const std::string& out) {
  auto model = emptyModel();
  onyx::Rewriter rw(*model);
  onyx::Graph& graph = model->graph();
  onyx::Value* x = rw.addGraphInput(graph, "x", rowType());
  onyx::Value* cond = rw.addGraphInput(graph, "cond", onyx::Type::tensor(onyx::DataType::Bool, onyx::Shape{}));
  auto passThrough = [&](const std::string& name) {
    auto body = std::make_shared<onyx::Graph>(model.get());
    onyx::Node* node = rw.addNode(*body, {.opType = "Identity", .name = name, .inputs = {x}, .outputNames = {name}});
    rw.setGraphOutputs(*body, {node->output(0)});
    return body;
  };
  std::shared_ptr<onyx::Graph> inner = passThrough("innermost");
  for (long level = depth; level >= 1; --level) {
    std::string suffix = std::to_string(level);
    bool outermost = level == 1;
    auto holder = outermost ? nullptr : std::make_shared<onyx::Graph>(model.get());
    onyx::Graph& target = outermost ? graph : *holder;
    onyx::Node* node = rw.addNode(target, {.opType = "If",
                                           .name = "if" + suffix,
                                           .inputs = {cond},
                                           .outputNames = {outermost ? "y" : "o" + suffix},
                                           .attributes = {onyx::Attribute::ofGraph("then_branch", inner),
                                                          onyx::Attribute::ofGraph("else_branch",
                                                                                   passThrough("else" + suffix))}});
    rw.setGraphOutputs(target, {node->output(0)});
    inner = holder;
  }
  rw.setType(graph.outputs()[0], rowType());
  return save(*model, out);
}

// A Relu whose input and output are declared with `rank` dims of 1: a few MB of file that expands into a
// million Dim objects on load.
int manyDims(long rank, const std::string& out) {
  auto model = emptyModel();
  onyx::Rewriter rw(*model);
  onyx::Graph& graph = model->graph();
  onyx::Shape shape(size_t(rank), onyx::Dim(1));
  onyx::Type type = onyx::Type::tensor(onyx::DataType::Float, shape);
  onyx::Value* x = rw.addGraphInput(graph, "x", type);
  onyx::Node* relu = rw.addNode(graph, {.opType = "Relu", .name = "relu", .inputs = {x}, .outputNames = {"y"}});
  rw.setType(relu->output(0), type);
  rw.setGraphOutputs(graph, {relu->output(0)});
  return save(*model, out);
}

// Runs a command and checks its peak resident memory (the kernel's maxrss of the child), so memory tests need
// no GNU time or python on the test machine.
int peakRss(long maxMegabytes, char** command) {
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    execvp(command[0], command);
    std::perror(command[0]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) != child) return 2;
  long megabytes = usage.ru_maxrss / 1024;  // ru_maxrss is in KiB on Linux
  std::printf("peak resident memory: %ld MB (limit %ld MB)\n", megabytes, maxMegabytes);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "error: %s failed (status %d)\n", command[0], status);
    return 1;
  }
  return megabytes <= maxMegabytes ? 0 : 1;
}

long countArgument(const char* text) {
  char* end = nullptr;
  long count = std::strtol(text, &end, 10);
  return end && *end == '\0' && count > 0 ? count : -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "from-text" && argc == 4) return fromText(argv[2], argv[3]);
  if (mode == "value-info" && argc == 3) return valueInfo(argv[2]);
  if (mode == "corpus" && argc == 4) return onyx::test::writeCorpus(argv[2], argv[3]);
  if (mode == "proto-from-text" && argc == 4) return protoFromText(argv[2], argv[3]);
  long count = argc > 2 ? countArgument(argv[2]) : -1;
  if (mode == "chain" && (argc == 4 || argc == 5) && count > 0) return chain(count, argv[3], argc == 5 ? argv[4] : "");
  if (mode == "unused-initializers" && argc == 4 && count > 0) return unusedInitializers(count, argv[3]);
  if (mode == "nested-ifs" && argc == 4 && count > 0) return nestedIfs(count, argv[3]);
  if (mode == "many-dims" && argc == 4 && count > 0) return manyDims(count, argv[3]);
  if (mode == "peak-rss" && argc >= 4 && count > 0) return peakRss(count, argv + 3);
  std::fprintf(stderr,
               "usage: %s from-text IN.onnxtxt OUT.onnx | value-info MODEL.onnx | corpus CASES.txt OUT_DIR | "
               "chain N OUT.onnx [OP] | unused-initializers N OUT.onnx | nested-ifs N OUT.onnx | many-dims N OUT.onnx | "
               "peak-rss MAX_MB COMMAND [ARGS...]\n",
               argv[0]);
  return 2;
}
