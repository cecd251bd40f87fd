#pragma once
// Runs single nodes through the executor for kernel tests: a one-node model built with the Rewriter, a
// pinned kernel variant, seeded random inputs, and a tolerance comparison.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "ir/rewriter.h"

namespace onyx::exec::testing {

// An environment variable set (or, with a null value, unset) while alive, then as it was: the switches that
// kernels read when they are made or plan (ONYX_WINOGRAD, ONYX_MATMUL, ONYX_TUNE_THREADS...) hold for what a
// test makes meanwhile.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), saved_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, saved_;
  bool had_ = false;
};

struct NodeCase {
  NodeCase(std::string op, std::vector<Attribute> attrs = {}, int opsetVersion = 17, int outputCount = 1)
      : opType(std::move(op)), attributes(std::move(attrs)), opset(opsetVersion), outputs(outputCount) {}
  NodeCase(const char* op)
      : NodeCase(std::string(op)) {}  // NOLINT: implicit, tests read runNode({"Add"}, ...)
  std::string opType;
  std::vector<Attribute> attributes;
  int opset = 17;
  int outputs = 1;
  std::string domain;
};

// Builds model: graph inputs x0..xn (types from the given tensors; an empty TensorValue is an omitted input),
// one node, outputs y0..ym.
inline std::unique_ptr<Model> singleNodeModel(const NodeCase& c, const std::vector<TensorValue>& inputs) {
  auto model = std::make_unique<Model>();
  model->opsetImports = {{"", c.opset}};
  if (!c.domain.empty()) model->opsetImports.push_back({c.domain, 1});  // com.microsoft, the training ops
  Rewriter rw(*model);
  Graph& g = model->graph();
  std::vector<Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) {
      ins.push_back(nullptr);
      continue;
    }
    Shape shape;
    for (int64_t d : inputs[i].dims()) shape.push_back(Dim(d));
    ins.push_back(rw.addGraphInput(g, "x" + std::to_string(i), Type::tensor(inputs[i].dtype(), shape)));
  }
  Rewriter::NodeSpec spec;
  spec.opType = c.opType;
  spec.domain = c.domain;
  spec.name = "node";
  spec.inputs = ins;
  for (int i = 0; i < c.outputs; ++i) spec.outputNames.push_back("y" + std::to_string(i));
  spec.attributes = c.attributes;
  Node* node = rw.addNode(g, spec);
  rw.setGraphOutputs(g, node->outputs());
  return model;
}

inline Expected<std::vector<RunValue>> runNode(const NodeCase& c, const std::vector<TensorValue>& inputs,
                                               const std::string& variant, int threads = 2) {
  auto model = singleNodeModel(c, inputs);
  ExecutorOptions options;
  options.kernelVariant = variant;
  options.threads = threads;
  auto executor = Executor::create(*model, options);
  if (!executor) return executor.error();
  NamedValues named;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].empty()) named.push_back({"x" + std::to_string(i), inputs[i]});
  return (*executor)->run(named);
}

// Runs the model twice with `options` (the second run uses the arena the first planned; the profile keeps
// the second run's events) and returns the executor, for its assignments, run report and profile, with the
// last run's outputs in `outputs`. Null after a failed expectation.
inline std::unique_ptr<Executor> runTwice(const Model& model, const NamedValues& inputs, const ExecutorOptions& options,
                                          std::vector<RunValue>& outputs) {
  auto executor = Executor::create(model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return nullptr;
  for (int run = 0; run < 2; ++run) {
    (*executor)->profiler().clear();
    auto result = (*executor)->run(inputs);
    EXPECT_TRUE(result.ok()) << result.error().toString();
    if (!result.ok()) return nullptr;
    outputs = std::move(*result);
  }
  return std::move(*executor);
}

// The run's error, or "" where it ran.
inline std::string runError(const NodeCase& c, const std::vector<TensorValue>& inputs,
                            const std::string& variant = "") {
  auto outputs = runNode(c, inputs, variant);
  return outputs ? std::string() : outputs.error().toString();
}

inline TensorValue randomTensor(DataType dtype, Dims dims, uint64_t seed, float lo = -2.0f, float hi = 2.0f) {
  TensorValue t = TensorValue::allocate(dtype, std::move(dims));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.count(); ++i) {
    float v = u(rng);
    switch (dtype) {
      case DataType::Float:
        t.data<float>()[i] = v;
        break;
      case DataType::Double:
        t.data<double>()[i] = v;
        break;
      case DataType::Float16:
        t.data<Half>()[i] = Half(v);
        break;
      case DataType::BFloat16:
        t.data<BFloat16>()[i] = BFloat16(v);
        break;
      case DataType::Int32:
        t.data<int32_t>()[i] = int32_t(v * 10);
        break;
      case DataType::Int64:
        t.data<int64_t>()[i] = int64_t(v * 10);
        break;
      case DataType::Int8:
        t.data<int8_t>()[i] = int8_t(v * 10);
        break;
      case DataType::Uint8:
        t.data<uint8_t>()[i] = uint8_t(std::abs(v) * 10);
        break;
      case DataType::Bool:
        t.data<bool>()[i] = v > 0;
        break;
      default:
        break;
    }
  }
  return t;
}

// Element-wise |a - b| <= atol + rtol * |b| (NaNs must match), same dtype and dims.
inline ::testing::AssertionResult closeTensors(const TensorValue& a, const TensorValue& b, double rtol = 1e-5,
                                               double atol = 1e-6) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims())
    return ::testing::AssertionFailure() << a.describe() << " vs " << b.describe();
  for (int64_t i = 0; i < a.count(); ++i) {
    if (a.dtype() == DataType::String) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i])
        return ::testing::AssertionFailure() << "element " << i;
      continue;
    }
    double x = a.doubleAt(i), y = b.doubleAt(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (!(std::abs(x - y) <= atol + rtol * std::abs(y)))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << x << " vs " << y << " in " << a.describe();
  }
  return ::testing::AssertionSuccess();
}

// Runs the node with `variant` and with the reference and expects the same outputs.
inline void expectMatchesReference(const NodeCase& c, const std::vector<TensorValue>& inputs,
                                   const std::string& variant, double rtol = 1e-5, double atol = 1e-6) {
  auto fast = runNode(c, inputs, variant);
  auto ref = runNode(c, inputs, "reference");
  ASSERT_TRUE(fast.ok()) << fast.error().toString();
  ASSERT_TRUE(ref.ok()) << ref.error().toString();
  ASSERT_EQ(fast->size(), ref->size());
  for (size_t i = 0; i < ref->size(); ++i) {
    const auto* a = std::get_if<TensorValue>(&(*fast)[i]);
    const auto* b = std::get_if<TensorValue>(&(*ref)[i]);
    ASSERT_TRUE(a && b);
    EXPECT_TRUE(closeTensors(*a, *b, rtol, atol)) << c.opType << " output " << i;
  }
}

}  // namespace onyx::exec::testing
