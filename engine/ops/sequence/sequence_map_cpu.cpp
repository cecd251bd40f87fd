// SequenceMap: runs the body once per element of the input sequence. Each additional input is either a
// sequence of the same length (its i-th element is passed) or a tensor (passed every time); the body's
// outputs are gathered into output sequences.
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<void> sequenceMapKernel(KernelContext& ctx) {
  const Graph* body = ctx.attrGraph("body");
  if (!body) return ctx.error("has no body graph");
  const auto* sequence = std::get_if<SequenceValue>(&ctx.inputValue(0));
  if (!sequence) return ctx.error("must be a sequence", 0);
  size_t length = sequence->tensors.size();
  for (size_t k = 1; k < ctx.inputCount(); ++k) {
    const RunValue& extra = ctx.inputValue(k);
    if (const auto* seq = std::get_if<SequenceValue>(&extra); seq && seq->tensors.size() != length)
      return ctx.error("has " + std::to_string(seq->tensors.size()) + " elements but input_sequence has " +
                           std::to_string(length),
                       int(k));
    if (!std::holds_alternative<SequenceValue>(extra) && !isTensor(extra))
      return ctx.error("must be a sequence or a tensor", int(k));
  }
  std::vector<SequenceValue> results(ctx.outputCount());
  std::vector<Value*> bodyOutputs = body->outputs();
  for (size_t o = 0; o < results.size() && o < bodyOutputs.size(); ++o)
    results[o].elemType = bodyOutputs[o]->type().elemType();
  for (size_t i = 0; i < length; ++i) {
    std::vector<RunValue> args{sequence->tensors[i]};
    for (size_t k = 1; k < ctx.inputCount(); ++k) {
      const RunValue& extra = ctx.inputValue(k);
      if (const auto* seq = std::get_if<SequenceValue>(&extra))
        args.emplace_back(seq->tensors[i]);
      else
        args.push_back(extra);
    }
    auto outs = ctx.runSubgraph(*body, std::move(args));
    if (!outs) return outs.error();
    if (outs->size() != results.size())
      return ctx.error("body returned " + std::to_string(outs->size()) + " values for " +
                       std::to_string(results.size()) + " outputs");
    for (size_t o = 0; o < results.size(); ++o) {
      const auto* tensor = std::get_if<TensorValue>(&(*outs)[o]);
      if (!tensor) return ctx.error("body output " + std::to_string(o) + " must be a tensor");
      results[o].elemType = tensor->dtype();
      results[o].tensors.push_back(*tensor);
    }
  }
  for (size_t o = 0; o < results.size(); ++o) ctx.setOutput(o, std::move(results[o]));
  return {};
}

}  // namespace

void registerSequenceMapCpuKernels(KernelRegistry& r) {
  r.add(kernel("SequenceMap", sequenceMapKernel, 17));
}

}  // namespace onyx::exec
