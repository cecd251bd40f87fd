// Vulkan kernels for data movement. Reshape, Flatten, Squeeze, Unsqueeze and Identity are views of their
// input's device buffer; Transpose, Slice, Expand, Concat and Split are strided copies (movement_vulkan.comp);
// Pad, Gather and Cast have their own shaders.
#include <algorithm>
#include <cstring>

#include "exec/kernel_util.h"
#include "exec/vulkan/vulkan_kernel.h"

namespace onyx::exec::vulkan {
namespace {

bool half(const TensorValue& t) { return t.dtype() == DataType::Float16; }

// Copies a dims-shaped block: x[inBase + i.inStrides] -> y[outBase + i.outStrides].
Expected<void> stridedCopy(VulkanRun& run, const TensorValue& x, const TensorValue& y, Dims dims, Dims inStrides,
                           Dims outStrides, int64_t inBase, int64_t outBase) {
  int64_t count = elementCount(dims);
  if (count == 0) return {};
  collapseDims(dims, {&inStrides, &outStrides});
  if (dims.size() > size_t(kMaxRank)) return run.fallback("a copy over more than 6 dims");
  Push push;
  push.add(count).add(int64_t(dims.size())).add(inBase).add(outBase);
  for (size_t d = 0; d < dims.size(); ++d)
    push.at(4 + int(d), dims[d]).at(10 + int(d), inStrides[d]).at(16 + int(d), outStrides[d]);
  return run.dispatch("movement_vulkan", {}, {&x, &y}, push, count, half(x));
}

Expected<void> setView(VulkanRun& run, Dims dims) {
  const TensorValue& x = run.input(0);
  if (elementCount(dims) != x.count())
    return run.error("cannot view " + x.describe() + " as " + describeTensor(x.dtype(), dims));
  run.kernel().setOutput(0, x.reshaped(std::move(dims)));
  return {};
}

Expected<void> runReshape(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  std::vector<int64_t> shape;
  if (run.kernel().opset() < 5) {
    shape = run.node().attrInts("shape").value_or(std::vector<int64_t>{});
  } else {
    auto s = run.kernel().intsInput(1);
    if (!s) return run.error("needs a shape input");
    shape = *s;
  }
  bool allowZero = run.node().attrInt("allowzero", 0) != 0;
  Dims dims;
  int64_t known = 1, infer = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t v = shape[d];
    if (v == 0 && !allowZero) {
      if (d >= x.dims().size()) return run.error("shape copies dim " + std::to_string(d) + " it does not have");
      v = x.dim(int64_t(d));
    }
    if (v == -1) {
      if (infer >= 0) return run.error("shape has two -1 entries");
      infer = int64_t(d);
      dims.push_back(1);
      continue;
    }
    known *= v;
    dims.push_back(v);
  }
  if (infer >= 0) {
    if (known == 0 || x.count() % known) return run.error("cannot reshape " + x.describe());
    dims[size_t(infer)] = x.count() / known;
  }
  return setView(run, std::move(dims));
}

Expected<void> runFlatten(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  // Flatten's axis lies in [-r, r]: a negative one counts from r, not r + 1.
  int64_t axis = run.node().attrInt("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return run.error("axis is out of range for " + x.describe());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.dim(d);
  return setView(run, {outer, inner});
}

std::optional<std::vector<int64_t>> axesOf(VulkanRun& run, int inputSince) {
  if (run.kernel().opset() >= inputSince) return run.kernel().intsInput(1);
  return run.node().attrInts("axes");
}

Expected<void> runSqueeze(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  auto axes = axesOf(run, 13);
  std::vector<bool> drop(size_t(x.rank()), false);
  if (!axes) {
    for (int64_t d = 0; d < x.rank(); ++d) drop[size_t(d)] = x.dim(d) == 1;
  } else {
    for (int64_t a : *axes) {
      auto axis = normalizeAxis(a, x.rank());
      if (!axis || x.dim(*axis) != 1) return run.error("cannot squeeze axis " + std::to_string(a) + " of " + x.describe());
      drop[size_t(*axis)] = true;
    }
  }
  Dims dims;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!drop[size_t(d)]) dims.push_back(x.dim(d));
  return setView(run, std::move(dims));
}

Expected<void> runUnsqueeze(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  auto axes = axesOf(run, 13);
  if (!axes) return run.error("needs axes");
  int64_t rank = x.rank() + int64_t(axes->size());
  std::vector<bool> inserted(size_t(rank), false);
  for (int64_t a : *axes) {
    auto axis = normalizeAxis(a, rank);
    if (!axis || inserted[size_t(*axis)]) return run.error("axis " + std::to_string(a) + " is invalid");
    inserted[size_t(*axis)] = true;
  }
  Dims dims;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) dims.push_back(inserted[size_t(d)] ? 1 : x.dims()[next++]);
  return setView(run, std::move(dims));
}

Expected<void> runIdentity(VulkanRun& run) { return setView(run, run.input(0).dims()); }

Expected<void> runTranspose(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  std::vector<int64_t> perm = run.node().attrInts("perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (int64_t d = x.rank() - 1; d >= 0; --d) perm.push_back(d);
  if (int64_t(perm.size()) != x.rank()) return run.error("perm does not match " + x.describe());
  Dims inStrides = contiguousStrides(x.dims()), dims, strides;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.rank()) return run.error("perm entry out of range");
    dims.push_back(x.dim(p));
    strides.push_back(inStrides[size_t(p)]);
  }
  auto y = run.output(0, x.dtype(), dims);
  if (!y) return y.error();
  return stridedCopy(run, x, *y, dims, strides, contiguousStrides(dims), 0, 0);
}

Expected<void> runSlice(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  KernelContext& k = run.kernel();
  std::vector<int64_t> starts, ends, axes, steps;
  if (k.opset() < 10) {
    starts = run.node().attrInts("starts").value_or(std::vector<int64_t>{});
    ends = run.node().attrInts("ends").value_or(std::vector<int64_t>{});
    axes = run.node().attrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    starts = k.intsInput(1).value_or(std::vector<int64_t>{});
    ends = k.intsInput(2).value_or(std::vector<int64_t>{});
    axes = k.intsInput(3).value_or(std::vector<int64_t>{});
    steps = k.intsInput(4).value_or(std::vector<int64_t>{});
  }
  if (starts.size() != ends.size()) return run.error("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return run.error("axes or steps differ in length from starts");
  Dims inStrides = contiguousStrides(x.dims()), dims = x.dims(), strides = inStrides;
  int64_t base = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = normalizeAxis(axes[i], x.rank());
    if (!axis) return run.error("axis " + std::to_string(axes[i]) + " is out of range for " + x.describe());
    int64_t dim = x.dim(*axis), s = steps[i], b = starts[i], e = ends[i];
    if (s == 0) return run.error("step is 0");
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t n;
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      n = e > b ? (e - b + s - 1) / s : 0;
    } else if (dim == 0) {
      b = e = n = 0;  // std::clamp(b, 0, -1) is undefined
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      n = b > e ? (b - e + (-s) - 1) / (-s) : 0;
    }
    dims[size_t(*axis)] = n;
    strides[size_t(*axis)] = inStrides[size_t(*axis)] * s;
    if (n > 0) base += b * inStrides[size_t(*axis)];
  }
  auto y = run.output(0, x.dtype(), dims);
  if (!y) return y.error();
  return stridedCopy(run, x, *y, dims, strides, contiguousStrides(dims), base, 0);
}

Expected<void> runExpand(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  auto shape = run.kernel().intsInput(1);
  if (!shape) return run.error("needs a shape input");
  Dims target(shape->begin(), shape->end());
  auto dims = broadcastShapes({&x.dims(), &target});
  if (!dims) return run.error("cannot expand " + x.describe());
  auto y = run.output(0, x.dtype(), *dims);
  if (!y) return y.error();
  return stridedCopy(run, x, *y, *dims, broadcastStridesTo(x.dims(), *dims), contiguousStrides(*dims), 0, 0);
}

Expected<void> runConcat(VulkanRun& run) {
  size_t n = run.kernel().inputCount();
  const TensorValue* first = nullptr;
  for (size_t i = 0; i < n; ++i)
    if (run.hasInput(i) && (!first || run.input(i).rank() > first->rank())) first = &run.input(i);
  if (!first) return run.error("needs inputs");
  auto axis = normalizeAxis(run.node().attrInt("axis", 0), first->rank());
  if (!axis) return run.error("axis is out of range for " + first->describe());
  Dims dims = first->dims();
  dims[size_t(*axis)] = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!run.hasInput(i)) continue;
    const TensorValue& t = run.input(i);
    if (t.rank() != first->rank()) {
      if (t.count() == 0) continue;
      return run.error("inputs differ in rank");
    }
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != *axis && t.dim(d) != first->dim(d)) return run.error("inputs differ outside the axis");
    dims[size_t(*axis)] += t.dim(*axis);
  }
  auto y = run.output(0, first->dtype(), dims);
  if (!y) return y.error();
  Dims outStrides = contiguousStrides(dims);
  int64_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!run.hasInput(i) || run.input(i).rank() != first->rank()) continue;
    const TensorValue& t = run.input(i);
    auto done = stridedCopy(run, t, *y, t.dims(), contiguousStrides(t.dims()), outStrides, 0,
                            offset * outStrides[size_t(*axis)]);
    if (!done) return done;
    offset += t.dim(*axis);
  }
  return {};
}

Expected<void> runSplit(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  KernelContext& k = run.kernel();
  auto axis = normalizeAxis(run.node().attrInt("axis", 0), x.rank());
  if (!axis) return run.error("axis is out of range for " + x.describe());
  int64_t len = x.dim(*axis);
  size_t n = k.outputCount();
  std::vector<int64_t> sizes;
  if (k.opset() >= 13 && k.hasInput(1)) {
    sizes = k.intsInput(1).value_or(std::vector<int64_t>{});
  } else if (auto s = run.node().attrInts("split")) {
    sizes = *s;
  } else {
    int64_t parts = k.opset() >= 18 ? run.node().attrInt("num_outputs", int64_t(n)) : int64_t(n);
    int64_t each = (len + parts - 1) / std::max<int64_t>(parts, 1);
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(each, len - i * each)));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != len || sizes.size() != n) return run.error("split sizes do not match dim " + std::to_string(len));
  Dims inStrides = contiguousStrides(x.dims());
  int64_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    Dims dims = x.dims();
    dims[size_t(*axis)] = sizes[i];
    auto y = run.output(i, x.dtype(), dims);
    if (!y) return y.error();
    auto done = stridedCopy(run, x, *y, dims, inStrides, contiguousStrides(dims), offset * inStrides[size_t(*axis)], 0);
    if (!done) return done;
    offset += sizes[i];
  }
  return {};
}

Expected<void> runPad(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  KernelContext& k = run.kernel();
  int64_t rank = x.rank();
  if (rank > kMaxRank) return run.fallback("more than 6 dims");
  std::string mode = run.node().attrString("mode", "constant");
  std::vector<int64_t> pads, axes;
  float value = 0;
  if (k.opset() < 11) {
    pads = run.node().attrInts("pads").value_or(run.node().attrInts("paddings").value_or(std::vector<int64_t>{}));
    value = run.node().attrFloat("value", 0);
  } else {
    pads = k.intsInput(1).value_or(std::vector<int64_t>{});
    if (k.hasInput(2) && k.input(2).count() > 0) value = float(k.input(2).doubleAt(0));
    axes = k.intsInput(3).value_or(std::vector<int64_t>{});
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  int64_t n = int64_t(axes.size());
  if (int64_t(pads.size()) != 2 * n) return run.error("pads has " + std::to_string(pads.size()) + " entries");
  Dims before(size_t(rank), 0), after(size_t(rank), 0);
  for (int64_t i = 0; i < n; ++i) {
    auto a = normalizeAxis(axes[size_t(i)], rank);
    if (!a) return run.error("axis out of range");
    before[size_t(*a)] = pads[size_t(i)];
    after[size_t(*a)] = pads[size_t(i + n)];
  }
  Dims dims;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = x.dim(d) + before[size_t(d)] + after[size_t(d)];
    if (size < 0) return run.error("pads make a negative dim");
    dims.push_back(size);
  }
  int modeCode = mode == "constant" ? 0 : mode == "edge" ? 1 : mode == "reflect" ? 2 : mode == "wrap" ? 3 : -1;
  if (modeCode < 0) return run.error("unknown mode '" + mode + "'");
  if (modeCode != 0 && x.count() == 0 && elementCount(dims) > 0) return run.error("cannot " + mode + "-pad an empty tensor");
  auto y = run.output(0, x.dtype(), dims);
  if (!y) return y.error();
  Push push;
  push.add(y->count()).add(rank).addFloat(value);
  for (int64_t d = 0; d < rank; ++d)
    push.at(3 + int(d), dims[size_t(d)]).at(9 + int(d), x.dim(d)).at(15 + int(d), before[size_t(d)]);
  return run.dispatch("pad_vulkan", {modeCode}, {&x, &*y}, push, y->count(), half(x));
}

Expected<void> runGather(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  const TensorValue& indices = run.kernel().input(1);
  auto axis = normalizeAxis(run.node().attrInt("axis", 0), x.rank());
  if (!axis) return run.error("axis is out of range for " + x.describe());
  int64_t len = x.dim(*axis);
  // Indices the run computed from its inputs (token ids) go up as they are, int64 or int32, so a run moves
  // its input bytes and no more; others (a Range from shapes, a constant) are uploaded once as int32
  // (VulkanRun::upload keeps them while they hold).
  const bool raw = !run.hostInputsStable() && (indices.dtype() == DataType::Int64 || indices.dtype() == DataType::Int32);
  TensorValue index = raw ? indices : TensorValue::allocate(DataType::Int32, indices.dims());
  for (int64_t i = 0; i < indices.count(); ++i) {
    int64_t v = indices.intAt(i);
    if (v < -len || v >= len)
      return run.error("index " + std::to_string(v) + " is out of range for dim " + std::to_string(len));
    if (raw && v >= 0) continue;
    if (raw && index.storageId() == indices.storageId()) {
      TensorValue copy = TensorValue::allocate(indices.dtype(), indices.dims());
      std::memcpy(copy.raw(), indices.raw(), indices.byteSize());
      index = std::move(copy);
    }
    if (index.dtype() == DataType::Int64)
      index.data<int64_t>()[i] = v < 0 ? v + len : v;
    else
      index.data<int32_t>()[i] = int32_t(v < 0 ? v + len : v);
  }
  Dims dims(x.dims().begin(), x.dims().begin() + *axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), x.dims().begin() + *axis + 1, x.dims().end());
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  auto y = run.output(0, x.dtype(), dims);
  if (!y) return y.error();
  if (y->count() == 0) return {};
  auto device = run.upload(index);
  if (!device) return device.error();
  Push push;
  push.add(y->count()).add(len).add(std::max<int64_t>(indices.count(), 1)).add(std::max<int64_t>(inner, 1));
  const int32_t words = index.dtype() == DataType::Int64 ? 2 : 1;
  return run.dispatch("gather_vulkan", {words}, {&x, &*device, &*y}, push, y->count(), half(x));
}

Expected<void> runCast(VulkanRun& run) {
  const TensorValue& x = run.input(0);
  DataType to = DataType(run.node().attrInt("to", 0));
  if (to == x.dtype()) return setView(run, x.dims());
  const bool toHalf = to == DataType::Float16;
  if (x.dtype() == DataType::Int64 || x.dtype() == DataType::Int32) {
    // Masks and ids on their way from a graph input into float arithmetic (VulkanKernelDef::integerData).
    if (toHalf && !run.context().float16()) return run.fallback("no 16-bit storage");
    auto y = run.output(0, to, x.dims());
    if (!y) return y.error();
    Push push;
    push.add(x.count());
    const int32_t words = x.dtype() == DataType::Int64 ? 2 : 1;
    return run.dispatch("cast_int_vulkan", {words}, {&x, &*y}, push, x.count(), toHalf);
  }
  if (!run.context().float16()) return run.fallback("no 16-bit storage");
  auto y = run.output(0, to, x.dims());
  if (!y) return y.error();
  Push push;
  push.add(x.count());
  return run.dispatch("cast_vulkan", {toHalf ? 1 : 0}, {&x, &x, &*y, &*y}, push, x.count(), true);
}

bool castsToFloat(const Node& node, int) {
  DataType to = DataType(node.attrInt("to", 0));
  return to == DataType::Float || to == DataType::Float16;
}

}  // namespace

void registerMovementVulkanKernels(VulkanKernelRegistry& registry) {
  auto add = [&](const char* op, int since, VulkanKernelFunction f, std::vector<int> host = {},
                 bool integerData = false) {
    VulkanKernelDef def{op, since};
    def.function = f;
    def.hostInputs = std::move(host);
    def.integerData = integerData;
    registry.add(std::move(def));
  };
  // The views relabel dims whatever the element type, so integer tensors may pass through them.
  add("Reshape", 1, runReshape, {1}, true);
  add("Flatten", 1, runFlatten, {}, true);
  add("Squeeze", 1, runSqueeze, {1}, true);
  add("Unsqueeze", 1, runUnsqueeze, {1}, true);
  add("Identity", 1, runIdentity, {}, true);
  add("Transpose", 1, runTranspose);
  add("Slice", 1, runSlice, {1, 2, 3, 4});
  add("Expand", 8, runExpand, {1});
  add("Concat", 4, runConcat);
  add("Split", 2, runSplit, {1});
  add("Pad", 2, runPad, {1, 2, 3});
  add("Gather", 1, runGather, {1});
  VulkanKernelDef cast{"Cast", 6};
  cast.function = runCast;
  cast.supports = castsToFloat;
  cast.convertsType = true;
  cast.integerData = true;
  registry.add(std::move(cast));
}

}  // namespace onyx::exec::vulkan
