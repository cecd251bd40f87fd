// Profiles read back from files (ours and ONNX Runtime's), mapped onto models, summarised by op, node and
// scope, the scope flame tree, and the CSV / speedscope exports.
#include <gtest/gtest.h>

#include <map>

#include "exec/executor.h"
#include "ir/rewriter.h"
#include "exec_kernel_test_util.h"
#include "onnx/onnx_io.h"
#include "profile/profile.h"
#include "profile/profile_summary.h"
#include "support/test_data.h"

namespace onyx::profile {
namespace {

const char* kScoped = R"(
<ir_version: 8, opset_import: ["" : 17]>
scoped (float[4, 64] x) => (float[4, 64] y) {
  a = Relu (x)
  b = Sigmoid (a)
  c = Add (a, b)
  d = Tanh (c)
  y = Mul (d, d)
}
)";

struct Recorded {
  std::unique_ptr<Model> model;
  exec::Profiler* profiler = nullptr;
  std::unique_ptr<exec::Executor> executor;
};

Recorded record(int iterations) {
  Recorded r;
  auto model = parseModelText(kScoped);
  EXPECT_TRUE(model.ok()) << model.error().toString();
  r.model = std::move(*model);
  // The text syntax of onnx 1.12 has no node names: give the exporter-style scoped names here.
  const char* names[] = {"/block.0/act/Relu", "/block.0/gate/Sigmoid", "/block.0/Add", "/block.1/Tanh", "/Mul"};
  Rewriter rewriter(*r.model);
  size_t index = 0;
  std::vector<Node*> nodes(r.model->graph().nodes().begin(), r.model->graph().nodes().end());
  for (Node* node : nodes) rewriter.renameNode(node, names[index++]);
  exec::ExecutorOptions options;
  options.profile = true;
  auto executor = exec::Executor::create(*r.model, options);
  EXPECT_TRUE(executor.ok()) << executor.error().toString();
  r.executor = std::move(*executor);
  auto x = exec::testing::randomTensor(DataType::Float, {4, 64}, 7);
  for (int i = 0; i < iterations; ++i) {
    auto ran = r.executor->run({{"x", x}});
    EXPECT_TRUE(ran.ok()) << ran.error().toString();
  }
  r.profiler = &r.executor->profiler();
  return r;
}

TEST(ProfileTrace, OurChromeTraceReadsBackEventForEvent) {
  Recorded r = record(3);
  const auto& original = r.profiler->events();
  auto parsed = parseTrace(r.profiler->chromeTraceJson(), "trace.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().toString();
  EXPECT_EQ(parsed->format, TraceFormat::Onyx);
  ASSERT_EQ(parsed->events.size(), original.size());
  EXPECT_EQ(parsed->iterations.size(), r.profiler->iterations().size());
  EXPECT_EQ(parsed->iterationCount(), 3);
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_EQ(parsed->events[i].node, original[i].node);
    EXPECT_EQ(parsed->events[i].name, original[i].name);
    EXPECT_EQ(parsed->events[i].opType, original[i].opType);
    EXPECT_EQ(parsed->events[i].iteration, original[i].iteration);
    EXPECT_EQ(parsed->events[i].flops, original[i].flops);
    EXPECT_EQ(parsed->events[i].bytesRead, original[i].bytesRead);
    // Chrome traces store microseconds with three decimals: nanoseconds survive.
    EXPECT_EQ(parsed->events[i].durationNs, original[i].durationNs);
  }
  MappingStats stats = mapOntoModel(*parsed, *r.model);
  EXPECT_EQ(stats.mapped, original.size());
  EXPECT_TRUE(stats.unmappedNames.empty());
}

TEST(ProfileTrace, BadFilesAreErrorsNamingTheFile) {
  auto garbage = parseTrace("{\"traceEvents\": [", "cut.json");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().where, "cut.json");
  EXPECT_NE(garbage.error().message.find("not valid JSON"), std::string::npos);
  auto wrongShape = parseTrace("{\"events\": []}", "other.json");
  ASSERT_FALSE(wrongShape.ok());
  EXPECT_NE(wrongShape.error().message.find("traceEvents"), std::string::npos);
  auto missing = readTrace("/nonexistent/trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
}

TEST(ProfileSummary, ScopeRowsAreInclusiveAndOpRowsAddUpToTheTotal) {
  Recorded r = record(2);
  Profile profile = Profile::fromProfiler(*r.profiler);
  double total = 0;
  for (const auto& e : profile.events) total += e.durationNs / 1e6;
  auto byOp = summarize(profile.events, SummaryKey::OpType);
  ASSERT_EQ(byOp.size(), 5u);
  double opTotal = 0;
  for (const auto& row : byOp) opTotal += row.totalMs;
  EXPECT_NEAR(opTotal, total, 1e-9);
  auto byScope = summarize(profile.events, SummaryKey::Scope);
  std::map<std::string, profile::SummaryRow> rows;
  for (const auto& row : byScope) rows[row.key] = row;
  ASSERT_TRUE(rows.count("/block.0") && rows.count("/block.0/act") && rows.count("/block.0/gate") &&
              rows.count("/block.1") && rows.count("/"));
  EXPECT_EQ(rows["/block.0"].count, 6);  // Relu, Sigmoid, Add x 2 iterations
  EXPECT_NEAR(rows["/block.0"].totalMs,
              rows["/block.0/act"].totalMs + rows["/block.0/gate"].totalMs +
                  [&] {
                    double add = 0;
                    for (const auto& e : profile.events)
                      if (e.opType == "Add") add += e.durationNs / 1e6;
                    return add;
                  }(),
              1e-9);
  // Top-level rows ("/", "/block.0", "/block.1") partition the time.
  EXPECT_NEAR(rows["/"].totalMs + rows["/block.0"].totalMs + rows["/block.1"].totalMs, total, 1e-9);
}

void expectWidthsAddUp(const FlameNode& node) {
  if (node.isLeaf()) return;
  int64_t sum = 0;
  for (const auto& child : node.children) {
    EXPECT_EQ(child->parent, &node);
    sum += child->totalNs;
    expectWidthsAddUp(*child);
  }
  EXPECT_EQ(sum, node.totalNs) << node.path;
}

TEST(ProfileFlame, ChildrenAddUpToTheirParentAndTheRootToTheTotal) {
  Recorded r = record(2);
  Profile profile = Profile::fromProfiler(*r.profiler);
  FlameTree tree = buildFlameTree(profile);
  int64_t total = 0;
  for (const auto& e : profile.events) total += e.durationNs;
  EXPECT_EQ(tree.root->totalNs, total);
  EXPECT_EQ(tree.iterations, 2);
  expectWidthsAddUp(*tree.root);
  // model -> block.0, block.1, and the unscoped Mul, in execution order.
  ASSERT_EQ(tree.root->children.size(), 3u);
  EXPECT_EQ(tree.root->children[0]->name, "block.0");
  EXPECT_EQ(tree.root->children[0]->path, "/block.0");
  EXPECT_EQ(tree.root->children[2]->opType, "Mul");
  const FlameNode& block0 = *tree.root->children[0];
  ASSERT_EQ(block0.children.size(), 3u);  // act, gate, Add
  EXPECT_EQ(block0.children[0]->name, "act");
  EXPECT_EQ(block0.children[0]->children[0]->opType, "Relu");
  EXPECT_EQ(block0.children[0]->children[0]->count, 2);
}

TEST(ProfileExport, CsvHasOneLinePerRowAndSpeedscopeBalancesOpenAndClose) {
  Recorded r = record(1);
  Profile profile = Profile::fromProfiler(*r.profiler);
  auto rows = summarize(profile.events, SummaryKey::Node);
  std::string csv = summaryCsv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(rows.size() + 1));
  EXPECT_TRUE(csv.starts_with("key,op_type,count,total_ms"));
  EXPECT_NE(csv.find("\"Relu '/block.0/act/Relu' (#"), std::string::npos);

  std::string json = speedscopeJson(profile, "scoped");
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = json.find(needle); at != std::string::npos; at = json.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"type\":\"O\""), count("\"type\":\"C\""));
  // 5 nodes + scopes /block.0, /block.0/act, /block.0/gate, /block.1 opened once each (one thread here).
  EXPECT_EQ(count("\"type\":\"O\""), 9u);
  EXPECT_NE(json.find("\"name\":\"/block.0/act\""), std::string::npos);
  EXPECT_NE(json.find("\"unit\":\"nanoseconds\""), std::string::npos);
}

// ONNX Runtime profiles recorded with bench/ort_bench.js (ORT_PROFILE=..., onnxruntime-node 1.30, 2 threads,
// graph optimization "all") of two shared models, trimmed of thread statistics; kept in tests/data.
void expectOrtProfileMaps(const std::string& model, double minShare, size_t expectedEvents) {
  const std::string relative = "models/" + model;
  ONYX_REQUIRE_SHARED(dir, relative);
  auto loaded = loadModel(dir / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  auto parsed = readTrace(std::filesystem::path(ONYX_SOURCE_DIR) / "tests/data/ort-profiles" / (model + ".json"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().toString();
  EXPECT_EQ(parsed->format, TraceFormat::OnnxRuntime);
  EXPECT_EQ(parsed->events.size(), expectedEvents);
  MappingStats stats = mapOntoModel(*parsed, **loaded);
  EXPECT_GE(stats.mappedShare(), minShare) << model << ": " << stats.mapped << " of " << stats.events;
  // Every mapped event names a real node of the graph, under the graph's own name.
  for (size_t i = 0; i < parsed->events.size(); ++i) {
    if (!parsed->mapped[i]) continue;
    const Node* node = (*loaded)->graph().findNode(parsed->events[i].node);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(parsed->events[i].name, node->name());
  }
}

TEST(ProfileOnnxRuntime, Resnet18ProfileMapsOntoTheGraph) { expectOrtProfileMaps("resnet18", 0.95, 25); }
TEST(ProfileOnnxRuntime, BertSmallProfileMapsOntoTheGraph) { expectOrtProfileMaps("bert_small", 0.95, 129); }

}  // namespace
}  // namespace onyx::profile
