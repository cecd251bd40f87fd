#pragma once
// Helpers most kernels need: dtype dispatch, broadcasting, axis normalisation.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "exec/kernel.h"

namespace onyx::exec {

// Arithmetic type used to compute on a storage type: float for float16/bfloat16, the type itself otherwise.
template <class T>
using ComputeType = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
inline T fromCompute(ComputeType<T> v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(v);
  else
    return static_cast<T>(v);
}

// Calls f(T{}) with T the C++ type of `dtype` if it is in Set; returns false otherwise. Only the listed
// types are instantiated.
enum TypeSet : unsigned {
  kFloats = 1,      // float, double, float16, bfloat16
  kSignedInts = 2,  // int8..int64
  kUnsignedInts = 4,
  kBool = 8,
  kString = 16,
  kInts = kSignedInts | kUnsignedInts,
  kNumbers = kFloats | kInts,
  kAllTypes = kNumbers | kBool | kString,
};

#define ONYX_DISPATCH_CASE(SET, DT, TYPE) \
  case DataType::DT:                      \
    if constexpr ((Set & (SET)) != 0) {   \
      f(TYPE{});                          \
      return true;                        \
    }                                     \
    break;

template <unsigned Set, class F>
bool dispatchType(DataType dtype, F&& f) {
  switch (dtype) {
    ONYX_DISPATCH_CASE(kFloats, Float, float)
    ONYX_DISPATCH_CASE(kFloats, Double, double)
    ONYX_DISPATCH_CASE(kFloats, Float16, Half)
    ONYX_DISPATCH_CASE(kFloats, BFloat16, BFloat16)
    ONYX_DISPATCH_CASE(kSignedInts, Int8, int8_t)
    ONYX_DISPATCH_CASE(kSignedInts, Int16, int16_t)
    ONYX_DISPATCH_CASE(kSignedInts, Int32, int32_t)
    ONYX_DISPATCH_CASE(kSignedInts, Int64, int64_t)
    ONYX_DISPATCH_CASE(kUnsignedInts, Uint8, uint8_t)
    ONYX_DISPATCH_CASE(kUnsignedInts, Uint16, uint16_t)
    ONYX_DISPATCH_CASE(kUnsignedInts, Uint32, uint32_t)
    ONYX_DISPATCH_CASE(kUnsignedInts, Uint64, uint64_t)
    ONYX_DISPATCH_CASE(kBool, Bool, bool)
    ONYX_DISPATCH_CASE(kString, String, std::string)
    default:
      break;
  }
  return false;
}
#undef ONYX_DISPATCH_CASE

// Data-movement kernels only care about element size: dispatch on that (strings separately).
template <class F>
bool dispatchBySize(DataType dtype, F&& f) {
  if (dtype == DataType::String) {
    f(std::string{});
    return true;
  }
  switch (elementBytes(dtype)) {
    case 1:
      f(uint8_t{});
      return true;
    case 2:
      f(uint16_t{});
      return true;
    case 4:
      f(uint32_t{});
      return true;
    case 8:
      f(uint64_t{});
      return true;
    default:
      return false;
  }
}

// Numpy-style broadcast of several shapes; nullopt when they cannot broadcast.
std::optional<Dims> broadcastShapes(const std::vector<const Dims*>& shapes);
// Element strides of `dims` (row-major) as seen from `outDims` (right-aligned), 0 on broadcast dims.
std::vector<int64_t> broadcastStrides(const Dims& dims, const Dims& outDims);
std::vector<int64_t> rowMajorStrides(const Dims& dims);

// A Transpose's perm for a tensor of `rank` dims: the attribute (empty or absent: the reversal) with negative
// entries counted from the end; nullopt when it is not a permutation of [0, rank).
std::optional<std::vector<int64_t>> resolvePerm(std::vector<int64_t> perm, int64_t rank);

// `axis` in [-rank, rank) -> [0, rank); nullopt out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

// Dims seen as [outer, len, inner] around one axis, the layout axis kernels loop over: outer multiplies
// the dims before the axis, len is the axis's own and inner multiplies the dims after it. `axis` in
// [0, rank]; at rank, len and inner are 1.
struct AxisSplit {
  int64_t outer = 1;
  int64_t len = 1;
  int64_t inner = 1;
};
AxisSplit axisSplit(const Dims& dims, int64_t axis);

// Inputs 0..N-1 as tensors, or the error naming the first that is absent or not a tensor (the
// KernelContext::requireTensor preamble for several inputs at once):
//   auto in = requireTensors<2>(ctx);
//   if (!in) return in.error();
//   auto [x, scale] = *in;  // const TensorValue&
template <size_t>
using TensorRef = const TensorValue&;
template <class Indices>
struct TensorRefsOf;
template <size_t... I>
struct TensorRefsOf<std::index_sequence<I...>> {
  using type = std::tuple<TensorRef<I>...>;
};
template <size_t N>
using TensorRefs = typename TensorRefsOf<std::make_index_sequence<N>>::type;

template <size_t N, size_t... I>
Expected<TensorRefs<N>> requireTensorsAt(const KernelContext& ctx, std::index_sequence<I...>) {
  std::array<const TensorValue*, N> found{};
  for (size_t i = 0; i < N; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    found[i] = *t;
  }
  return TensorRefs<N>(*found[I]...);
}
template <size_t N>
Expected<TensorRefs<N>> requireTensors(const KernelContext& ctx) {
  return requireTensorsAt<N>(ctx, std::make_index_sequence<N>{});
}

// Walks the output of a broadcast in row-major order, calling body(outOffset, inOffsets..., runLength) for
// runs along the innermost dim where each input either steps by 1 or stays (stride 0).
struct BroadcastPlan {
  Dims outDims;
  std::vector<std::vector<int64_t>> strides;  // per input, per out dim
};

// Calls body(i0..., inputOffsets) for every output element: generic slow path used by reference kernels.
template <size_t N, class Body>
void forEachBroadcast(const Dims& outDims, const std::array<std::vector<int64_t>, N>& strides, Body&& body) {
  int64_t total = elementCount(outDims);
  if (total == 0) return;
  size_t rank = outDims.size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t out = 0; out < total; ++out) {
    body(out, offsets);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < outDims[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * outDims[d];
      index[d] = 0;
    }
  }
}

}  // namespace onyx::exec
