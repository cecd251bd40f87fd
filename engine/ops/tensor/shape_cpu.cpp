// Shape-level ops: Constant, Identity, Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, ConstantOfShape,
// Range, Expand, Cast. Reshape-like ops return views of their input (no copy).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "exec/cpu/half_convert.h"
#include "exec/kernel_util.h"
#include "exec/narrow_types.h"
#include "exec/wrapping_arithmetic.h"
#include "ir/tensor.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> constantKernel(KernelContext& ctx) {
  if (const onyx::Tensor* t = ctx.attrTensor("value")) {
    ctx.setOutput(0, TensorValue::fromConstant(*t));
    return {};
  }
  if (ctx.hasAttr("value_float")) {
    ctx.setOutput(0, TensorValue::scalar<float>(DataType::Float, ctx.attrFloat("value_float", 0)));
  } else if (ctx.hasAttr("value_int")) {
    ctx.setOutput(0, TensorValue::scalar<int64_t>(DataType::Int64, ctx.attrInt("value_int", 0)));
  } else if (auto fs = ctx.attrFloats("value_floats")) {
    ctx.setOutput(0, TensorValue::fromVector<float>(DataType::Float, {int64_t(fs->size())}, *fs));
  } else if (auto is = ctx.attrInts("value_ints")) {
    ctx.setOutput(0, TensorValue::fromVector<int64_t>(DataType::Int64, {int64_t(is->size())}, *is));
  } else if (ctx.hasAttr("value_string")) {
    ctx.setOutput(0, TensorValue::fromStrings({}, {ctx.attrString("value_string")}));
  } else if (auto ss = ctx.attrStrings("value_strings")) {
    ctx.setOutput(0, TensorValue::fromStrings({int64_t(ss->size())}, *ss));
  } else {
    return ctx.error("has no value attribute (sparse_value is not supported)");
  }
  return {};
}

Expected<void> identityKernel(KernelContext& ctx) {
  ctx.setOutput(0, ctx.inputValue(0));
  if (!ctx.hasInput(0)) return ctx.error("is missing its input", 0);
  return {};
}

Expected<void> shapeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  int64_t rank = (*x)->rank();
  int64_t start = ctx.attrInt("start", 0), end = ctx.attrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back((*x)->dim(i));
  ctx.setOutput(0, TensorValue::fromVector<int64_t>(DataType::Int64, {int64_t(dims.size())}, dims));
  return {};
}

Expected<void> sizeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  ctx.setOutput(0, TensorValue::scalar<int64_t>(DataType::Int64, (*x)->count()));
  return {};
}

Expected<void> reshapeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  std::vector<int64_t> shape;
  if (ctx.opset() < 5) {
    shape = ctx.attrInts("shape").value_or(std::vector<int64_t>{});
  } else {
    auto s = ctx.requireTensor(1);
    if (!s) return s.error();
    shape = (*s)->toInts();
  }
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowZero) {
      if (int64_t(i) >= (*x)->rank())
        return ctx.error("shape has 0 at axis " + std::to_string(i) + " beyond the input rank", 1);
      shape[i] = (*x)->dim(int64_t(i));
    }
    if (shape[i] == -1) {
      if (inferred >= 0) return ctx.error("shape has more than one -1", 1);
      inferred = int64_t(i);
    } else if (shape[i] < 0) {
      return ctx.error("shape has a negative dim " + std::to_string(shape[i]), 1);
    } else {
      // A product past int64 cannot equal the input's count (fuzz_run: signed overflow under UBSan).
      auto product = checkedMul(known, shape[i]);
      if (!product)
        return ctx.error("cannot reshape " + (*x)->describe() + " to " + describeTensor((*x)->dtype(), shape) +
                             ": the dims multiply past 2^63",
                         1);
      known = *product;
    }
  }
  if (inferred >= 0) {
    if (known == 0 || (*x)->count() % known != 0)
      return ctx.error("cannot reshape " + (*x)->describe() + " to " + describeTensor((*x)->dtype(), shape),
                       1);
    shape[size_t(inferred)] = (*x)->count() / known;
  }
  if (elementCount(shape) != (*x)->count())
    return ctx.error("cannot reshape " + (*x)->describe() + " to " + describeTensor((*x)->dtype(), shape), 1);
  ctx.setOutput(0, (*x)->reshaped(shape));
  return {};
}

Expected<void> flattenKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  int64_t rank = (*x)->rank();
  int64_t axis = ctx.attrInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return ctx.error("axis is out of range for " + (*x)->describe(), 0);
  const AxisSplit split = axisSplit((*x)->dims(), axis);  // Flatten: [before axis, from axis on]
  ctx.setOutput(0, (*x)->reshaped({split.outer, split.len * split.inner}));
  return {};
}

Expected<std::vector<int64_t>> axesFrom(KernelContext& ctx, size_t inputIndex, int firstInputOpset) {
  if (ctx.opset() >= firstInputOpset) return ctx.intsInput(inputIndex).value_or(std::vector<int64_t>{});
  return ctx.attrInts("axes").value_or(std::vector<int64_t>{});
}

Expected<void> squeezeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto axes = axesFrom(ctx, 1, 13);
  if (!axes) return axes.error();
  int64_t rank = (*x)->rank();
  std::vector<bool> drop(size_t(rank), false);
  if (axes->empty()) {
    for (int64_t i = 0; i < rank; ++i) drop[size_t(i)] = (*x)->dim(i) == 1;
  } else {
    for (int64_t a : *axes) {
      auto axis = normalizeAxis(a, rank);
      if (!axis)
        return ctx.error("axis " + std::to_string(a) + " is out of range for " + (*x)->describe(), 1);
      if ((*x)->dim(*axis) != 1)
        return ctx.error("cannot squeeze axis " + std::to_string(a) + " of " + (*x)->describe(), 1);
      drop[size_t(*axis)] = true;
    }
  }
  Dims dims;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[size_t(i)]) dims.push_back((*x)->dim(i));
  ctx.setOutput(0, (*x)->reshaped(dims));
  return {};
}

Expected<void> unsqueezeKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto axes = axesFrom(ctx, 1, 13);
  if (!axes) return axes.error();
  int64_t rank = (*x)->rank() + int64_t(axes->size());
  std::vector<bool> inserted(size_t(rank), false);
  for (int64_t a : *axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis || inserted[size_t(*axis)]) return ctx.error("axes are out of range or repeated", 1);
    inserted[size_t(*axis)] = true;
  }
  Dims dims;
  int64_t j = 0;
  for (int64_t i = 0; i < rank; ++i) dims.push_back(inserted[size_t(i)] ? 1 : (*x)->dim(j++));
  ctx.setOutput(0, (*x)->reshaped(dims));
  return {};
}

Expected<void> constantOfShapeKernel(KernelContext& ctx) {
  auto s = ctx.requireTensor(0);
  if (!s) return s.error();
  Dims dims = (*s)->toInts();
  for (int64_t d : dims)
    if (d < 0) return ctx.error("shape has a negative dim", 0);
  TensorValue value = TensorValue::scalar<float>(DataType::Float, 0.0f);
  if (const onyx::Tensor* t = ctx.attrTensor("value")) value = TensorValue::fromConstant(*t);
  if (value.count() != 1)
    return ctx.error("value must hold one element, got " + value.describe() + " (every output element is it)");
  auto y = ctx.allocateOutput(0, value.dtype(), dims);
  if (!y) return y.error();
  bool ok = dispatchBySize(value.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = value.count() ? value.data<T>()[0] : T{};
    T* out = (*y)->template data<T>();
    for (int64_t i = 0; i < (*y)->count(); ++i) out[i] = v;
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// Range's length, ceil((limit - start) / delta), or an error where ONNX's formula has no answer: a delta of
// 0 or a NaN or infinite bound (which used to give an empty tensor, exit 0), or more elements than int64
// counts (Range to 1e30).
Expected<int64_t> rangeLength(const KernelContext& ctx, double start, double limit, double delta) {
  auto bounds = [&] { return fmt::format("start {:g}, limit {:g}, delta {:g}", start, limit, delta); };
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
    return ctx.error("needs finite bounds, got " + bounds());
  if (delta == 0) return ctx.error("has delta 0, so it never reaches its limit (" + bounds() + ")");
  double q = std::ceil((limit - start) / delta);
  if (!(q > 0)) return 0;
  if (q >= 9.2e18) return ctx.error(fmt::format("has {:g} elements, more than a tensor can hold ({})", q, bounds()));
  return int64_t(q);
}

Expected<void> rangeKernel(KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    auto t = ctx.requireTensor(i);
    if (!t) return t.error();
    if ((*t)->count() != 1)
      return ctx.error("start, limit and delta must be scalars, got " + (*t)->describe(), int(i));
    // All three are read as start's type (fuzz audit: an int8 limit of an int64 start was read past its end).
    if ((*t)->dtype() != ctx.input(0).dtype())
      return ctx.error("start, limit and delta must have one element type, got " + ctx.input(0).describe() +
                           " and " + (*t)->describe(),
                       int(i));
  }
  DataType dtype = ctx.input(0).dtype();
  std::optional<Error> failed;
  bool ok = dispatchType<kNumbers>(dtype, [&](auto tag) {
    using T = decltype(tag);
    using Cm = ComputeType<T>;
    Cm start = Cm(ctx.input(0).template data<T>()[0]), limit = Cm(ctx.input(1).template data<T>()[0]),
       delta = Cm(ctx.input(2).template data<T>()[0]);
    auto n = rangeLength(ctx, double(start), double(limit), double(delta));
    if (!n) {
      failed = n.error();
      return;
    }
    auto y = ctx.allocateOutput(0, dtype, {*n});
    if (!y) {
      failed = y.error();
      return;
    }
    T* out = (*y)->template data<T>();
    // i * delta may pass the type's range before start brings it back (int32 from its lowest by 65536): wrap.
    for (int64_t i = 0; i < *n; ++i) out[i] = fromCompute<T>(wrappingAdd(start, wrappingMul(Cm(i), delta)));
  });
  if (failed) return *failed;
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> expandKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto s = ctx.requireTensor(1);
  if (!s) return s.error();
  Dims shape = (*s)->toInts();
  auto out = broadcastShapes({&(*x)->dims(), &shape});
  if (!out)
    return ctx.error(
        "cannot expand " + (*x)->describe() + " to shape " + describeTensor(DataType::Int64, shape), 1);
  auto y = ctx.allocateOutput(0, (*x)->dtype(), *out);
  if (!y) return y.error();
  std::array<std::vector<int64_t>, 1> strides{broadcastStrides((*x)->dims(), *out)};
  bool ok = dispatchBySize((*x)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = (*x)->template data<T>();
    T* dst = (*y)->template data<T>();
    // Innermost run copied in one go when the input is contiguous there.
    forEachBroadcast<1>(*out, strides,
                        [&](int64_t o, const std::array<int64_t, 1>& off) { dst[o] = src[off[0]]; });
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

template <class To, class From>
To convertValue(From v) {
  using CF = ComputeType<From>;
  using CT = ComputeType<To>;
  if constexpr (std::is_same_v<To, bool>) {
    return CF(v) != CF(0);
  } else if constexpr (std::is_floating_point_v<CF> && std::is_integral_v<CT>) {
    double d = double(CF(v));
    if (std::isnan(d)) return To(0);
    if (d >= double(std::numeric_limits<CT>::max())) return std::numeric_limits<CT>::max();
    if (d <= double(std::numeric_limits<CT>::lowest())) return std::numeric_limits<CT>::lowest();
    return To(CT(d));
  } else {
    return fromCompute<To>(CT(CF(v)));
  }
}

// Element i of a number or bool tensor as Cast writes it to a string. Integers print exactly (uint64 past
// int64 as well: through a double, 2^63 was converted to int64, undefined).
std::string numberToString(const TensorValue& in, int64_t i) {
  if (in.dtype() == DataType::Uint64) return std::to_string(in.data<uint64_t>()[i]);
  if (!isFloatingPoint(in.dtype())) return std::to_string(in.intAt(i));
  const double v = in.doubleAt(i);
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Casts from or to the float8 family, float4 and the 2- and 4-bit integers go through double, which holds
// every value of those types exactly (and every value they are converted from that matters for rounding).
Expected<void> castNarrow(KernelContext& ctx, const TensorValue& in, TensorValue& out) {
  DataType from = in.dtype();
  DataType to = out.dtype();
  bool saturate = ctx.attrInt("saturate", 1) != 0;
  E8M0Rounding rounding = E8M0Rounding::Up;
  std::string roundMode = ctx.attrString("round_mode", "up");
  if (!parseE8M0Rounding(roundMode, rounding))
    return ctx.error("round_mode must be 'up', 'down' or 'nearest', not '" + roundMode + "'");
  bool fromOk = isNarrowType(from) || dispatchType<kNumbers | kBool>(from, [](auto) {});
  bool toOk = isNarrowType(to) || dispatchType<kNumbers | kBool>(to, [](auto) {});
  if (!fromOk || !toOk)
    return ctx.error("cannot cast " + in.describe() + " to " + std::string(dataTypeName(to)), 0);
  for (int64_t i = 0; i < in.count(); ++i) {
    double v = isNarrowType(from) ? narrowToDouble(from, in.data<uint8_t>()[i]) : in.doubleAt(i);
    if (isNarrowType(to)) {
      out.data<uint8_t>()[i] = doubleToNarrow(to, v, saturate, rounding);
      continue;
    }
    dispatchType<kNumbers | kBool>(to, [&](auto tag) {
      using T = decltype(tag);
      out.data<T>()[i] = convertValue<T>(v);
    });
  }
  return {};
}

Expected<void> castTo(KernelContext& ctx, DataType to) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto y = ctx.allocateOutput(0, to, (*x)->dims());
  if (!y) return y.error();
  const TensorValue& in = **x;
  TensorValue& out = **y;
  if (isNarrowType(in.dtype()) || isNarrowType(to)) return castNarrow(ctx, in, out);
  if (in.dtype() == DataType::String || to == DataType::String) {
    // The other side must be a number or bool (fuzz_run, UBSan: a complex128 input read as NaN and printed
    // as an integer).
    const DataType other = in.dtype() == DataType::String ? to : in.dtype();
    if (other != DataType::String && !dispatchType<kNumbers | kBool>(other, [](auto) {}))
      return ctx.error("cannot cast " + in.describe() + " to " + std::string(dataTypeName(to)), 0);
    for (int64_t i = 0; i < in.count(); ++i) {
      if (to == DataType::String) {
        out.data<std::string>()[i] = in.dtype() == DataType::String
                                         ? in.data<std::string>()[i]
                                         : numberToString(in, i);
        continue;
      }
      const std::string& s = in.data<std::string>()[i];
      double d = std::strtod(s.c_str(), nullptr);
      std::string lower;
      for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "inf" || lower == "+inf" || lower == "infinity") d = INFINITY;
      if (lower == "-inf" || lower == "-infinity") d = -INFINITY;
      if (lower == "nan") d = NAN;
      bool ok = dispatchType<kNumbers | kBool>(to, [&](auto tag) {
        using T = decltype(tag);
        out.data<T>()[i] = convertValue<T>(d);
      });
      if (!ok) return ctx.error("cannot cast string to " + std::string(dataTypeName(to)));
    }
    return {};
  }
  // float16 <-> float32 a run at a time (F16C), not one conversion call per element.
  if (in.dtype() == DataType::Float16 && to == DataType::Float) {
    halvesToFloats(in.data<uint16_t>(), out.data<float>(), in.count());
    return {};
  }
  if (in.dtype() == DataType::Float && to == DataType::Float16) {
    floatsToHalves(in.data<float>(), out.data<uint16_t>(), in.count());
    return {};
  }
  bool ok = dispatchType<kNumbers | kBool>(in.dtype(), [&](auto fromTag) {
    using F = decltype(fromTag);
    dispatchType<kNumbers | kBool>(to, [&](auto toTag) {
      using T = decltype(toTag);
      const F* src = in.data<F>();
      T* dst = out.data<T>();
      for (int64_t i = 0; i < in.count(); ++i) dst[i] = convertValue<T>(src[i]);
    });
  });
  bool toOk = dispatchType<kNumbers | kBool>(to, [](auto) {});
  if (!ok || !toOk)
    return ctx.error("cannot cast " + in.describe() + " to " + std::string(dataTypeName(to)), 0);
  return {};
}

Expected<void> castKernel(KernelContext& ctx) {
  return castTo(ctx, static_cast<DataType>(ctx.attrInt("to", 0)));
}

Expected<void> castLikeKernel(KernelContext& ctx) {
  auto like = ctx.requireTensor(1);
  if (!like) return like.error();
  return castTo(ctx, (*like)->dtype());
}

}  // namespace

void registerShapeCpuKernels(KernelRegistry& r) {
  r.add(kernel("Constant", constantKernel, 1));
  r.add(kernel("Identity", identityKernel, 1));
  r.add(kernel("Shape", shapeKernel, 1));
  r.add(kernel("Size", sizeKernel, 1));
  r.add(kernel("Reshape", reshapeKernel, 1));
  r.add(kernel("Flatten", flattenKernel, 1));
  r.add(kernel("Squeeze", squeezeKernel, 1));
  r.add(kernel("Unsqueeze", unsqueezeKernel, 1));
  r.add(kernel("ConstantOfShape", constantOfShapeKernel, 9));
  r.add(kernel("Range", rangeKernel, 11));
  r.add(kernel("Expand", expandKernel, 8));
  r.add(kernel("Cast", castKernel, 1));
  r.add(kernel("CastLike", castLikeKernel, 15));
}

}  // namespace onyx::exec
