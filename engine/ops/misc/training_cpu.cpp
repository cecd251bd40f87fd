// ai.onnx.preview.training optimizers: Adagrad, Momentum, Adam. Each takes the learning rate R and the step
// count T, then n tensors to optimize, their n gradients and the optimizer's n (or 2n) state tensors, and
// returns the updated tensors followed by the updated states.
#include <cmath>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// Per element: updates (x, g, states...) -> (x', states'...). `states` is how many state tensors per x.
template <class Update>
Expected<void> runOptimizer(KernelContext& ctx, int states, Update update) {
  auto rate = ctx.requireTensor(0);
  if (!rate) return rate.error();
  auto step = ctx.requireTensor(1);
  if (!step) return step.error();
  if ((*rate)->count() != 1) return ctx.error("R must be a scalar", 0);
  if ((*step)->count() != 1) return ctx.error("T must be a scalar", 1);
  double r = (*rate)->doubleAt(0);
  int64_t t = (*step)->intAt(0);
  int64_t groups = 2 + states;
  int64_t tensors = int64_t(ctx.inputCount()) - 2;
  if (tensors <= 0 || tensors % groups != 0)
    return ctx.error("expects R, T, then n tensors, n gradients and " + std::to_string(states) +
                     "n states; got " + std::to_string(ctx.inputCount()) + " inputs");
  int64_t n = tensors / groups;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<const TensorValue*> in;
    for (int64_t k = 0; k < groups; ++k) {
      auto v = ctx.requireTensor(size_t(2 + k * n + i));
      if (!v) return v.error();
      if (!in.empty() && (*v)->dims() != in[0]->dims())
        return ctx.error("must have the shape of " + in[0]->describe(), int(2 + k * n + i));
      // Every tensor of a group is read as the first one's type (fuzz audit: read past a narrower one).
      if (!in.empty() && (*v)->dtype() != in[0]->dtype())
        return ctx.error("must have the element type of " + in[0]->describe(), int(2 + k * n + i));
      in.push_back(*v);
    }
    std::vector<TensorValue*> out;
    for (int64_t k = 0; k < 1 + states; ++k) {
      auto v = ctx.allocateOutput(size_t(k * n + i), in[0]->dtype(), in[0]->dims());
      if (!v) return v.error();
      out.push_back(*v);
    }
    bool ok = dispatchType<kFloats>(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<double> values(static_cast<size_t>(groups)), results(static_cast<size_t>(1 + states));
      for (int64_t e = 0; e < in[0]->count(); ++e) {
        for (int64_t k = 0; k < groups; ++k)
          values[size_t(k)] = double(ComputeType<T>(in[size_t(k)]->template data<T>()[e]));
        update(r, t, values, results);
        for (int64_t k = 0; k < 1 + states; ++k)
          out[size_t(k)]->template data<T>()[e] = fromCompute<T>(ComputeType<T>(results[size_t(k)]));
      }
    });
    if (!ok) return ctx.unsupportedType(2);
  }
  return {};
}

Expected<void> adagradKernel(KernelContext& ctx) {
  double decay = ctx.attrFloat("decay_factor", 0.0f), epsilon = ctx.attrFloat("epsilon", 1e-6f);
  double lambda = ctx.attrFloat("norm_coefficient", 0.0f);
  return runOptimizer(ctx, 1,
                      [&](double r, int64_t t, const std::vector<double>& v, std::vector<double>& out) {
                        double x = v[0], g = lambda * x + v[1], h = v[2] + g * g;
                        double rate = r / (1 + double(t) * decay);
                        out[0] = x - rate * g / (std::sqrt(h) + epsilon);
                        out[1] = h;
                      });
}

Expected<void> momentumKernel(KernelContext& ctx) {
  double alpha = ctx.attrFloat("alpha", 0.0f), beta = ctx.attrFloat("beta", 0.0f);
  double lambda = ctx.attrFloat("norm_coefficient", 0.0f);
  std::string mode = ctx.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") return ctx.error("mode must be standard or nesterov");
  bool nesterov = mode == "nesterov";
  return runOptimizer(
      ctx, 1, [&](double r, int64_t t, const std::vector<double>& v, std::vector<double>& out) {
        double x = v[0], g = lambda * x + v[1];
        double velocity = alpha * v[2] + (t > 0 ? beta : 1.0) * g;  // the first step takes the whole gradient
        out[0] = nesterov ? x - r * (g + alpha * velocity) : x - r * velocity;
        out[1] = velocity;
      });
}

Expected<void> adamKernel(KernelContext& ctx) {
  double alpha = ctx.attrFloat("alpha", 0.9f), beta = ctx.attrFloat("beta", 0.999f);
  double epsilon = ctx.attrFloat("epsilon", 1e-6f), lambda = ctx.attrFloat("norm_coefficient", 0.0f);
  double lambdaPost = ctx.attrFloat("norm_coefficient_post", 0.0f);
  return runOptimizer(
      ctx, 2, [&](double r, int64_t t, const std::vector<double>& v, std::vector<double>& out) {
        double x = v[0], g = lambda * x + v[1];
        double momentum = alpha * v[2] + (1 - alpha) * g;
        double accumulated = beta * v[3] + (1 - beta) * g * g;
        double rate =
            t > 0 ? r * std::sqrt(1 - std::pow(beta, double(t))) / (1 - std::pow(alpha, double(t))) : r;
        double updated = x - rate * momentum / (std::sqrt(accumulated) + epsilon);
        out[0] = (1 - lambdaPost) * updated;
        out[1] = momentum;
        out[2] = accumulated;
      });
}

KernelDef trainingKernel(std::string op, KernelFunction f) {
  KernelDef def = kernel(std::move(op), f, 1);
  def.domain = kTrainingDomain;
  return def;
}

}  // namespace

void registerTrainingCpuKernels(KernelRegistry& r) {
  r.add(trainingKernel("Adagrad", adagradKernel));
  r.add(trainingKernel("Momentum", momentumKernel));
  r.add(trainingKernel("Adam", adamKernel));
}

}  // namespace onyx::exec
