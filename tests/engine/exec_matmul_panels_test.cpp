// MatMul and Gemm by constant weights on our register-tiled panels (DnnlMatmul::takesPanels), which serve them
// on AVX2, where oneDNN has no brgemm matmul, and anywhere under ONYX_MATMUL=panels: column counts off
// the panel width, A's batch folded into rows, more rows than a task takes, Gemm's transB, alpha and C, and a
// fused epilogue (bias, GELU, residual) on each tile, against the reference kernels. engine.forced_avx2 runs
// this file under AVX2 too, where the default picks them.
#include <gtest/gtest.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "exec/cpu/cpu_isa.h"
#include "exec_fusion_test_util.h"

namespace onyx::exec::testing {
namespace {

int panelProducts(const Outcome& outcome) {
  int count = 0;
  for (const std::string& implementation : outcome.implementations)
    if (implementation.rfind("panels:", 0) == 0) ++count;
  return count;
}

// The graph text (with `initializers` spliced in) run fused against the reference kernels: close values, and
// `panels` products on our panels.
void expectPanels(const std::string& graph, const std::string& initializers, int panels) {
  auto model = parseModelText(withInitializers(graph, initializers));
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto reference = referenceExecutor(**model);
  ASSERT_TRUE(reference.ok()) << reference.error().toString();
  for (uint64_t seed : {21, 22}) {
    NamedValues inputs = randomInputs(**model, seed);
    Outcome fast = runGraph(**model, inputs, true);
    auto want = (*reference)->run(inputs);
    ASSERT_TRUE(want.ok()) << want.error().toString();
    ASSERT_EQ(fast.outputs.size(), want->size());
    for (size_t i = 0; i < fast.outputs.size(); ++i)
      EXPECT_TRUE(closeTensors(std::get<TensorValue>(fast.outputs[i]), std::get<TensorValue>((*want)[i]), 1e-4, 1e-4))
          << "output " << i;
    EXPECT_EQ(panelProducts(fast), panels);
  }
}

constexpr const char* kGeluGraph = R"(g (float[2,5,45] x, float[2,5,70] r) => (float[2,5,70] y) {
      m = MatMul (x, w)
      h = Add (m, b)
      d = Div (h, root2)
      e = Erf (d)
      a = Add (e, one)
      p = Mul (h, a)
      g = Mul (p, half)
      y = Add (g, r)
    })";
const std::string kGeluInitializers = initializer("w", {45, 70}, 1) + ", " + initializer("b", {70}, 2) +
                                      ", float root2 = {1.4142135}, float one = {1.0}, float half = {0.5}";

TEST(ExecMatmulPanels, MatchTheReferenceWithTheirEpilogue) {
  const ScopedEnv panels("ONYX_MATMUL", "panels");
  // A's batch folded into 10 rows; 70 columns: two whole panels and 6 columns of a third.
  expectPanels(kGeluGraph, kGeluInitializers, 1);
  // 300 rows: more than one task's 256, and fewer rows per task where 2 panels would leave threads idle.
  expectPanels(R"(g (float[300,64] x) => (float[300,40] y) {
      m = MatMul (x, w)
      y = Relu (m)
    })",
               initializer("w", {64, 40}, 3), 1);
  // Gemm: B given transposed, alpha packed with it, beta * C added after.
  expectPanels(R"(g (float[37,45] a) => (float[37,70] z) {
      z = Gemm <alpha = 0.5, beta = 2.0, transB = 1> (a, wt, c)
    })",
               initializer("wt", {70, 45}, 4) + ", " + initializer("c", {70}, 5), 1);
}

TEST(ExecMatmulPanels, ServeConstantWeightsWhereOneDnnHasNoBrgemm) {
  // Unforced: ours on AVX2, where oneDNN 2.6 has no brgemm matmul (AVX-512 only); with SSE only its gemm.
  const bool avx2 = cpuIsa() == CpuIsa::Avx2 && dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core;
  expectPanels(kGeluGraph, kGeluInitializers, avx2 ? 1 : 0);
  // Weights a caller passes in are oneDNN's, forced or not.
  const ScopedEnv panels("ONYX_MATMUL", "panels");
  expectPanels(R"(g (float[6,45] x, float[45,70] w) => (float[6,70] y) {
      y = MatMul (x, w)
    })",
               "float unused = {0.0}", 0);
}

}  // namespace
}  // namespace onyx::exec::testing
