// The Vulkan GEMM kernel's speed, readable on any device: MatMul [M,K] x [K,N] (B a weight, as in models),
// batched MatMuls ([B,M,K] x [B,K,N]: vit_b_16's attention products), Gemm with a transposed B (a Linear
// layer's weight as exported), convnext_tiny's pointwise MLPs, the 3x3 convolution whose implicit GEMM is
// M=64, N=3136, K=576 (resnet's 56x56 stage), and a GlobalAveragePool over large planes (its "GFLOP/s" are
// elements read per ns), each run on the Vulkan backend with profiling. Prints the device, the median device
// time of the node (timestamps), its GFLOP/s, and the largest difference from the CPU's result, checked
// against a tolerance.
// Usage: vk_gemm_bench [--runs N] [MxKxN | BxMxKxN | transb:MxKxN | gap:CxHxW ...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <array>
#include <string>

#include "exec/executor.h"
#include "ir/rewriter.h"

namespace {

using namespace onyx;
using exec::Dims;

struct Case {
  std::string label;
  std::unique_ptr<Model> model;
  exec::NamedValues inputs;
  double flops = 0;
};

Tensor randomWeight(std::vector<int64_t> dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> values(size_t(std::max<int64_t>(1, exec::elementCount(dims))));
  for (float& v : values) v = u(rng);
  return Tensor::fromValues(DataType::Float, std::move(dims), values);
}

// One node reading weights "x" and "w" (no "w" when wDims is empty).
Case oneNodeCase(std::string label, const std::string& op, Dims xDims, std::vector<int64_t> wDims,
                 std::vector<Attribute> attributes, double flops) {
  Case c{std::move(label), std::make_unique<Model>(), {}, flops};
  c.model->opsetImports = {{"", 17}};
  Rewriter rw(*c.model);
  Graph& g = c.model->graph();
  // Both operands are weights, so no upload precedes the node in the command buffer (the device time of a
  // step starts at its first timestamp, which an earlier copy would delay).
  Value* x = rw.addInitializer(g, "x", randomWeight(xDims, 1));
  Rewriter::NodeSpec spec;
  spec.opType = op;
  spec.name = "node";
  spec.inputs = {x};
  if (!wDims.empty()) spec.inputs.push_back(rw.addInitializer(g, "w", randomWeight(std::move(wDims), 2)));
  spec.outputNames = {"y"};
  spec.attributes = std::move(attributes);
  Node* node = rw.addNode(g, spec);
  rw.setGraphOutputs(g, node->outputs());
  return c;
}

Case matmulCase(int64_t m, int64_t k, int64_t n) {
  return oneNodeCase("MatMul " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n), "MatMul",
                     {m, k}, {k, n}, {}, 2.0 * double(m) * double(k) * double(n));
}

Case batchedMatmulCase(int64_t b, int64_t m, int64_t k, int64_t n) {
  return oneNodeCase("MatMul [" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(k) + "] x [" +
                         std::to_string(b) + "," + std::to_string(k) + "," + std::to_string(n) + "]",
                     "MatMul", {b, m, k}, {b, k, n}, {}, 2.0 * double(b) * double(m) * double(k) * double(n));
}

// Y = X W^T with W stored [N, K], as torch exports a Linear layer on a 2-D input.
Case gemmTransposedBCase(int64_t m, int64_t k, int64_t n) {
  return oneNodeCase("Gemm transB " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n), "Gemm",
                     {m, k}, {n, k}, {Attribute::ofInt("transB", 1)}, 2.0 * double(m) * double(k) * double(n));
}

Case globalPoolCase(int64_t c, int64_t h, int64_t w) {
  return oneNodeCase("GlobalAveragePool [1," + std::to_string(c) + "," + std::to_string(h) + "," + std::to_string(w) + "]",
                     "GlobalAveragePool", {1, c, h, w}, {}, {}, double(c) * double(h) * double(w));
}

Case convCase() {
  return oneNodeCase("Conv 3x3 64->64 @56x56 (implicit GEMM 64x576x3136)", "Conv", {1, 64, 56, 56}, {64, 64, 3, 3},
                     {Attribute::ofInts("pads", {1, 1, 1, 1})}, 2.0 * 64 * 576 * 3136);
}

double maxDifference(const exec::TensorValue& a, const exec::TensorValue& b, double* scale) {
  double worst = 0;
  *scale = 0;
  for (int64_t i = 0; i < a.count(); ++i) {
    worst = std::max(worst, double(std::fabs(a.data<float>()[i] - b.data<float>()[i])));
    *scale = std::max(*scale, double(std::fabs(b.data<float>()[i])));
  }
  return worst;
}

bool runCase(const Case& c, int runs, bool* printedDevice) {
  exec::ExecutorOptions options;
  options.backends = {"vulkan"};
  options.profile = true;
  options.foldConstants = false;  // the node reads only weights: run it every time
  auto gpu = exec::Executor::create(*c.model, options);
  exec::ExecutorOptions cpuOptions;
  cpuOptions.foldConstants = false;
  auto cpu = exec::Executor::create(*c.model, cpuOptions);
  if (!gpu || !cpu) {
    std::fprintf(stderr, "%s\n", (!gpu ? gpu.error() : cpu.error()).toString().c_str());
    return false;
  }
  if (!*printedDevice) {
    for (const auto& [backend, device] : (*gpu)->devices()) std::printf("%s: %s\n", backend.c_str(), device.c_str());
    *printedDevice = true;
  }
  std::vector<double> deviceMs;
  Expected<std::vector<exec::RunValue>> out = makeError("not run", c.label);
  for (int i = 0; i < runs + 1; ++i) {
    (*gpu)->profiler().clear();
    out = (*gpu)->run(c.inputs);
    if (!out) {
      std::fprintf(stderr, "%s\n", out.error().toString().c_str());
      return false;
    }
    for (const exec::ProfileEvent& e : (*gpu)->profiler().events()) {
      if (e.name != "node") continue;
      if (e.variant != "vulkan") {
        std::fprintf(stderr, "%s ran as %s, not on the device\n", c.label.c_str(), e.variant.c_str());
        return false;
      }
      if (i > 0) deviceMs.push_back(double(e.durationNs) / 1e6);  // the first run compiles pipelines
    }
  }
  auto reference = (*cpu)->run(c.inputs);
  if (!reference) return false;
  const auto& y = std::get<exec::TensorValue>((*out)[0]);
  const auto& r = std::get<exec::TensorValue>((*reference)[0]);
  double scale = 0, difference = maxDifference(y, r, &scale);
  bool ok = difference <= 1e-4 * std::max(1.0, scale) * 10;
  std::sort(deviceMs.begin(), deviceMs.end());
  double ms = deviceMs[deviceMs.size() / 2];
  std::printf("%-52s %10.3f ms %10.1f GFLOP/s  max |diff| %.2e %s\n", c.label.c_str(), ms, c.flops / ms / 1e6,
              difference, ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::vector<Case> cases;
  for (int i = 1; i < argc; ++i) {
    long long b = 0, m = 0, k = 0, n = 0;
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::sscanf(argv[i], "gap:%lldx%lldx%lld", &m, &k, &n) == 3) {
      cases.push_back(globalPoolCase(m, k, n));
    } else if (std::sscanf(argv[i], "transb:%lldx%lldx%lld", &m, &k, &n) == 3) {
      cases.push_back(gemmTransposedBCase(m, k, n));
    } else if (std::sscanf(argv[i], "%lldx%lldx%lldx%lld", &b, &m, &k, &n) == 4) {
      cases.push_back(batchedMatmulCase(b, m, k, n));
    } else if (std::sscanf(argv[i], "%lldx%lldx%lld", &m, &k, &n) == 3) {
      cases.push_back(matmulCase(m, k, n));
    } else {
      std::fprintf(stderr, "usage: vk_gemm_bench [--runs N] [MxKxN | BxMxKxN | transb:MxKxN | gap:CxHxW ...]\n");
      return 2;
    }
  }
  if (cases.empty()) {
    for (auto [m, k, n] : {std::array<int64_t, 3>{197, 768, 3072}, {128, 256, 1024}, {1024, 1024, 1024},
                           {3136, 576, 64}})
      cases.push_back(matmulCase(m, k, n));
    cases.push_back(convCase());
    cases.push_back(batchedMatmulCase(12, 197, 64, 197));  // vit_b_16's attention: Q K^T
    cases.push_back(batchedMatmulCase(12, 197, 197, 64));  // softmax(Q K^T) V
    cases.push_back(gemmTransposedBCase(197, 768, 768));   // its output projection
    // convnext_tiny's pointwise MLPs (K small next to M): stage 1 and stage 3.
    for (auto [m, k, n] : {std::array<int64_t, 3>{3136, 96, 384}, {3136, 384, 96}, {196, 384, 1536}})
      cases.push_back(matmulCase(m, k, n));
    cases.push_back(globalPoolCase(96, 112, 112));  // efficientnet_b0's first squeeze-excite
    cases.push_back(globalPoolCase(1280, 7, 7));    // its head
  }
  bool printedDevice = false, ok = true;
  for (const Case& c : cases) ok = runCase(c, runs, &printedDevice) && ok;
  return ok ? 0 : 1;
}
