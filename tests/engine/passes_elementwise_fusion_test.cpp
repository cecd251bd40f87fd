// elementwise-fusion writes groups of element-wise ops as calls of model-local functions in "onyx.fused";
// the executor runs such calls with the fused kernel (float32) or the body op by op (other types), and the
// fused kernel matches the body run op by op on seeded data with broadcasting and size-1 dims.
#include "passes_fusion_support.h"

namespace onyx::passes::fusion_testing {
namespace {

using exec::Dims;

const char* kSwish = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x, float[8, 8] z) => (float[N, 8] y) {
  s = Sigmoid(x)
  a = Mul(x, s)
  t = Sigmoid(z)
  b = Mul(z, t)
  y = MatMul(a, b)
})";

TEST(ElementwiseFusion, GroupsBecomeCallsOfOneSharedFunction) {
  auto before = parse(kSwish);
  auto model = parse(kSwish);
  auto result = runPass(*model, "elementwise-fusion");
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.counter("groups-fused"), 2);
  EXPECT_EQ(result.counter("nodes-fused"), 4);
  EXPECT_EQ(result.counter("functions-created"), 1);
  EXPECT_EQ(summary(*model),
            "a_fused = onyx.fused.Fused_Sigmoid_Mul(x)\nb_fused = onyx.fused.Fused_Sigmoid_Mul(z)\n"
            "y = MatMul(a_fused, b_fused)\n-> y\n");
  ASSERT_EQ(model->functions.size(), 1u);
  EXPECT_EQ(model->functions[0]->docString, "t0 = Sigmoid(in0); out = Mul(in0, t0)");
  EXPECT_EQ(model->opsetVersion("onyx.fused"), 1);
  expectSameOutputs(*before, *model, {{"x", seeded({3, 8}, 21)}, {"z", seeded({8, 8}, 22)}});
  EXPECT_FALSE(runPass(*model, "elementwise-fusion").changed);
  EXPECT_EQ(checkerError(*model), "");
}

TEST(ElementwiseFusion, ABodyReusesTheMainGraphsFunctionAndMakesNoNewOne) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 8] x) => (float[2, 8] y) {
  s = Sigmoid(x)
  a = Mul(x, s)
  n = Constant <value = int64 {2}> ()
  go = Constant <value = bool {1}> ()
  y = Loop (n, go, a) <body = loop_body (int64 i, bool cond, float[2, 8] acc) => (bool keep, float[2, 8] r) {
    keep = Identity(cond)
    t = Sigmoid(acc)
    u = Mul(acc, t)
    v = Softmax(u)
    e = Exp(v)
    r = Neg(e)
  }>
})";
  auto before = parse(text);
  auto model = parse(text);
  auto result = runPass(*model, "elementwise-fusion");
  // The body's Sigmoid-Mul calls the main graph's function; its Exp-Neg formula is new there and stays.
  EXPECT_EQ(result.counter("groups-fused"), 2) << result.reasons();
  EXPECT_EQ(result.counter("functions-created"), 1);
  ASSERT_EQ(model->functions.size(), 1u);
  EXPECT_NE(result.reasons().find("no fused function of the main graph has this formula (t0 = Exp(in0); out = "
                                  "Neg(t0))"),
            std::string::npos)
      << result.reasons();
  const Graph& body = *model->graph().findValue("y")->producer()->subgraphs().front();
  std::string ops;
  for (const Node* node : body.nodes()) ops += node->domain() + ":" + node->opType() + " ";
  EXPECT_EQ(ops, ":Identity onyx.fused:Fused_Sigmoid_Mul :Softmax :Exp :Neg ");
  expectSameOutputs(*before, *model, {{"x", seeded({2, 8}, 25)}});
  EXPECT_FALSE(runPass(*model, "elementwise-fusion").changed);
}

TEST(ElementwiseFusion, TheFileRoundTripsAndStillRuns) {
  auto before = parse(kSwish);
  auto model = parse(kSwish);
  runPass(*model, "elementwise-fusion");
  auto bytes = serializeModel(*model);
  ASSERT_TRUE(bytes.ok()) << bytes.error().toString();
  auto reloaded = parseModel(*bytes, {}, "fused");
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().toString();
  EXPECT_EQ(summary(**reloaded), summary(*model));
  expectSameOutputs(*before, **reloaded, {{"x", seeded({2, 8}, 23)}, {"z", seeded({8, 8}, 24)}});
}

TEST(ElementwiseFusion, RevertingTheTransactionRemovesTheFunctionAndImport) {
  auto model = parse(kSwish);
  std::string original = summary(*model);
  std::vector<std::string> events;
  model->subscribe([&](const ChangeEvent& e) {
    if (e.kind == ChangeEvent::Kind::FunctionAdded || e.kind == ChangeEvent::Kind::FunctionRemoved)
      events.push_back(std::string(changeKindName(e.kind)) + " " + e.name);
  });
  {
    Rewriter rewriter(*model);
    Transaction transaction(*model, "fuse");
    PassContext context(*model, rewriter);
    ASSERT_TRUE(ElementwiseFusion().run(context).ok());
    EXPECT_EQ(model->functions.size(), 1u);
  }  // not committed: reverted
  EXPECT_TRUE(model->functions.empty());
  EXPECT_EQ(model->opsetVersion("onyx.fused"), 0);
  EXPECT_EQ(summary(*model), original);
  EXPECT_EQ(events, (std::vector<std::string>{"function-added onyx.fused.Fused_Sigmoid_Mul",
                                              "function-removed onyx.fused.Fused_Sigmoid_Mul"}));
}

TEST(ElementwiseFusion, SingleOpsAndNonFloatChainsStay) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x, int64[N] i, int64[N] j) => (float[N, 8] y, int64[N] k) {
  y = Relu(x)
  s = Add(i, j)
  k = Mul(s, j)
})");
  auto result = runPass(*model, "elementwise-fusion");
  EXPECT_FALSE(result.changed);
  EXPECT_TRUE(model->functions.empty());
}

TEST(ElementwiseFusion, ValuesReadOutsideTheGroupEndIt) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x) => (float[N, 8] y, float[N, 8] r) {
  r = Relu(x)
  e = Exp(r)
  y = Neg(e)
})");
  auto result = runPass(*model, "elementwise-fusion");
  EXPECT_EQ(result.counter("nodes-fused"), 2);
  EXPECT_EQ(summary(*model), "r = Relu(x)\ny = onyx.fused.Fused_Exp_Neg(r)\n-> y, r\n");
}

TEST(ElementwiseFusion, ScopeLimitsTheGroups) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x) => (float[N, 8] y) {
  a = Relu(x)
  b = Exp(a)
  y = Neg(b)
})");
  // Unnamed nodes have the empty scope, so a scope that names a block excludes them.
  EXPECT_FALSE(runPass(*model, "elementwise-fusion", "/block").changed);
}

// A function call whose inputs are not float32 runs the body op by op.
TEST(FunctionCall, NonFloatInputsRunTheBodyOpByOp) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17, "onyx.fused" : 1]>
g (double[N, 4] x, double[4] b) => (double[N, 4] y) {
  y = onyx.fused.AddRelu(x, b)
}
<domain: "onyx.fused", opset_import: ["" : 17]>
AddRelu (in0, in1) => (out) {
  t = Add(in0, in1)
  out = Relu(t)
})");
  ASSERT_TRUE(model);
  auto executor = exec::Executor::create(*model);
  ASSERT_TRUE(executor.ok()) << executor.error().toString();
  exec::TensorValue x = exec::TensorValue::allocate(DataType::Double, {2, 4});
  exec::TensorValue b = exec::TensorValue::allocate(DataType::Double, {4});
  for (int i = 0; i < 8; ++i) x.data<double>()[i] = i - 4.0;
  for (int i = 0; i < 4; ++i) b.data<double>()[i] = 0.5 * i;
  auto outputs = (*executor)->run({{"x", x}, {"b", b}});
  ASSERT_TRUE(outputs.ok()) << outputs.error().toString();
  const auto& y = std::get<exec::TensorValue>((*outputs)[0]);
  std::vector<double> expected = {0, 0, 0, 0.5, 0, 1.5, 3, 4.5};
  EXPECT_EQ(std::vector<double>(y.data<double>(), y.data<double>() + 8), expected);
  auto assignments = (*executor)->assignments();
  ASSERT_EQ(assignments.size(), 1u);
  EXPECT_EQ(assignments[0].variant, "fused");  // chosen per run: double inputs took the op-by-op path
}

TEST(FunctionCall, BodyReadingCallAttributesIsAnErrorNamingTheNode) {
  auto model = parse(R"(
<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[4] x) => (float[4] y) {
  y = local.Scaled <alpha = 0.5> (x)
}
<domain: "local", opset_import: ["" : 17]>
Scaled <alpha> (in0) => (out) {
  out = LeakyRelu <alpha: float = @alpha> (in0)
})");
  ASSERT_TRUE(model);
  auto executor = exec::Executor::create(*model);
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.error().toString().find("attribute references"), std::string::npos)
      << executor.error().toString();
}

// The fused kernel against the same body run op by op (the unfused model), over shapes that broadcast.
struct BroadcastCase {
  Dims x, a, b, c;
};

std::string dimsText(const Dims& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return "float[" + out + "]";
}

Dims broadcast(const std::vector<Dims>& all) {
  size_t rank = 0;
  for (const Dims& d : all) rank = std::max(rank, d.size());
  Dims out(rank, 1);
  for (const Dims& d : all)
    for (size_t i = 0; i < d.size(); ++i) {
      int64_t& o = out[rank - d.size() + i];
      if (d[i] != 1) o = d[i];
    }
  return out;
}

TEST(FusedElementwiseKernel, MatchesTheBodyRunOpByOp) {
  std::vector<BroadcastCase> cases = {
      {{2, 3, 4, 5}, {3, 1, 1}, {1, 5}, {}},
      {{1, 3, 1, 5}, {2, 1, 4, 1}, {5}, {1}},
      {{7}, {7}, {1}, {}},
      {{4, 1}, {1, 6}, {4, 6}, {1, 1}},
      {{2, 1000}, {1000}, {2, 1}, {}},        // several blocks per row
      {{3, 64, 200}, {64, 1}, {1, 200}, {}},  // big enough for the parallel path
      {{0, 3}, {3}, {1, 3}, {}},              // empty
  };
  uint64_t seed = 100;
  for (const BroadcastCase& c : cases) {
    std::string text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g ()" + dimsText(c.x) + " x, " +
                       dimsText(c.a) + " a, " + dimsText(c.b) + " b, " + dimsText(c.c) + " c) => (" +
                       dimsText(broadcast({c.x, c.a, c.b, c.c})) + R"( y) {
  m = Mul(x, a)
  s = Add(m, b)
  g = Sigmoid(s)
  lo = Constant <value = float {0.1}> ()
  hi = Constant <value = float {0.8}> ()
  k = Clip(g, lo, hi)
  d = Sub(k, c)
  e = Div(d, a)
  p = Max(e, x)
  t = Tanh(p)
  l = LeakyRelu <alpha = 0.2> (t)
  y = Abs(l)
})";
    SCOPED_TRACE(text);
    auto before = parse(text);
    auto model = parse(text);
    ASSERT_TRUE(before && model);
    auto result = runPass(*model, "elementwise-fusion");
    ASSERT_EQ(result.counter("nodes-fused"), 10) << result.reasons() << summary(*model);
    exec::NamedValues inputs = {{"x", seeded(c.x, seed++)},
                                {"a", seeded(c.a, seed++, 0.5f, 2.0f)},
                                {"b", seeded(c.b, seed++)},
                                {"c", seeded(c.c, seed++)}};
    expectSameOutputs(*before, *model, inputs);
    auto executor = exec::Executor::create(*model);
    ASSERT_TRUE(executor.ok());
    bool fused = false;
    for (const auto& a : (*executor)->assignments()) fused = fused || a.variant == "fused";
    EXPECT_TRUE(fused);
  }
}

}  // namespace
}  // namespace onyx::passes::fusion_testing
