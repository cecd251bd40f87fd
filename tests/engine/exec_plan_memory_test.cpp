// Planning step 6, plan memory (exec/plan_memory.h): each slot's last reader (graph inputs and outputs never
// die, unread values die where they are written, epilogue operands live until their step), the arena planned
// from a recording run's requests (escaping buffers take no space, an arena over the limit is an error naming
// the node at the peak), and the lifetimes a real run records.
#include <gtest/gtest.h>

#include "exec/plan_memory.h"
#include "exec_kernel_test_util.h"
#include "exec_plan_test_util.h"

namespace onyx::exec::testing {
namespace {

const char* kChain = R"(<ir_version: 8, opset_import: ["" : 17]>
chain (float[N, 64] x) => (float[N, 64] y) {
  a = Relu(x)
  b = Sigmoid(a)
  u = Neg(b)
  c = Add(a, b)
  d = Tanh(c)
  y = Mul(d, d)
})";

struct Planned {
  std::unique_ptr<Model> model = parsePlanModel(kChain);
  ThreadPool pool{1};
  CpuBackend cpu{pool};
  BodyPlans bodies;
  std::unique_ptr<GraphPlan> plan = model ? planMainGraph(bareContext(*model, {&cpu}), bodies) : nullptr;
  int lastUse(const std::string& name) const { return plan->lastUse[size_t(slotNamed(*plan, *model, name))]; }
};

TEST(ExecPlanMemory, EachSlotDiesAfterItsLastReader) {
  Planned p;
  ASSERT_TRUE(p.plan);
  ASSERT_EQ(p.plan->steps.size(), 6u);  // a b u c d y
  EXPECT_EQ(p.lastUse("x"), kForever);  // the caller's
  EXPECT_EQ(p.lastUse("a"), 3);         // read by Add
  EXPECT_EQ(p.lastUse("b"), 3);
  EXPECT_EQ(p.lastUse("u"), 2);  // never read: dies where it is written
  EXPECT_EQ(p.lastUse("c"), 4);
  EXPECT_EQ(p.lastUse("d"), 5);
  EXPECT_EQ(p.lastUse("y"), kForever);  // the graph output
}

TEST(ExecPlanMemory, EpilogueOperandsAndCapturesLiveUntilTheirStep) {
  Planned p;
  ASSERT_TRUE(p.plan);
  GraphPlan& plan = *p.plan;
  const int extra = plan.addSlot(nullptr);
  const int captured = plan.addSlot(nullptr);
  plan.steps[4].epilogue.emplace_back();
  plan.steps[4].epilogue.back().inputs = {kChainValue, extra};
  plan.steps[1].captures = {captured};
  planLiveness(plan);
  EXPECT_EQ(plan.lastUse[size_t(extra)], 4);
  EXPECT_EQ(plan.lastUse[size_t(captured)], 1);
}

ArenaState recorded(std::vector<BufferRequest> requests, std::vector<bool> escapes) {
  ArenaState arena;
  arena.requests = std::move(requests);
  arena.escapes = std::move(escapes);
  return arena;
}

TEST(ExecPlanMemory, TheArenaHoldsWhatARecordingRunAsked) {
  Planned p;
  ASSERT_TRUE(p.plan);
  ArenaState arena = recorded({{1000, 0, 1, -1, "a"},
                               {1000, 1, 3, -1, "b"},
                               {1000, 2, 2, -1, "u"},
                               {1000, 3, 4, -1, "c"},
                               {4096, 5, 5, -1, "y"}},
                              {false, false, false, false, true});
  ASSERT_TRUE(planArena(*p.plan, arena, 0).ok());
  EXPECT_TRUE(arena.planned);
  EXPECT_EQ(arena.requests[4].bytes, 0);      // the graph output lives on the heap
  EXPECT_EQ(arena.plan.peakBytes, 2 * 1024);  // two of a, b, u, c at once, never three
  EXPECT_NE(arena.plan.offsets[1], arena.plan.offsets[2]);
  EXPECT_NE(arena.plan.offsets[1], arena.plan.offsets[3]);
  EXPECT_EQ(arena.plan.offsets[0], arena.plan.offsets[3]);  // a is dead when c is written
  ASSERT_TRUE(arena.arena);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(arena.arena.get()) % 64, 0u);
  EXPECT_EQ(arena.requestOfStorage.size(), 5u);  // one storage tag per request
}

TEST(ExecPlanMemory, AnArenaOverTheLimitNamesTheNodeAtThePeak) {
  Planned p;
  ASSERT_TRUE(p.plan);
  p.plan->arenas[{{4, 64}}] = ArenaState();
  ArenaState arena = recorded({{1000, 0, 3, -1, "a"}, {3000, 1, 3, -1, "b"}}, {false, false});
  auto planned = planArena(*p.plan, arena, 2048);
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.error().message,
            "the run needs an arena of 4032 bytes, over the limit of 2048; the largest tensor alive at the "
            "peak is b. "
            "Raise the limit or use smaller inputs");
  EXPECT_EQ(planned.error().where, p.plan->steps[1].node->describe());
  EXPECT_TRUE(p.plan->arenas.empty());
  EXPECT_EQ(p.plan->lastArena, nullptr);
}

TEST(ExecPlanMemory, ARunRecordsEachBufferFromItsWriterToItsLastReader) {
  auto model = parsePlanModel(kChain);
  ASSERT_TRUE(model);
  ExecutorOptions options;
  options.fuseEpilogues = false;
  options.foldConstants = false;
  auto executor = Executor::create(*model, options);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  ASSERT_TRUE((*executor)->run({{"x", randomTensor(DataType::Float, {4, 64}, 3)}}).ok());
  MemoryReport report = (*executor)->memoryReport();
  std::map<std::string, std::pair<int, int>> lifetimes;
  for (const BufferRequest& r : report.buffers)
    lifetimes[r.label.substr(r.label.rfind(' ') + 1)] = {r.firstStep, r.sharesWith >= 0 ? -1 : r.lastStep};
  EXPECT_EQ(lifetimes["'a'"], std::make_pair(0, 3));
  EXPECT_EQ(lifetimes["'b'"], std::make_pair(1, 3));
  EXPECT_EQ(lifetimes["'c'"].first, 3);
  EXPECT_EQ(lifetimes["'d'"].first, 4);
  for (size_t i = 0; i < report.buffers.size(); ++i)
    for (size_t j = i + 1; j < report.buffers.size(); ++j) {
      const BufferRequest &r = report.buffers[i], &s = report.buffers[j];
      const bool together = r.firstStep <= s.lastStep && s.firstStep <= r.lastStep;
      if (together && r.bytes > 0 && s.bytes > 0 && r.sharesWith != int(j) && s.sharesWith != int(i)) {
        EXPECT_NE(report.offsets[i], report.offsets[j]) << r.label << " and " << s.label;
      }
    }
}

}  // namespace
}  // namespace onyx::exec::testing
