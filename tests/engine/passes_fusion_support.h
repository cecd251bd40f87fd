#pragma once
// Running one pass on a model for tests: a readable one-line-per-node summary to compare before/after,
// the pass's counters and skip reasons, numeric comparison of two models' outputs, and libonnx's checker.
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "exec/compare.h"
#include "exec/executor.h"
#include "ir/verify.h"
#include "onnx/onnx_io.h"
#include "passes/all_passes.h"
#include "passes/pass.h"

namespace onyx::passes::fusion_testing {

inline std::unique_ptr<Model> parse(std::string_view text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return model.ok() ? std::move(*model) : nullptr;
}

struct PassResult {
  bool changed = false;
  std::string error;
  std::vector<PassCounter> counters;
  std::vector<PassSkip> skips;
  int64_t counter(std::string_view name) const {
    for (const PassCounter& c : counters)
      if (c.name == name) return c.count;
    return 0;
  }
  std::string reasons() const {
    std::string out;
    for (const PassSkip& s : skips) out += s.reason + "\n";
    return out;
  }
};

inline size_t structuralErrorCount(const Model& model) {
  size_t errors = 0;
  for (const Diagnostic& diagnostic : verify(model))
    if (diagnostic.severity == Diagnostic::Severity::Error) ++errors;
  return errors;
}

inline PassResult runPass(Model& model, std::string_view name, std::string scope = {}) {
  PassResult result;
  auto pass = createPass(name);
  if (!pass) {
    result.error = "no pass named " + std::string(name);
    return result;
  }
  size_t errorsBefore = structuralErrorCount(model);
  Rewriter rewriter(model);
  Transaction transaction(model, std::string(name));
  PassContext context(model, rewriter, std::move(scope));
  auto ran = pass->run(context);
  if (!ran) {
    result.error = ran.error().toString();
    return result;
  }
  // The change log is the truth; a pass must also say so itself.
  result.changed = !transaction.commit()->empty();
  EXPECT_EQ(*ran, result.changed) << name << " returned " << *ran << " but its change log disagrees";
  EXPECT_EQ(structuralErrorCount(model), errorsBefore) << name << " left the model invalid";
  result.counters = context.counters();
  result.skips = context.skips();
  return result;
}

// "y = Op(a, b) attr=value" per node of the main graph, in stored order, then "-> outputs".
inline std::string summary(const Model& model) {
  std::string out;
  for (const Node* node : model.graph().nodes()) {
    std::string outputs, inputs, attrs;
    for (const Value* v : node->outputs()) outputs += (outputs.empty() ? "" : ", ") + (v ? v->name() : "");
    for (const Value* v : node->inputs()) inputs += (inputs.empty() ? "" : ", ") + (v ? v->name() : "");
    for (const Attribute& a : node->attributes())
      if (a.kind() != Attribute::Kind::Tensor) attrs += " " + a.name() + "=" + a.valueToString();
    std::string op = node->domain().empty() ? node->opType() : node->domain() + "." + node->opType();
    out += outputs + " = " + op + "(" + inputs + ")" + attrs + "\n";
  }
  std::string outs;
  for (const Value* v : model.graph().outputs()) outs += (outs.empty() ? "" : ", ") + v->name();
  return out + "-> " + outs + "\n";
}

inline std::vector<exec::RunValue> run(const Model& model, const exec::NamedValues& inputs) {
  auto executor = exec::Executor::create(model);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  if (!executor.ok()) return {};
  auto outputs = (*executor)->run(inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.error().toString();
  return outputs.ok() ? std::move(*outputs) : std::vector<exec::RunValue>{};
}

// Every output of `after` equals that of `before` within rtol 1e-4 on the same inputs.
inline void expectSameOutputs(const Model& before, const Model& after, const exec::NamedValues& inputs,
                              double rtol = 1e-4, double atol = 1e-5) {
  auto expected = run(before, inputs);
  auto actual = run(after, inputs);
  ASSERT_EQ(expected.size(), actual.size());
  ASSERT_FALSE(expected.empty());
  for (size_t i = 0; i < expected.size(); ++i) {
    auto comparison = exec::compareValues(actual[i], expected[i], {rtol, atol});
    EXPECT_TRUE(comparison.ok) << "output " << i << ": " << comparison.reason;
  }
}

// libonnx 1.12's checker on the saved model; empty when it accepts it.
inline std::string checkerError(const Model& model) {
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error().toString();
  onnx::ModelProto proto;
  if (!proto.ParseFromString(*bytes)) return "the saved bytes do not parse";
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

inline exec::TensorValue seeded(exec::Dims dims, uint64_t seed, float lo = -2.0f, float hi = 2.0f) {
  exec::TensorValue t = exec::TensorValue::allocate(DataType::Float, std::move(dims));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.count(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

}  // namespace onyx::passes::fusion_testing
