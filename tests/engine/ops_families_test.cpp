// One op, one place: every op family registers its schemas, CPU and Vulkan kernels from its own folder, in
// an order that keeps each op's reference kernel ahead of its fast variants of equal priority; and the
// helpers the families share (axisSplit, requireTensors, the Einsum and MatMul dims).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "catalog/op_registry.h"
#include "exec/kernel.h"
#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"
#include "ops/math/einsum_equation.h"
#include "ops/math/matmul_dims.h"
#include "ops/op_family.h"
#include "ops/op_report.h"

namespace onyx {
namespace {

std::string folderOf(const char* source) {
  std::string path(engineRelativePath(source));
  return path.substr(0, path.rfind('/'));
}

TEST(OpFamilies, AreTheFoldersOfEngineOps) {
  const std::vector<std::string_view> expected = {
      "activation", "contrib",   "controlflow", "detection", "logic", "math",  "misc",
      "nn",         "quantization", "random",  "reduction", "rnn",   "sequence", "tensor"};
  EXPECT_EQ(ops::opFamilyNames(), expected);
}

TEST(OpFamilies, EveryOpAndKernelIsRegisteredFromAFamilyFolder) {
  std::set<std::string> families;
  for (std::string_view name : ops::opFamilyNames()) families.insert("ops/" + std::string(name));
  for (const OpSchema& schema : opRegistry().all())
    EXPECT_TRUE(families.count(folderOf(schema.source))) << schema.opType << " from " << schema.source;
  for (const auto& def : exec::cpuKernels().all())
    EXPECT_TRUE(families.count(folderOf(def->source))) << def->opType << " from " << def->source;
  for (const auto& def : exec::vulkan::vulkanKernels().all()) {
    if (def.domain == "onyx.fused") {  // the passes' fused functions: no op family
      EXPECT_EQ(engineRelativePath(def.source), "exec/fused_elementwise_vulkan.cpp");
      continue;
    }
    EXPECT_TRUE(families.count(folderOf(def.source))) << def.opType << " from " << def.source;
  }
}

TEST(OpFamilies, EnginePathsStartAtTheEngineFolder) {
  EXPECT_EQ(engineRelativePath("/work/engine/x/engine/ops/nn/conv_cpu.cpp"), "ops/nn/conv_cpu.cpp");
  EXPECT_EQ(engineRelativePath("../engine/ops/nn/conv_cpu.cpp"), "ops/nn/conv_cpu.cpp");
  EXPECT_EQ(engineRelativePath("/src/myengine/engine/exec/kernel.cpp"), "exec/kernel.cpp");
  EXPECT_EQ(engineRelativePath(nullptr), "");
}

// Among kernels of equal priority the first registered runs (KernelRegistry::find): a fast variant that
// ties with the reference kernel must come after it, or it would displace the oracle.
TEST(OpFamilies, NoVariantDisplacesTheReferenceKernelByRegistrationOrder) {
  std::map<std::string, std::vector<const exec::KernelDef*>> byOp;
  for (const auto& def : exec::cpuKernels().all())
    byOp[def->domain + "::" + def->opType].push_back(def.get());
  for (const auto& [op, defs] : byOp) {
    for (size_t i = 0; i < defs.size(); ++i) {
      if (defs[i]->variant != "reference") continue;
      for (size_t j = 0; j < i; ++j)
        EXPECT_NE(defs[j]->priority, defs[i]->priority)
            << op << ": variant " << defs[j]->variant << " is registered before the reference kernel";
    }
  }
}

TEST(OpFamilies, ConvLivesInTheNnFolderWithItsVariants) {
  const std::vector<ops::OpInfo> all = ops::describeOps();
  auto conv = std::find_if(all.begin(), all.end(), [](const ops::OpInfo& op) {
    return op.schema->opType == "Conv" && op.schema->domain.empty();
  });
  ASSERT_NE(conv, all.end());
  EXPECT_EQ(conv->family, "ops/nn");
  std::vector<std::string> kernels;
  for (const ops::OpKernelInfo& k : conv->kernels)
    kernels.push_back(k.backend + " " + k.variant + " " + k.source);
  EXPECT_EQ(kernels, (std::vector<std::string>{"cpu reference ops/nn/conv_cpu.cpp",
                                               "cpu dnnl ops/nn/conv_dnnl_cpu.cpp",
                                               "vulkan vulkan ops/nn/conv_vulkan.cpp"}));
  EXPECT_FALSE(ops::formatOpDetails(all, "NoSuchOp"));
}

// One op, one place: an op's kernels live in the folder of its schema. The one exception: the activations'
// Vulkan kernels are modes of the element-wise unary shader (math/unary_vulkan.cpp).
TEST(OpFamilies, EveryOpsKernelsLiveInItsFamilyFolder) {
  size_t checked = 0;
  for (const ops::OpInfo& op : ops::describeOps()) {
    for (const ops::OpKernelInfo& k : op.kernels) {
      if (k.backend == "vulkan" && op.family == "ops/activation" && k.source == "ops/math/unary_vulkan.cpp")
        continue;
      EXPECT_EQ(k.source.substr(0, k.source.rfind('/')), op.family)
          << op.schema->opType << ": " << k.backend << " " << k.variant << " kernel in " << k.source;
      ++checked;
    }
  }
  EXPECT_GT(checked, 250u);
}

TEST(OpFamilies, SoftmaxSchemaAndKernelsShareAFolder) {
  for (const char* name : {"Softmax", "LogSoftmax", "Hardmax"}) {
    const OpSchema* schema = opRegistry().find("", name);
    ASSERT_NE(schema, nullptr);
    EXPECT_EQ(folderOf(schema->source), "ops/nn") << name;
    EXPECT_EQ(engineRelativePath(exec::cpuKernels().variants("", name).front()->source),
              "ops/nn/softmax_cpu.cpp");
  }
}

TEST(KernelUtil, AxisSplitGivesOuterLenInner) {
  auto expectSplit = [](const exec::Dims& dims, int64_t axis, int64_t outer, int64_t len, int64_t inner) {
    const exec::AxisSplit s = exec::axisSplit(dims, axis);
    EXPECT_EQ(s.outer, outer) << "axis " << axis;
    EXPECT_EQ(s.len, len) << "axis " << axis;
    EXPECT_EQ(s.inner, inner) << "axis " << axis;
  };
  expectSplit({2, 3, 4}, 0, 1, 2, 12);
  expectSplit({2, 3, 4}, 1, 2, 3, 4);
  expectSplit({2, 3, 4}, 2, 6, 4, 1);
  expectSplit({2, 3, 4}, 3, 24, 1, 1);  // at rank: everything is outer
  expectSplit({}, 0, 1, 1, 1);          // a scalar
  expectSplit({5, 0, 7}, 1, 5, 0, 7);
}

TEST(EinsumEquation, SplitsTermsAndTheOptionalOutput) {
  const EinsumEquation explicitOut = splitEinsumEquation("ij, jk -> ik");
  EXPECT_EQ(explicitOut.text, "ij,jk->ik");
  EXPECT_EQ(explicitOut.terms, (std::vector<std::string>{"ij", "jk"}));
  ASSERT_TRUE(explicitOut.output.has_value());
  EXPECT_EQ(*explicitOut.output, "ik");
  const EinsumEquation implicitOut = splitEinsumEquation("...ii,...i");
  EXPECT_EQ(implicitOut.terms, (std::vector<std::string>{"...ii", "...i"}));
  EXPECT_FALSE(implicitOut.output.has_value());
  EXPECT_EQ(splitEinsumEquation("ii->").output, std::string());
}

TEST(MatmulDims, PromotesVectorsBroadcastsBatchesAndNamesMismatches) {
  exec::MatmulDims d;
  ASSERT_EQ(exec::matmulDims({2, 1, 3, 4}, {5, 4, 6}, false, false, d), exec::MatmulMismatch::None);
  EXPECT_EQ(d.out, (exec::Dims{2, 5, 3, 6}));
  EXPECT_EQ(d.batch, (exec::Dims{2, 5}));
  EXPECT_EQ(d.m * 100 + d.k * 10 + d.n, 346);
  ASSERT_EQ(exec::matmulDims({4}, {4, 6}, false, false, d), exec::MatmulMismatch::None);
  EXPECT_EQ(d.out, (exec::Dims{6}));  // a vector A: its row dim dropped
  ASSERT_EQ(exec::matmulDims({3, 4}, {4}, false, false, d), exec::MatmulMismatch::None);
  EXPECT_EQ(d.out, (exec::Dims{3}));
  ASSERT_EQ(exec::matmulDims({4, 3}, {6, 4}, true, true, d),
            exec::MatmulMismatch::None);  // Gemm's transposes
  EXPECT_EQ(d.out, (exec::Dims{3, 6}));
  EXPECT_EQ(exec::matmulDims({3, 4}, {5, 6}, false, false, d), exec::MatmulMismatch::InnerDims);
  EXPECT_EQ(exec::matmulDims({2, 3, 4}, {3, 4, 6}, false, false, d), exec::MatmulMismatch::BatchDims);
}

}  // namespace
}  // namespace onyx
