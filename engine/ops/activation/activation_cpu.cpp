// Activation functions: element-wise, with a reference kernel (plain loop, std:: math) and a fast float32
// kernel (parallel, vectorised approximations) for the ones hot in real models.
#include <cmath>

#include "exec/cpu/fast_math.h"
#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

// Applies op(x) element-wise. Op: constructed from the context (attributes), `C operator()(C)` on the compute
// type.
template <class Op, unsigned Types = kFloats>
Expected<void> unaryReference(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  Op op(ctx);
  bool ok = dispatchType<Types>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < in.count(); ++i) dst[i] = fromCompute<T>(op(C(src[i])));
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// float32 goes through a vectorised array function in parallel chunks; other types use the reference.
template <class Op, unsigned Types, void (*FloatLoop)(const float*, float*, int64_t, float, float)>
Expected<void> unaryFast(KernelContext& ctx) {
  const TensorValue& in = ctx.input(0);
  if (in.dtype() != DataType::Float) return unaryReference<Op, Types>(ctx);
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  Op op(ctx);
  const float* src = in.data<float>();
  float* dst = (*y)->template data<float>();
  ctx.parallelFor(in.count(), 16384, [&](int64_t begin, int64_t end) {
    FloatLoop(src + begin, dst + begin, end - begin, op.alpha, op.beta);
  });
  return {};
}

struct NoParams {
  float alpha = 0, beta = 0;
};

struct ReluOp : NoParams {
  explicit ReluOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return v > C(0) ? v : C(0);
  }
};
struct SigmoidOp : NoParams {
  explicit SigmoidOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return C(1) / (C(1) + std::exp(-v));
  }
};
struct TanhOp : NoParams {
  explicit TanhOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return std::tanh(v);
  }
};
struct LeakyReluOp {
  float alpha, beta = 0;
  explicit LeakyReluOp(const KernelContext& c) : alpha(c.attrFloat("alpha", 0.01f)) {}
  template <class C>
  C operator()(C v) const {
    return v >= C(0) ? v : C(alpha) * v;
  }
};
struct EluOp {
  float alpha, beta = 0;
  explicit EluOp(const KernelContext& c) : alpha(c.attrFloat("alpha", 1.0f)) {}
  template <class C>
  C operator()(C v) const {
    return v >= C(0) ? v : C(alpha) * (std::exp(v) - C(1));
  }
};
struct CeluOp {
  float alpha, beta = 0;
  explicit CeluOp(const KernelContext& c) : alpha(c.attrFloat("alpha", 1.0f)) {}
  template <class C>
  C operator()(C v) const {
    return std::max(C(0), v) + std::min(C(0), C(alpha) * (std::exp(v / C(alpha)) - C(1)));
  }
};
struct SeluOp {
  float alpha, beta;
  explicit SeluOp(const KernelContext& c)
      : alpha(c.attrFloat("alpha", 1.67326319217681884765625f)),
        beta(c.attrFloat("gamma", 1.05070102214813232421875f)) {}
  template <class C>
  C operator()(C v) const {
    return C(beta) * (v > C(0) ? v : C(alpha) * (std::exp(v) - C(1)));
  }
};
struct HardSigmoidOp {
  float alpha, beta;
  explicit HardSigmoidOp(const KernelContext& c)
      : alpha(c.attrFloat("alpha", 0.2f)), beta(c.attrFloat("beta", 0.5f)) {}
  template <class C>
  C operator()(C v) const {
    return std::max(C(0), std::min(C(1), C(alpha) * v + C(beta)));
  }
};
struct HardSwishOp : NoParams {
  explicit HardSwishOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return v * std::max(C(0), std::min(C(1), v / C(6) + C(0.5)));
  }
};
struct SoftplusOp : NoParams {
  explicit SoftplusOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return v > C(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
  }
};
struct SoftsignOp : NoParams {
  explicit SoftsignOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return v / (C(1) + std::abs(v));
  }
};
struct ThresholdedReluOp {
  float alpha, beta = 0;
  explicit ThresholdedReluOp(const KernelContext& c) : alpha(c.attrFloat("alpha", 1.0f)) {}
  template <class C>
  C operator()(C v) const {
    return v > C(alpha) ? v : C(0);
  }
};
struct MishOp : NoParams {
  explicit MishOp(const KernelContext&) {}
  template <class C>
  C operator()(C v) const {
    return v * std::tanh(v > C(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)));
  }
};
struct GeluOp {
  float alpha = 0, beta = 0;
  bool tanhApprox;
  explicit GeluOp(const KernelContext& c) : tanhApprox(c.attrString("approximate", "none") == "tanh") {}
  template <class C>
  C operator()(C v) const {
    if (tanhApprox)
      return C(0.5) * v * (C(1) + std::tanh(C(0.7978845608028654) * (v + C(0.044715) * v * v * v)));
    return C(0.5) * v * (C(1) + std::erf(v / C(1.4142135623730951)));
  }
};

template <class Op, unsigned Types = kFloats>
void addReference(KernelRegistry& r, const char* op, int since) {
  KernelDef def = kernel(op, unaryReference<Op, Types>, since);
  def.inPlace = {{0, 0}};
  def.flops = [](const KernelContext& c) { return c.input(0).count(); };
  r.add(std::move(def));
}

template <class Op, unsigned Types, void (*FloatLoop)(const float*, float*, int64_t, float, float)>
void addFast(KernelRegistry& r, const char* op, int since) {
  KernelDef def = kernel(op, unaryFast<Op, Types, FloatLoop>, since);
  def.variant = "fast";
  def.isaDispatched = true;
  def.priority = 10;
  def.inPlace = {{0, 0}};
  def.flops = [](const KernelContext& c) { return c.input(0).count(); };
  r.add(std::move(def));
}

}  // namespace

void registerActivationCpuKernels(KernelRegistry& r) {
  addReference<ReluOp, kFloats | kSignedInts>(r, "Relu", 1);
  addFast<ReluOp, kFloats | kSignedInts, fastRelu>(r, "Relu", 1);
  addReference<SigmoidOp>(r, "Sigmoid", 1);
  addFast<SigmoidOp, kFloats, fastSigmoid>(r, "Sigmoid", 1);
  addReference<TanhOp>(r, "Tanh", 1);
  addFast<TanhOp, kFloats, fastTanh>(r, "Tanh", 1);
  addReference<HardSigmoidOp>(r, "HardSigmoid", 1);
  addFast<HardSigmoidOp, kFloats, fastHardSigmoid>(r, "HardSigmoid", 1);
  addReference<HardSwishOp>(r, "HardSwish", 14);
  addFast<HardSwishOp, kFloats, fastHardSwish>(r, "HardSwish", 14);
  addReference<LeakyReluOp>(r, "LeakyRelu", 1);
  addReference<EluOp>(r, "Elu", 1);
  addReference<CeluOp>(r, "Celu", 12);
  addReference<SeluOp>(r, "Selu", 1);
  addReference<SoftplusOp>(r, "Softplus", 1);
  addReference<SoftsignOp>(r, "Softsign", 1);
  addReference<ThresholdedReluOp>(r, "ThresholdedRelu", 10);
  addReference<MishOp>(r, "Mish", 18);
  addReference<GeluOp>(r, "Gelu", 20);
}

}  // namespace onyx::exec
