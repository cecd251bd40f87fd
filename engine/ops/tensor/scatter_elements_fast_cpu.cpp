// ScatterElements (and Scatter) of numeric types: the reduction chosen once instead of per element, and the
// data offsets walked row by row over the indices' last axis instead of decomposed per element. Updates land
// in index order, as in the reference (scatter_cpu.cpp), which stays the oracle; strings and bools go to it.
#include <cstring>
#include <tuple>
#include <type_traits>

#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

enum class Reduction { None, Add, Mul, Max, Min };

template <Reduction R, class T>
inline T combine(T a, T b) {
  using Cm = ComputeType<T>;
  if constexpr (R == Reduction::Add) return wrappingAdd(a, b);
  if constexpr (R == Reduction::Mul) return wrappingMul(a, b);
  if constexpr (R == Reduction::Max) return Cm(a) >= Cm(b) ? a : b;
  if constexpr (R == Reduction::Min) return Cm(a) <= Cm(b) ? a : b;
  return b;
}

// Writes every update; false when an index is out of range (the rest are then skipped).
template <Reduction R, class T>
bool scatterRows(T* dst, const T* updates, const int64_t* indices, const Dims& indexDims,
                 const Dims& dataDims, int64_t axis) {
  const int64_t rank = int64_t(indexDims.size());
  const std::vector<int64_t> strides = rowMajorStrides(dataDims);
  const int64_t rowLength = indexDims.back(), len = dataDims[size_t(axis)];
  const int64_t axisStride = strides[size_t(axis)];
  const int64_t stepAlongRow = axis == rank - 1 ? 0 : 1;  // the last axis' own stride, unless it is `axis`
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= indexDims[size_t(d)];
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = 0, rest = row;
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t position = rest % indexDims[size_t(d)];
      rest /= indexDims[size_t(d)];
      if (d != axis) base += position * strides[size_t(d)];
    }
    const int64_t* index = indices + row * rowLength;
    const T* update = updates + row * rowLength;
    for (int64_t j = 0; j < rowLength; ++j) {
      int64_t i = index[j];
      if (i < -len || i >= len) return false;
      if (i < 0) i += len;
      T& target = dst[base + j * stepAlongRow + i * axisStride];
      target = combine<R>(target, update[j]);
    }
  }
  return true;
}

Expected<void> scatterElementsRows(KernelContext& ctx) {
  const TensorValue& in = ctx.input(0);
  const TensorValue& indexTensor = ctx.input(1);
  const TensorValue& updates = ctx.input(2);
  auto axis = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  std::string name = ctx.attrString("reduction", "none");
  // Unusual inputs get the reference's checks and messages.
  const bool fits = !in.empty() && indexTensor.dtype() == DataType::Int64 && axis && in.rank() > 0 &&
                    updates.dtype() == in.dtype() && updates.dims() == indexTensor.dims() &&
                    in.dtype() != DataType::String && in.dtype() != DataType::Bool &&
                    indexShapeFitsData(indexTensor.dims(), in.dims(), *axis);
  if (!fits || indexTensor.count() == 0) return runReferenceKernel(ctx);
  Reduction reduction = name == "add"   ? Reduction::Add
                        : name == "mul" ? Reduction::Mul
                        : name == "max" ? Reduction::Max
                        : name == "min" ? Reduction::Min
                                        : Reduction::None;
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  bool inRange = true;
  bool ok = dispatchType<kNumbers>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    std::memcpy(static_cast<void*>(dst), in.data<T>(), size_t(in.count()) * sizeof(T));
    auto run = [&](auto r) {
      inRange = scatterRows<decltype(r)::value>(dst, updates.data<T>(), indexTensor.data<int64_t>(),
                                                indexTensor.dims(), in.dims(), *axis);
    };
    switch (reduction) {
      case Reduction::None:
        return run(std::integral_constant<Reduction, Reduction::None>());
      case Reduction::Add:
        return run(std::integral_constant<Reduction, Reduction::Add>());
      case Reduction::Mul:
        return run(std::integral_constant<Reduction, Reduction::Mul>());
      case Reduction::Max:
        return run(std::integral_constant<Reduction, Reduction::Max>());
      case Reduction::Min:
        return run(std::integral_constant<Reduction, Reduction::Min>());
    }
  });
  if (!ok) return runReferenceKernel(ctx);
  if (!inRange) return ctx.error("an index is out of range", 1);
  return {};
}

}  // namespace

void registerScatterElementsFastCpuKernels(KernelRegistry& r) {
  for (auto [op, since, until] :
       {std::tuple<const char*, int, int>{"ScatterElements", 11, 1 << 30}, {"Scatter", 9, 10}}) {
    KernelDef def = kernel(op, scatterElementsRows, since, until);
    def.variant = "fast";
    def.priority = 10;
    r.add(std::move(def));
  }
}

}  // namespace onyx::exec
