// ScatterND, ScatterElements and Scatter (ScatterElements' opset 9-10 name) reference kernels: a copy of the
// data with the updates written (or reduced) at the indexed places.
#include <type_traits>

#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {
namespace {

template <class T>
T reduceScatter(T a, T b, const std::string& reduction) {
  using Cm = ComputeType<T>;
  if (reduction == "add") return wrappingAdd(a, b);
  if (reduction == "mul") return wrappingMul(a, b);
  if (reduction == "max") return Cm(a) >= Cm(b) ? a : b;
  if (reduction == "min") return Cm(a) <= Cm(b) ? a : b;
  return b;
}

// Updates are read as the data's type: of another type they would be read past their end (fuzz_run: float
// updates of int64 data).
Expected<void> requireUpdatesOfDataType(const KernelContext& ctx, const TensorValue& updates, const TensorValue& data) {
  if (updates.dtype() == data.dtype()) return {};
  return ctx.error("updates " + updates.describe() + " must have the data's type, " +
                       std::string(dataTypeName(data.dtype())),
                   2);
}

Expected<void> scatterNDKernel(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [inBound, indexTensorBound, updatesBound] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& in = inBound; const auto& indexTensor = indexTensorBound; const auto& updates = updatesBound;
  std::string reduction = ctx.attrString("reduction", "none");
  if (auto typed = requireUpdatesOfDataType(ctx, updates, in); !typed) return typed.error();
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  // A scalar index tensor has no depth (fuzz_run: back() of empty dims under UBSan).
  if (indexTensor.rank() == 0) return ctx.error("indices must have rank 1 or more, got a scalar", 1);
  int64_t k = indexTensor.dims().back();
  if (k > in.rank()) return ctx.error("index depth exceeds the data rank", 1);
  int64_t slice = 1;
  for (int64_t d = k; d < in.rank(); ++d) slice *= in.dim(d);
  auto strides = rowMajorStrides(in.dims());
  std::vector<int64_t> indices = indexTensor.toInts();
  int64_t tuples = k ? int64_t(indices.size()) / k : 0;
  if (updates.count() < tuples * slice)
    return ctx.error("updates " + updates.describe() + " hold fewer than the " + std::to_string(tuples * slice) +
                         " values the indices address",
                     2);
  bool bad = false;
  bool ok = dispatchType<kNumbers | kBool | kString>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in.data<T>(), in.data<T>() + in.count(), (*y)->template data<T>());
    T* dst = (*y)->template data<T>();
    const T* u = updates.template data<T>();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t i = indices[size_t(t * k + j)], dim = in.dim(j);
        if (i < -dim || i >= dim) {
          bad = true;
          i = 0;
        }
        if (i < 0) i += dim;
        off += i * strides[size_t(j)];
      }
      if (bad) return;  // the kernel fails; a data dim of 0 has no place to write even at index 0
      for (int64_t s = 0; s < slice; ++s) {
        if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>)
          dst[off + s] = u[t * slice + s];
        else
          dst[off + s] = reduceScatter(dst[off + s], u[t * slice + s], reduction);
      }
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> scatterElementsKernel(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [inBound, indexTensorBound, updatesBound] = *inputs;
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& in = inBound; const auto& indexTensor = indexTensorBound; const auto& updates = updatesBound;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range", 0);
  int64_t axis = *axisOpt;
  std::string reduction = ctx.attrString("reduction", "none");
  if (auto typed = requireUpdatesOfDataType(ctx, updates, in); !typed) return typed.error();
  if (updates.dims() != indexTensor.dims())
    return ctx.error("updates " + updates.describe() + " must have the shape of indices " + indexTensor.describe(), 2);
  if (auto fits = requireIndexShapeFitsData(ctx, indexTensor, in, axis); !fits) return fits.error();
  auto y = ctx.allocateOutput(0, in.dtype(), in.dims());
  if (!y) return y.error();
  auto strides = rowMajorStrides(in.dims());
  const Dims& id = indexTensor.dims();
  std::vector<int64_t> indices = indexTensor.toInts();
  int64_t len = in.dim(axis);
  bool bad = false;
  bool ok = dispatchType<kNumbers | kBool | kString>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy(in.data<T>(), in.data<T>() + in.count(), (*y)->template data<T>());
    T* dst = (*y)->template data<T>();
    const T* u = updates.template data<T>();
    for (int64_t o = 0; o < int64_t(indices.size()); ++o) {
      int64_t off = elementOffsetAlongAxis(o, id, strides, axis, indices[size_t(o)], len, bad);
      if (bad) return;
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>)
        dst[off] = u[o];
      else
        dst[off] = reduceScatter(dst[off], u[o], reduction);
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerScatterCpuKernels(KernelRegistry& r) {
  r.add(kernel("ScatterND", scatterNDKernel, 11));
  r.add(kernel("ScatterElements", scatterElementsKernel, 11));
  r.add(kernel("Scatter", scatterElementsKernel, 9, 10));
}

}  // namespace onyx::exec
