// Comparisons (Equal, Greater, Less, GreaterOrEqual, LessOrEqual), boolean And/Or/Xor, and Where.
#include "exec/elementwise.h"

namespace onyx::exec {
namespace {

template <class Cmp, unsigned Types>
Expected<void> compareKernel(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(1);
  if (!b) return b.error();
  if ((*a)->dtype() != (*b)->dtype())
    return ctx.error(
        "inputs have different element types (" + (*a)->describe() + ", " + (*b)->describe() + ")", 1);
  auto layout = binaryLayout((*a)->dims(), (*b)->dims());
  if (!layout) return ctx.error("cannot broadcast " + (*a)->describe() + " with " + (*b)->describe(), 1);
  auto y = ctx.allocateOutput(0, DataType::Bool, layout->outDims);
  if (!y) return y.error();
  Cmp cmp;
  bool ok = dispatchType<Types>((*a)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string>) {
      binaryLoop(ctx, *layout, (*a)->template data<T>(), (*b)->template data<T>(),
                 (*y)->template data<bool>(), [&](const T& x, const T& z) { return cmp(x, z); });
    } else {
      using Cm = ComputeType<T>;
      binaryLoop(ctx, *layout, (*a)->template data<T>(), (*b)->template data<T>(),
                 (*y)->template data<bool>(), [&](T x, T z) { return cmp(Cm(x), Cm(z)); });
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

struct Eq {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};
struct Gt {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a > b;
  }
};
struct Lt {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};
struct Ge {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a >= b;
  }
};
struct Le {
  template <class T>
  bool operator()(const T& a, const T& b) const {
    return a <= b;
  }
};
struct AndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  bool operator()(bool a, bool b) const { return a != b; }
};

template <class Op>
Expected<void> boolKernel(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(1);
  if (!b) return b.error();
  if ((*a)->dtype() != DataType::Bool) return ctx.unsupportedType(0);
  if ((*b)->dtype() != DataType::Bool) return ctx.unsupportedType(1);
  auto layout = binaryLayout((*a)->dims(), (*b)->dims());
  if (!layout) return ctx.error("cannot broadcast " + (*a)->describe() + " with " + (*b)->describe(), 1);
  auto y = ctx.allocateOutput(0, DataType::Bool, layout->outDims);
  if (!y) return y.error();
  Op op;
  binaryLoop(ctx, *layout, (*a)->template data<bool>(), (*b)->template data<bool>(),
             (*y)->template data<bool>(), [&](bool x, bool z) { return op(x, z); });
  return {};
}

Expected<void> whereKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
  }
  const TensorValue& c = ctx.input(0);
  const TensorValue& x = ctx.input(1);
  const TensorValue& y = ctx.input(2);
  if (x.dtype() != y.dtype()) return ctx.error("X and Y have different element types", 2);
  // The condition is read as bool bytes: any other type holds values a bool cannot (UBSan) or is narrower.
  if (c.dtype() != DataType::Bool) return ctx.error("condition " + c.describe() + " must be bool", 0);
  auto out = broadcastShapes({&c.dims(), &x.dims(), &y.dims()});
  if (!out)
    return ctx.error("cannot broadcast " + c.describe() + ", " + x.describe() + " and " + y.describe(), 1);
  auto r = ctx.allocateOutput(0, x.dtype(), *out);
  if (!r) return r.error();
  std::array<std::vector<int64_t>, 3> strides{
      broadcastStrides(c.dims(), *out), broadcastStrides(x.dims(), *out), broadcastStrides(y.dims(), *out)};
  const bool* cond = c.data<bool>();
  bool ok = dispatchBySize(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* dst = (*r)->template data<T>();
    forEachBroadcast<3>(*out, strides, [&](int64_t o, const std::array<int64_t, 3>& off) {
      dst[o] = cond[off[0]] ? px[off[1]] : py[off[2]];
    });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(1);
}

}  // namespace

void registerCompareCpuKernels(KernelRegistry& r) {
  r.add(kernel("Equal", compareKernel<Eq, kNumbers | kBool | kString>, 1));
  r.add(kernel("Greater", compareKernel<Gt, kNumbers>, 1));
  r.add(kernel("Less", compareKernel<Lt, kNumbers>, 1));
  r.add(kernel("GreaterOrEqual", compareKernel<Ge, kNumbers>, 12));
  r.add(kernel("LessOrEqual", compareKernel<Le, kNumbers>, 12));
  r.add(kernel("And", boolKernel<AndOp>, 1));
  r.add(kernel("Or", boolKernel<OrOp>, 1));
  r.add(kernel("Xor", boolKernel<XorOp>, 1));
  r.add(kernel("Where", whereKernel, 9));
}

}  // namespace onyx::exec
