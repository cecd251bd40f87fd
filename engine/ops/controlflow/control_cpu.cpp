// Control flow: If runs one branch; Loop runs its body while the condition holds and the trip count
// lasts, carrying state and stacking scan outputs; Scan iterates over input axes.
#include <cstring>

#include "exec/copy_elements.h"
#include "exec/kernel_util.h"
#include "util/limits.h"

namespace onyx::exec {
namespace {

Expected<void> ifKernel(KernelContext& ctx) {
  auto cond = ctx.requireTensor(0);
  if (!cond) return cond.error();
  if ((*cond)->count() != 1)
    return ctx.error("condition must have one element, got " + (*cond)->describe(), 0);
  // Both branches, whichever runs: a malformed one would otherwise pass or fail with the condition's value.
  for (const char* name : {"then_branch", "else_branch"}) {
    const Graph* graph = ctx.attrGraph(name);
    if (!graph) return ctx.error("has no " + std::string(name) + " graph");
    if (graph->outputs().size() != ctx.outputCount())
      return ctx.error(std::string(name) + " has " + std::to_string(graph->outputs().size()) +
                       " outputs but the If has " + std::to_string(ctx.outputCount()));
  }
  const Graph* branch = ctx.attrGraph((*cond)->intAt(0) ? "then_branch" : "else_branch");
  auto outputs = ctx.runSubgraph(*branch, {});
  if (!outputs) return outputs.error();
  if (outputs->size() != ctx.outputCount())
    return ctx.error("branch produces " + std::to_string(outputs->size()) + " outputs for " +
                     std::to_string(ctx.outputCount()));
  for (size_t i = 0; i < outputs->size(); ++i) ctx.setOutput(i, std::move((*outputs)[i]));
  return {};
}

// Stacks per-iteration tensors along a new axis.
Expected<TensorValue> stack(const KernelContext& ctx, const std::vector<TensorValue>& items, int64_t axis) {
  if (items.empty()) return ctx.error("produced a scan output over zero iterations, whose shape is unknown");
  const TensorValue& first = items[0];
  Dims dims = first.dims();
  int64_t rank = first.rank();
  const int64_t given = axis;
  if (axis < 0) axis += rank + 1;
  if (axis < 0 || axis > rank)
    return ctx.error("scan_output_axes entry " + std::to_string(given) + " is out of range for a scan output of rank " +
                     std::to_string(rank));
  dims.insert(dims.begin() + axis, int64_t(items.size()));
  TensorValue out = TensorValue::allocate(first.dtype(), dims);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= first.dim(d);
  for (int64_t d = axis; d < rank; ++d) inner *= first.dim(d);
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].dims() != first.dims() || items[i].dtype() != first.dtype())
      return ctx.error("scan output changes shape between iterations");
    for (int64_t o = 0; o < outer; ++o)
      copyElements(out, (o * int64_t(items.size()) + int64_t(i)) * inner, items[i], o * inner, inner);
  }
  return out;
}

Expected<void> loopKernel(KernelContext& ctx) {
  const Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("has no body graph");
  int64_t maxTrips = ctx.hasInput(0) && ctx.input(0).count() ? ctx.input(0).intAt(0) : INT64_MAX;
  bool cond = ctx.hasInput(1) && ctx.input(1).count() ? ctx.input(1).intAt(0) != 0 : true;
  size_t carried = ctx.inputCount() > 2 ? ctx.inputCount() - 2 : 0;
  std::vector<RunValue> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(ctx.inputValue(i + 2));
  if (carried > ctx.outputCount())
    return ctx.error(std::to_string(carried) + " loop-carried values need as many outputs; Loop has " +
                     std::to_string(ctx.outputCount()));
  size_t scans = ctx.outputCount() - carried;
  std::vector<std::vector<TensorValue>> scanned(scans);
  const int64_t iterationLimit = resourceLimits().maxLoopIterations;
  for (int64_t trip = 0; trip < maxTrips && cond; ++trip) {
    if (trip >= iterationLimit)
      return ctx.error("ran " + std::to_string(iterationLimit) + " iterations, the limit (" +
                       std::string(kMaxLoopIterationsEnv) + "); check the trip count and condition, or raise it");
    std::vector<RunValue> inputs;
    inputs.push_back(TensorValue::scalar<int64_t>(DataType::Int64, trip));
    inputs.push_back(TensorValue::scalar<uint8_t>(DataType::Bool, cond ? 1 : 0));
    for (const RunValue& s : state) inputs.push_back(s);
    auto outputs = ctx.runSubgraph(*body, std::move(inputs));
    if (!outputs) return outputs.error();
    if (outputs->size() != 1 + carried + scans)
      return ctx.error("body produces " + std::to_string(outputs->size()) + " outputs; it needs " +
                       std::to_string(1 + carried + scans) + ": the condition, " + std::to_string(carried) +
                       " loop-carried values and " + std::to_string(scans) + " scan outputs");
    const auto* c = std::get_if<TensorValue>(&(*outputs)[0]);
    cond = c && c->count() ? c->intAt(0) != 0 : false;
    for (size_t i = 0; i < carried; ++i) state[i] = (*outputs)[1 + i];
    for (size_t i = 0; i < scans; ++i) {
      const auto* t = std::get_if<TensorValue>(&(*outputs)[1 + carried + i]);
      if (!t) return ctx.error("scan output " + std::to_string(i) + " is not a tensor");
      scanned[i].push_back(t->clone());
    }
  }
  for (size_t i = 0; i < carried; ++i) ctx.setOutput(i, state[i]);
  for (size_t i = 0; i < scans; ++i) {
    if (scanned[i].empty()) {
      // Zero iterations: an empty tensor of the declared element type and rank.
      const Type& t = ctx.node().output(carried + i)->type();
      Dims dims = {0};
      if (t.shape()) dims.resize(t.shape()->size(), 0);
      ctx.setOutput(
          carried + i,
          TensorValue::allocate(t.elemType() == DataType::Undefined ? DataType::Float : t.elemType(), dims));
      continue;
    }
    auto stacked = stack(ctx, scanned[i], 0);
    if (!stacked) return stacked.error();
    ctx.setOutput(carried + i, std::move(*stacked));
  }
  return {};
}

Expected<void> scanKernel(KernelContext& ctx) {
  const Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("has no body graph");
  int64_t scanInputs = ctx.attrInt("num_scan_inputs", 0);
  size_t first = ctx.opset() < 9 ? 1 : 0;  // Scan-8 has a sequence_lens input first
  if (ctx.inputCount() <= first) return ctx.error("has no state or scan inputs");
  size_t total = ctx.inputCount() - first;
  // The counts and per-input lists checked before they size anything (fuzz_run: a negative num_scan_inputs
  // sized a vector past max_size).
  if (scanInputs < 0 || size_t(scanInputs) > total)
    return ctx.error("num_scan_inputs is " + std::to_string(scanInputs) + " but Scan has " + std::to_string(total) +
                     " state and scan inputs");
  size_t carried = total - size_t(scanInputs);
  if (carried > ctx.outputCount())
    return ctx.error(std::to_string(carried) + " carried states need as many outputs; Scan has " +
                     std::to_string(ctx.outputCount()));
  size_t scanOutputs = ctx.outputCount() - carried;
  auto inAxes = ctx.attrInts("scan_input_axes").value_or(std::vector<int64_t>(size_t(scanInputs), 0));
  auto inDirs = ctx.attrInts("scan_input_directions").value_or(std::vector<int64_t>(size_t(scanInputs), 0));
  auto outAxes = ctx.attrInts("scan_output_axes").value_or(std::vector<int64_t>(scanOutputs, 0));
  auto outDirs = ctx.attrInts("scan_output_directions").value_or(std::vector<int64_t>(scanOutputs, 0));
  if (ctx.opset() < 9) {
    auto dirs = ctx.attrInts("directions").value_or(std::vector<int64_t>(size_t(scanInputs), 0));
    inDirs = dirs;
  }
  if (inAxes.size() != size_t(scanInputs) || inDirs.size() != size_t(scanInputs) ||
      outAxes.size() != scanOutputs || outDirs.size() != scanOutputs)
    return ctx.error("the scan axes and directions attributes need one entry per scan input (" +
                     std::to_string(scanInputs) + ") and per scan output (" + std::to_string(scanOutputs) + ")");
  for (size_t i = first; i < ctx.inputCount(); ++i) {
    if (!ctx.hasInput(i) || !std::holds_alternative<TensorValue>(ctx.inputValue(i)))
      return ctx.error("input " + std::to_string(i) + " must be a tensor", int(i));
    if (ctx.opset() < 9 && (ctx.input(i).rank() < 1 || ctx.input(i).dim(0) != ctx.input(first).dim(0)))
      return ctx.error("Scan-8's inputs share a leading batch dim; input " + std::to_string(i) + " is " +
                           ctx.input(i).describe(),
                       int(i));
  }
  std::vector<RunValue> state;
  for (size_t i = 0; i < carried; ++i) state.push_back(ctx.inputValue(first + i));
  // Scan-8 has a batch dim in front of everything: run per batch entry.
  int64_t batch = ctx.opset() < 9 ? ctx.input(first).dim(0) : 1;
  std::vector<std::vector<TensorValue>> finalState(carried);
  std::vector<std::vector<TensorValue>> outputsPerBatch(scanOutputs);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<TensorValue> inputs;
    std::vector<RunValue> st;
    auto slice0 = [&](const TensorValue& t) {
      if (ctx.opset() >= 9) return t;
      Dims d(t.dims().begin() + 1, t.dims().end());
      TensorValue out = TensorValue::allocate(t.dtype(), d);
      copyElements(out, 0, t, b * out.count(), out.count());
      return out;
    };
    for (size_t i = 0; i < carried; ++i) st.push_back(slice0(std::get<TensorValue>(state[i])));
    for (int64_t i = 0; i < scanInputs; ++i) inputs.push_back(slice0(ctx.input(first + carried + size_t(i))));
    int64_t iterations = -1;
    for (int64_t i = 0; i < scanInputs; ++i) {
      auto axis = normalizeAxis(inAxes[size_t(i)], inputs[size_t(i)].rank());
      if (!axis) return ctx.error("scan input axis out of range", int(first + carried + size_t(i)));
      inAxes[size_t(i)] = *axis;
      int64_t n = inputs[size_t(i)].dim(*axis);
      if (iterations >= 0 && n != iterations) return ctx.error("scan inputs differ in length");
      iterations = n;
    }
    std::vector<std::vector<TensorValue>> collected(scanOutputs);
    for (int64_t it = 0; it < iterations; ++it) {
      std::vector<RunValue> args = st;
      for (int64_t i = 0; i < scanInputs; ++i) {
        const TensorValue& t = inputs[size_t(i)];
        int64_t axis = inAxes[size_t(i)];
        int64_t idx = inDirs[size_t(i)] ? iterations - 1 - it : it;
        Dims d = t.dims();
        d.erase(d.begin() + axis);
        TensorValue s = TensorValue::allocate(t.dtype(), d);
        const AxisSplit split = axisSplit(t.dims(), axis);
        const int64_t outer = split.outer, inner = split.inner;
        for (int64_t o = 0; o < outer; ++o) copyElements(s, o * inner, t, (o * iterations + idx) * inner, inner);
        args.push_back(std::move(s));
      }
      auto outs = ctx.runSubgraph(*body, std::move(args));
      if (!outs) return outs.error();
      // The body's outputs are the carried states then the scan outputs, all tensors (fuzz_run: a body
      // with fewer outputs was read past its end under ASan).
      if (outs->size() != carried + scanOutputs)
        return ctx.error("the body gives " + std::to_string(outs->size()) + " outputs; Scan needs " +
                         std::to_string(carried + scanOutputs) + " (the carried states, then the scan outputs)");
      for (size_t i = carried; i < outs->size(); ++i)
        if (!std::holds_alternative<TensorValue>((*outs)[i]))
          return ctx.error("the body's output " + std::to_string(i) + " is not a tensor");
      for (size_t i = 0; i < carried; ++i) st[i] = (*outs)[i];
      for (size_t i = 0; i < scanOutputs; ++i)
        collected[i].push_back(std::get<TensorValue>((*outs)[carried + i]).clone());
    }
    for (size_t i = 0; i < carried; ++i) finalState[i].push_back(std::get<TensorValue>(st[i]));
    for (size_t i = 0; i < scanOutputs; ++i) {
      if (outDirs[i]) std::reverse(collected[i].begin(), collected[i].end());
      auto stacked = stack(ctx, collected[i], ctx.opset() < 9 ? 0 : outAxes[i]);
      if (!stacked) return stacked.error();
      outputsPerBatch[i].push_back(std::move(*stacked));
    }
  }
  for (size_t i = 0; i < carried; ++i) {
    if (ctx.opset() < 9) {
      auto s = stack(ctx, finalState[i], 0);
      if (!s) return s.error();
      ctx.setOutput(i, std::move(*s));
    } else {
      ctx.setOutput(i, finalState[i][0]);
    }
  }
  for (size_t i = 0; i < scanOutputs; ++i) {
    if (ctx.opset() < 9) {
      auto s = stack(ctx, outputsPerBatch[i], 0);
      if (!s) return s.error();
      ctx.setOutput(carried + i, std::move(*s));
    } else {
      ctx.setOutput(carried + i, outputsPerBatch[i][0]);
    }
  }
  return {};
}

}  // namespace

void registerControlCpuKernels(KernelRegistry& r) {
  r.add(kernel("If", ifKernel, 1));
  r.add(kernel("Loop", loopKernel, 1));
  r.add(kernel("Scan", scanKernel, 8));
}

}  // namespace onyx::exec
