// Element-wise fusion as a speed-up: the same model run op by op (baseline) and after elementwise-fusion
// (calls of onyx.fused functions, run by the fused kernel), on a synthetic chain and on efficientnet_b0.
// Prints the median time of each and the ratio, measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "exec/executor.h"
#include "onnx/onnx_io.h"
#include "passes/pass.h"

namespace {

using namespace onyx;

double medianMs(const Model& model, const exec::NamedValues& inputs, int runs) {
  auto executor = exec::Executor::create(model);
  if (!executor) {
    std::fprintf(stderr, "%s\n", executor.error().toString().c_str());
    return -1;
  }
  std::vector<double> times;
  for (int i = 0; i < runs + 1; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto out = (*executor)->run(inputs);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!out) {
      std::fprintf(stderr, "%s\n", out.error().toString().c_str());
      return -1;
    }
    if (i > 0) times.push_back(ms);  // the first run plans memory
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void fuse(Model& model) {
  Rewriter rewriter(model);
  passes::PassContext context(model, rewriter);
  auto pass = passes::createPass("elementwise-fusion");
  if (auto ran = pass->run(context); !ran) std::fprintf(stderr, "%s\n", ran.error().toString().c_str());
}

void compare(const char* label, const std::function<std::unique_ptr<Model>()>& load,
             const exec::NamedValues& inputs, int runs) {
  auto baseline = load();
  auto fused = load();
  if (!baseline || !fused) return;
  fuse(*fused);
  double a = medianMs(*baseline, inputs, runs);
  double b = medianMs(*fused, inputs, runs);
  std::printf("%-28s nodes %4zu -> %4zu   op by op %8.2f ms   fused %8.2f ms   speed-up x%.2f\n", label,
              baseline->graph().nodeCount(), fused->graph().nodeCount(), a, b, a / b);
}

exec::TensorValue random(exec::Dims dims, uint64_t seed) {
  exec::TensorValue t = exec::TensorValue::allocate(DataType::Float, std::move(dims));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.count(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

}  // namespace

int main() {
  const char* chain = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 64, 112, 112] x, float[64, 1, 1] scale, float[64, 1, 1] shift) => (float[N, 64, 112, 112] y) {
  m = Mul(x, scale)
  a = Add(m, shift)
  s = Sigmoid(a)
  w = Mul(a, s)
  t = Tanh(w)
  y = Add(t, x)
})";
  compare(
      "chain of 6 ops, 1x64x112x112",
      [&] {
        auto m = parseModelText(chain);
        return m ? std::move(*m) : nullptr;
      },
      {{"x", random({1, 64, 112, 112}, 1)},
       {"scale", random({64, 1, 1}, 2)},
       {"shift", random({64, 1, 1}, 3)}},
      15);
  std::filesystem::path efficientnet =
      std::filesystem::path(ONYX_DEFAULT_MODELS) / "efficientnet_b0/model.onnx";
  if (std::filesystem::exists(efficientnet)) {
    compare(
        "efficientnet_b0, 1x3x224x224",
        [&] {
          auto m = loadModel(efficientnet);
          return m ? std::move(*m) : nullptr;
        },
        {{"input", random({1, 3, 224, 224}, 4)}}, 9);
  }
  return 0;
}
