#pragma once
// Runs a model in text form with the executor's fusions on and off on the same seeded inputs, and reads
// which nodes fused from the profile (epilogues, folded Transposes and Concats).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"

namespace onyx::exec::testing {

struct Outcome {
  std::vector<RunValue> outputs;
  // Per profile event: "dnnl+Add+Relu", "fused into Conv ...", without the implementation the profile
  // names after the kernel variant (":brg:avx512_core", ":avx2"): that is in `implementations`.
  std::vector<std::string> variants;
  std::vector<std::string> implementations;
};

inline Outcome runGraph(const Model& model, const NamedValues& inputs, bool fuse) {
  ExecutorOptions options;
  options.fuseEpilogues = fuse;
  options.profile = true;
  Outcome out;
  auto executor = runTwice(model, inputs, options, out.outputs);
  if (!executor) return {};
  for (const ProfileEvent& e : executor->profiler().events()) {
    std::string variant = e.variant;
    if (!e.implementation.empty()) {
      const size_t at = variant.find(":" + e.implementation);
      EXPECT_NE(at, std::string::npos) << variant << " does not name its implementation " << e.implementation;
      if (at != std::string::npos) variant.erase(at, e.implementation.size() + 1);
    }
    out.variants.push_back(variant);
    out.implementations.push_back(e.implementation);
  }
  return out;
}

// An executor of the reference kernels only: the oracle the fast paths are checked against.
inline Expected<std::unique_ptr<Executor>> referenceExecutor(const Model& model) {
  ExecutorOptions oracle;
  oracle.kernelVariant = "reference";
  return Executor::create(model, oracle);
}

// Inputs named in the graph's signature, random of the declared shapes.
// `<float[dims] name = {...}>` of seeded values in [-0.5, 0.5): constant weights (slabs need them;
// a kernel caches what it makes of them).
inline std::string initializer(const std::string& name, const std::vector<int64_t>& dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-0.5f, 0.5f);
  int64_t count = 1;
  std::ostringstream out;
  out << "float[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out << (i ? "," : "") << dims[i];
    count *= dims[i];
  }
  out << "] " << name << " = {";
  for (int64_t i = 0; i < count; ++i) out << (i ? ", " : "") << value(rng);
  out << "}";
  return out.str();
}

inline NamedValues randomInputs(const Model& model, uint64_t seed) {
  NamedValues named;
  for (const Value* v : model.graph().inputs()) {
    if (v->initializer()) continue;
    Dims dims;
    for (const Dim& d : *v->type().shape()) dims.push_back(*d.value());
    named.push_back({v->name(), randomTensor(DataType::Float, dims, seed++, -1.0f, 1.0f)});
  }
  return named;
}

// The message of a run that fails on seeded inputs, with the executor's fusions on or off (empty, and a
// failed expectation, when the run succeeds).
inline std::string runError(const Model& model, bool fuse) {
  ExecutorOptions options;
  options.fuseEpilogues = fuse;
  auto executor = Executor::create(model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return {};
  auto run = (*executor)->run(randomInputs(model, 3));
  EXPECT_FALSE(run.ok());
  return run.ok() ? std::string() : run.error().toString();
}

inline void expectFusion(const std::string& text, const std::string& fusedVariant, int fusedNodes) {
  auto model = parseModelText(text);
  ASSERT_TRUE(model.ok()) << model.error().toString();
  NamedValues inputs = randomInputs(**model, 5);
  Outcome fused = runGraph(**model, inputs, true);
  Outcome plain = runGraph(**model, inputs, false);
  ASSERT_EQ(fused.outputs.size(), plain.outputs.size());
  for (size_t i = 0; i < plain.outputs.size(); ++i)
    EXPECT_TRUE(closeTensors(std::get<TensorValue>(fused.outputs[i]), std::get<TensorValue>(plain.outputs[i]),
                             1e-5, 1e-5))
        << "output " << i;
  EXPECT_EQ(std::count(fused.variants.begin(), fused.variants.end(), fusedVariant), 1) << fusedVariant;
  int absorbed = 0;
  for (const std::string& v : fused.variants) absorbed += v.rfind("fused into", 0) == 0;
  EXPECT_EQ(absorbed, fusedNodes);
  for (const std::string& v : plain.variants) EXPECT_EQ(v.find('+'), std::string::npos) << v;
}

inline constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>
)";

// The model text of `graph` (a graph in the text format, after kHeader) with `initializers` spliced in before
// its body: `<float[...] w = {...}, ...>`, as initializer() writes them.
inline std::string withInitializers(const std::string& graph, const std::string& initializers) {
  const size_t body = graph.find('{');
  return std::string(kHeader) + graph.substr(0, body) + "<" + initializers + "> " + graph.substr(body);
}

// Weights uniform in [-scale, scale], for initializers of graphs built in code.
inline Tensor randomWeights(std::vector<int64_t> dims, uint64_t seed, float scale) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = u(rng);
  return Tensor::fromValues<float>(DataType::Float, std::move(dims), values);
}

// Adds a one-output node named after its op and position; returns its output.
inline Value* addNode(Rewriter& rw, Graph& g, std::string op, std::vector<Value*> inputs,
                      std::vector<Attribute> attrs = {}) {
  Rewriter::NodeSpec spec;
  spec.opType = std::move(op);
  spec.name = spec.opType + std::to_string(g.nodes().size());
  spec.inputs = std::move(inputs);
  spec.outputNames = {spec.name + "_out"};
  spec.attributes = std::move(attrs);
  return rw.addNode(g, spec)->outputs()[0];
}

// The implementations oneDNN-variant kernels reported, in profile order.
inline std::vector<std::string> dnnlImplementations(const Outcome& outcome) {
  std::vector<std::string> found;
  for (size_t i = 0; i < outcome.variants.size(); ++i)
    if (outcome.variants[i].rfind("dnnl", 0) == 0) found.push_back(outcome.implementations[i]);
  return found;
}

}  // namespace onyx::exec::testing
