#pragma once
// Support for the planning-step tests (exec_plan_*_test.cpp): models from ONNX text, a fake backend whose
// prepared nodes give the answers a test needs (device memory, host inputs, channels-last, epilogues) and
// run nothing, and the plan of a model's main graph built with given backends and switches.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "exec/cpu_backend.h"
#include "exec/graph_plan.h"
#include "exec/plan_builder.h"
#include "exec/thread_pool.h"
#include "onnx/onnx_io.h"

namespace onyx::exec::testing {

inline std::unique_ptr<Model> parsePlanModel(const std::string& text) {
  auto model = parseModelText(text);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  return model.ok() ? std::move(*model) : nullptr;
}

// What a fake kernel says about itself.
struct FakeTraits {
  bool producesChannelsLast = false;
  std::vector<size_t> acceptsChannelsLast;  // node inputs (or kEpilogueOperands)
  bool readsChannelsLastOnlyToKeepIt = false;
  std::vector<size_t> acceptsBlocked16;  // node inputs (or kEpilogueOperands)
  size_t epilogueLimit = 0;  // setEpilogue accepts chains of up to this many nodes
  std::vector<int> hostInputs;
};

class FakePrepared final : public PreparedNode {
 public:
  explicit FakePrepared(FakeTraits traits) : traits_(std::move(traits)) {}
  Expected<void> run(KernelContext& context) override { return context.error("fake kernels do not run"); }
  std::string_view variant() const override { return "fake"; }
  const std::vector<int>& hostInputs() const override { return traits_.hostInputs; }
  bool setEpilogue(const std::vector<EpilogueOp>& ops) override {
    return ops.size() <= traits_.epilogueLimit;
  }
  bool acceptsChannelsLast(size_t input) const override {
    for (size_t i : traits_.acceptsChannelsLast)
      if (i == input) return true;
    return false;
  }
  bool producesChannelsLast() const override { return traits_.producesChannelsLast; }
  bool readsChannelsLastOnlyToKeepIt() const override { return traits_.readsChannelsLastOnlyToKeepIt; }
  bool acceptsBlocked16(size_t input) const override {
    for (size_t i : traits_.acceptsBlocked16)
      if (i == input) return true;
    return false;
  }

 private:
  FakeTraits traits_;
};

// Supports the op types in `ops`; declines to prepare those in `declined` (with an error naming itself).
class FakeBackend final : public Backend {
 public:
  FakeBackend(std::string name, bool hostMemory, std::map<std::string, FakeTraits> ops,
              std::set<std::string> declined = {})
      : name_(std::move(name)),
        hostMemory_(hostMemory),
        ops_(std::move(ops)),
        declined_(std::move(declined)) {}
  std::string_view name() const override { return name_; }
  bool usesHostMemory() const override { return hostMemory_; }
  bool supports(const Node& node, int) const override { return ops_.count(node.opType()) > 0; }
  Expected<std::unique_ptr<PreparedNode>> prepare(const Node& node, int, const NodeShapes&,
                                                  const std::vector<const onyx::Tensor*>&) override {
    if (declined_.count(node.opType()))
      return makeError(name_ + " declines " + node.opType(), node.describe());
    return std::unique_ptr<PreparedNode>(std::make_unique<FakePrepared>(ops_.at(node.opType())));
  }

 private:
  std::string name_;
  bool hostMemory_;
  std::map<std::string, FakeTraits> ops_;
  std::set<std::string> declined_;
};

// The context for planning `model` on `backends` (the last the fallback) with every optional step off; tests
// switch on the one they look at.
inline PlanContext bareContext(const Model& model, std::vector<Backend*> backends) {
  PlanContext context{model, std::move(backends)};
  context.fuseEpilogues = false;
  context.channelsLast = false;
  context.foldConstants = false;
  return context;
}

inline std::unique_ptr<GraphPlan> planMainGraph(const PlanContext& context, BodyPlans& bodies) {
  PlanBuilder builder(context, bodies);
  auto plan = builder.build(context.model.graph(), 0);
  EXPECT_TRUE(plan.ok()) << plan.error().toString();
  return plan.ok() ? std::move(*plan) : nullptr;
}

// "Relu@cpu" per node step, "transfer>fake" / "transfer>host" per transfer, in plan order.
inline std::vector<std::string> describeSteps(const GraphPlan& plan) {
  std::vector<std::string> out;
  for (const Step& step : plan.steps) {
    if (step.node)
      out.push_back(step.node->opType() + "@" + std::string(step.backend->name()));
    else
      out.push_back(step.toHost ? "transfer>host" : "transfer>" + std::string(step.backend->name()));
  }
  return out;
}

// The step whose node has output `name` (before fusion), or null.
inline const Step* stepProducing(const GraphPlan& plan, const std::string& name) {
  for (const Step& step : plan.steps)
    if (step.node && step.node->outputCount() > 0 && step.node->output(0) &&
        step.node->output(0)->name() == name)
      return &step;
  return nullptr;
}

inline int slotNamed(const GraphPlan& plan, const Model& model, const std::string& name) {
  const onyx::Value* v = model.graph().findValue(name);
  auto it = v ? plan.slotOf.find(v) : plan.slotOf.end();
  return it == plan.slotOf.end() ? -1 : it->second;
}

}  // namespace onyx::exec::testing
