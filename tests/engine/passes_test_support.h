#pragma once
// Pass tests: a small graph in ONNX's textual syntax, a pass, the expected graph (compared as printed by
// printModelText after parsing, so spacing in the test does not matter).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "onnx/onnx_io.h"
#include "passes/pass_manager.h"

namespace onyx::passes::testing {

inline std::unique_ptr<Model> parse(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().toString());
  return model.ok() ? std::move(*model) : nullptr;
}

// The text as printModelText prints it.
inline std::string canonical(const std::string& text) {
  auto model = parse(text);
  return model ? printModelText(*model) : std::string("<unparsable>");
}

// Runs one registered pass once, with the structural check on; fails the test on error.
inline PassStep runOnce(Model& model, const std::string& name, const PassOptions& options = {},
                        const std::string& scope = {}) {
  PassManager manager(model);
  auto pass = createPass(name);
  EXPECT_TRUE(pass) << name;
  if (!pass) return {};
  auto step = manager.runPass(*pass, scope, options, {}, /*checkStructure=*/true);
  EXPECT_TRUE(step.ok()) << (step.ok() ? "" : step.error().toString());
  return step.ok() ? std::move(*step) : PassStep{};
}

inline int64_t counter(const PassStep& step, const std::string& name) {
  for (const auto& c : step.counters)
    if (c.name == name) return c.count;
  return 0;
}

inline std::string skipReasons(const PassStep& step) {
  std::string all;
  for (const auto& skip : step.skips) all += skip.where + ": " + skip.reason + "\n";
  return all;
}

// Runs the pass on `before`, expects `after`, and expects a second run to change nothing.
inline PassStep expectRewrite(const std::string& pass, const std::string& before, const std::string& after) {
  auto model = parse(before);
  if (!model) return {};
  PassStep step = runOnce(*model, pass);
  EXPECT_TRUE(step.changed) << pass << " did not change the model";
  EXPECT_EQ(printModelText(*model), canonical(after));
  PassStep again = runOnce(*model, pass);
  EXPECT_FALSE(again.changed) << pass << " changed the model again";
  EXPECT_EQ(printModelText(*model), canonical(after));
  return step;
}

// Runs the pass on `text` and expects no change.
inline PassStep expectUnchanged(const std::string& pass, const std::string& text) {
  auto model = parse(text);
  if (!model) return {};
  std::string before = printModelText(*model);
  PassStep step = runOnce(*model, pass);
  EXPECT_FALSE(step.changed) << pass << " changed the model";
  EXPECT_EQ(printModelText(*model), before);
  return step;
}

}  // namespace onyx::passes::testing
