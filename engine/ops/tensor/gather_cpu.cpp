// Gather, GatherElements and GatherND reference kernels. Gather copies rows as bytes; the others go by element
// size (strings by value).
#include <cstring>

#include "exec/kernel_util.h"
#include "exec/lazy_table.h"
#include "ops/tensor/movement_params.h"

namespace onyx::exec {

// Offset into a tensor with `strides` of element `o` of an index tensor with dims `indexDims`, whose
// coordinate along `axis` is replaced by `index` (GatherElements reads there, ScatterElements writes).
// An index outside [-len, len) sets `bad` and reads element 0 of that axis.
int64_t elementOffsetAlongAxis(int64_t o, const std::vector<int64_t>& indexDims, const std::vector<int64_t>& strides,
                               int64_t axis, int64_t index, int64_t len, bool& bad) {
  int64_t rest = o, off = 0;
  for (int64_t d = int64_t(indexDims.size()) - 1; d >= 0; --d) {
    int64_t i = rest % indexDims[size_t(d)];
    rest /= indexDims[size_t(d)];
    if (d == axis) {
      i = index;
      if (i < -len || i >= len) {
        bad = true;
        i = 0;
      }
      if (i < 0) i += len;
    }
    off += i * strides[size_t(d)];
  }
  return off;
}

bool indexShapeFitsData(const std::vector<int64_t>& indexDims, const std::vector<int64_t>& dataDims, int64_t axis) {
  if (indexDims.size() != dataDims.size()) return false;
  for (size_t d = 0; d < indexDims.size(); ++d)
    if (int64_t(d) != axis && indexDims[d] > dataDims[d]) return false;
  return true;
}

Expected<void> requireIndexShapeFitsData(const KernelContext& ctx, const TensorValue& indices, const TensorValue& data,
                                         int64_t axis) {
  if (indexShapeFitsData(indices.dims(), data.dims(), axis)) return {};
  return ctx.error("indices " + indices.describe() + " reach past " + data.describe() + " in a dim other than axis " +
                       std::to_string(axis),
                   1);
}

namespace {

Expected<void> gatherKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt) return ctx.error("axis is out of range for " + in.describe(), 0);
  int64_t axis = *axisOpt;
  Dims outDims(in.dims().begin(), in.dims().begin() + axis);
  for (int64_t d : (*idx)->dims()) outDims.push_back(d);
  for (int64_t d = axis + 1; d < in.rank(); ++d) outDims.push_back(in.dim(d));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  const auto [outerBound, lenBound, innerBound] = axisSplit(in.dims(), axis);
  // Plain references: clang before 16 cannot capture structured bindings in lambdas.
  const auto& outer = outerBound; const auto& len = lenBound; const auto& inner = innerBound;
  const int64_t n = (*idx)->count();
  std::vector<int64_t> indices = (*idx)->toInts();
  for (int64_t& i : indices) {
    if (i < -len || i >= len)
      return ctx.error("index " + std::to_string(i) + " is out of range for dim " + std::to_string(len), 1);
    if (i < 0) i += len;
  }
  // Rows are copied as bytes: a constant table read only by Gather may start unaligned to its element
  // (exec/plan_builder.cpp views it where the model file has it).
  if (in.dtype() != DataType::String && dataTypeBits(in.dtype()) % 8 == 0) {
    const size_t row = size_t(inner) * size_t(dataTypeBits(in.dtype()) / 8);
    const auto* src = static_cast<const std::byte*>(in.raw());
    auto* dst = static_cast<std::byte*>((*y)->raw());
    LazyTable* table = LazyTable::containing(src);  // a table copied out as its rows are read
    // Rows of one element copied with a fixed size, which compiles to one load and store: detection heads
    // take a class's column of a [boxes, classes] score table, one float per row.
    auto copyRows = [&](auto rowBytes) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < n; ++j) {
          const size_t from = size_t(o * len + indices[size_t(j)]) * rowBytes;
          if (table) table->ensure(size_t(src - table->data()) + from, rowBytes);
          std::memcpy(dst + size_t(o * n + j) * rowBytes, src + from, rowBytes);
        }
    };
    if (row == 4) copyRows(std::integral_constant<size_t, 4>());
    else if (row == 8) copyRows(std::integral_constant<size_t, 8>());
    else copyRows(row);
    return {};
  }
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        std::copy(src + (o * len + indices[size_t(j)]) * inner,
                  src + (o * len + indices[size_t(j)] + 1) * inner, dst + (o * n + j) * inner);
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> gatherElementsKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  auto axisOpt = normalizeAxis(ctx.attrInt("axis", 0), in.rank());
  if (!axisOpt || (*idx)->rank() != in.rank())
    return ctx.error("axis or index rank does not match " + in.describe(), 1);
  int64_t axis = *axisOpt;
  // Past the data in another dim, the offsets would leave it (fuzz_run).
  if (auto fits = requireIndexShapeFitsData(ctx, **idx, in, axis); !fits) return fits.error();
  auto y = ctx.allocateOutput(0, in.dtype(), (*idx)->dims());
  if (!y) return y.error();
  auto inStrides = rowMajorStrides(in.dims());
  const Dims& od = (*idx)->dims();
  std::vector<int64_t> indices = (*idx)->toInts();
  int64_t len = in.dim(axis);
  bool bad = false;
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    for (int64_t o = 0; o < (*y)->count() && !bad; ++o) {
      const int64_t off = elementOffsetAlongAxis(o, od, inStrides, axis, indices[size_t(o)], len, bad);
      if (!bad) dst[o] = src[off];  // a data dim of 0 has nothing to read even at index 0
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> gatherNDKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto idx = ctx.requireTensor(1);
  if (!idx) return idx.error();
  const TensorValue& in = **x;
  const TensorValue& ind = **idx;
  int64_t b = ctx.attrInt("batch_dims", 0);
  if (ind.rank() < 1) return ctx.error("indices must have rank >= 1", 1);
  if (b < 0 || b >= ind.rank() || b > in.rank())
    return ctx.error("batch_dims " + std::to_string(b) + " must be at least 0 and less than the rank of indices " +
                         ind.describe() + " and at most the data's rank",
                     1);
  // The tuples of batch i read batch i of the data: the batch dims must match (fuzz_run: 46 tuples over a
  // batch of 10 read past the data).
  for (int64_t d = 0; d < b; ++d)
    if (ind.dim(d) != in.dim(d))
      return ctx.error("batch dim " + std::to_string(d) + " of indices " + ind.describe() + " differs from the data's " +
                           in.describe() + " (batch_dims " + std::to_string(b) + ")",
                       1);
  int64_t k = ind.dims().back();
  if (b + k > in.rank()) return ctx.error("index depth exceeds the data rank", 1);
  Dims outDims(ind.dims().begin(), ind.dims().end() - 1);
  for (int64_t d = b + k; d < in.rank(); ++d) outDims.push_back(in.dim(d));
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  int64_t batch = 1;
  for (int64_t d = 0; d < b; ++d) batch *= in.dim(d);
  int64_t slice = 1;
  for (int64_t d = b + k; d < in.rank(); ++d) slice *= in.dim(d);
  int64_t perBatchData = 1;
  for (int64_t d = b; d < in.rank(); ++d) perBatchData *= in.dim(d);
  int64_t tuples = ind.count() / std::max<int64_t>(k, 1);
  if (k == 0) tuples = elementCount(Dims(ind.dims().begin(), ind.dims().end() - 1));
  int64_t tuplesPerBatch = tuples / std::max<int64_t>(batch, 1);
  auto strides = rowMajorStrides(in.dims());
  std::vector<int64_t> indices = ind.toInts();
  bool bad = false;
  bool ok = dispatchBySize(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.data<T>();
    T* dst = (*y)->template data<T>();
    // The tuples batch by batch, the indexed dims and their strides read once: detection heads gather a
    // few thousand single elements per class.
    const Dims& dims = in.dims();
    const int64_t perBatch = std::max<int64_t>(tuplesPerBatch, 1);
    for (int64_t t0 = 0; t0 < tuples; t0 += perBatch) {
      const int64_t base = t0 / perBatch * perBatchData, t1 = std::min(tuples, t0 + perBatch);
      for (int64_t t = t0; t < t1; ++t) {
        int64_t off = base;
        for (int64_t j = 0; j < k; ++j) {
          int64_t i = indices[size_t(t * k + j)];
          const int64_t dim = dims[size_t(b + j)];
          if (i < -dim || i >= dim) {
            bad = true;  // a data dim of 0 has no row even at index 0: stop before reading
            return;
          }
          if (i < 0) i += dim;
          off += i * strides[size_t(b + j)];
        }
        if (slice == 1) dst[t] = src[off];
        else std::copy(src + off, src + off + slice, dst + t * slice);
      }
    }
  });
  if (bad) return ctx.error("an index is out of range", 1);
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

}  // namespace

void registerGatherCpuKernels(KernelRegistry& r) {
  r.add(kernel("Gather", gatherKernel, 1));
  r.add(kernel("GatherElements", gatherElementsKernel, 11));
  r.add(kernel("GatherND", gatherNDKernel, 11));
}

}  // namespace onyx::exec
