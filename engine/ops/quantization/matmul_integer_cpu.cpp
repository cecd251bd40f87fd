// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) over 8-bit integers, accumulated in int32, with
// numpy matmul broadcasting. a_zero_point is a scalar or one per row of A; b_zero_point a scalar or one per
// column of B.
#include <string>
#include <vector>

#include "exec/kernel_util.h"
#include "exec/wrapping_arithmetic.h"

namespace onyx::exec {
namespace {

int32_t integerAt(const TensorValue& t, int64_t i) {
  return t.dtype() == DataType::Int8 ? int32_t(t.data<int8_t>()[i]) : int32_t(t.data<uint8_t>()[i]);
}

Expected<void> matMulIntegerKernel(KernelContext& ctx) {
  auto a = ctx.requireTensor(0);
  if (!a) return a.error();
  auto b = ctx.requireTensor(1);
  if (!b) return b.error();
  for (int i = 0; i < 2; ++i) {
    DataType t = ctx.input(size_t(i)).dtype();
    if (t != DataType::Int8 && t != DataType::Uint8) return ctx.unsupportedType(i);
  }
  // Promote 1-D operands as numpy does: A [K] -> [1, K], B [K] -> [K, 1] (the extra dim is dropped again).
  Dims aDims = (*a)->dims(), bDims = (*b)->dims();
  if (aDims.empty() || bDims.empty()) return ctx.error("operands must have at least one dimension");
  bool aVector = aDims.size() == 1, bVector = bDims.size() == 1;
  if (aVector) aDims.insert(aDims.begin(), 1);
  if (bVector) bDims.push_back(1);
  int64_t m = aDims[aDims.size() - 2], k = aDims.back(), n = bDims.back();
  if (bDims[bDims.size() - 2] != k)
    return ctx.error("inner dimensions differ: " + (*a)->describe() + " x " + (*b)->describe(), 1);
  Dims aBatch(aDims.begin(), aDims.end() - 2), bBatch(bDims.begin(), bDims.end() - 2);
  auto batch = broadcastShapes({&aBatch, &bBatch});
  if (!batch)
    return ctx.error("batch dimensions cannot broadcast: " + (*a)->describe() + " x " + (*b)->describe(), 1);
  const TensorValue& aZero = ctx.input(2);
  const TensorValue& bZero = ctx.input(3);
  if (!aZero.empty() && aZero.count() != 1 && aZero.count() != m)
    return ctx.error("a_zero_point must be a scalar or have one entry per row of A", 2);
  if (!bZero.empty() && bZero.count() != 1 && bZero.count() != n)
    return ctx.error("b_zero_point must be a scalar or have one entry per column of B", 3);
  Dims outDims = *batch;
  if (!aVector) outDims.push_back(m);
  if (!bVector) outDims.push_back(n);
  auto y = ctx.allocateOutput(0, DataType::Int32, outDims);
  if (!y) return y.error();
  int64_t batches = elementCount(*batch);
  auto aStrides = broadcastStrides(aBatch, *batch), bStrides = broadcastStrides(bBatch, *batch);
  int32_t* out = (*y)->data<int32_t>();
  for (int64_t p = 0; p < batches; ++p) {
    int64_t aOffset = 0, bOffset = 0, rest = p;
    for (int64_t d = int64_t(batch->size()) - 1; d >= 0; --d) {
      int64_t i = rest % (*batch)[size_t(d)];
      rest /= (*batch)[size_t(d)];
      aOffset += i * aStrides[size_t(d)];
      bOffset += i * bStrides[size_t(d)];
    }
    aOffset *= m * k;
    bOffset *= k * n;
    for (int64_t r = 0; r < m; ++r) {
      int32_t za = aZero.empty() ? 0 : integerAt(aZero, aZero.count() == 1 ? 0 : r);
      for (int64_t c = 0; c < n; ++c) {
        int32_t zb = bZero.empty() ? 0 : integerAt(bZero, bZero.count() == 1 ? 0 : c);
        int32_t sum = 0;
        for (int64_t i = 0; i < k; ++i)
          sum = wrappingAdd(sum, (integerAt(**a, aOffset + r * k + i) - za) *  // int32 wraps, as ONNX Runtime's
                                     (integerAt(**b, bOffset + i * n + c) - zb));
        out[(p * m + r) * n + c] = sum;
      }
    }
  }
  return {};
}

}  // namespace

void registerMatMulIntegerCpuKernels(KernelRegistry& r) {
  r.add(kernel("MatMulInteger", matMulIntegerKernel, 10));
}

}  // namespace onyx::exec
