#pragma once
// A 2-D Conv in a shared-cores run (ThreadPool::sharesCores) as row slabs: the output rows are cut into
// slabs, each a oneDNN convolution of its own on one thread (its input rows, with the padding only the first
// and last slab have), run as the pool's tasks. oneDNN splits a primitive statically between the threads of
// an OpenMP team and waits for all of them; slabs let the caller take over the rows of a helper whose core
// another program holds. Batch 1, float, channels-last input (a plain one is copied to channels-last first)
// and the output as it lies in memory, no blocked layouts: so no Winograd, and a Conv that Winograd serves
// stays whole (one thread: resnet18 ran 1.18x slower with its 3x3 convs as direct slabs). It serves runs
// that would otherwise have one thread.
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "exec/cpu/dnnl_common.h"
#include "exec/kernel.h"

namespace onyx::exec {

// One element-wise op of a Conv epilogue as a oneDNN post-op: an eltwise algorithm, or the sum of a
// residual operand (KernelContext::epilogueOperand `residual`).
struct ConvPostOp {
  dnnl::algorithm algorithm = dnnl::algorithm::undef;  // undef: the residual sum
  float alpha = 0, beta = 0;
  int residual = -1;
};

// conv_dnnl_cpu.cpp: whether the whole-tensor Conv takes Winograd (dilations as oneDNN counts them, 0 dense).
bool convWinogradPays(int64_t inChannels, int64_t outChannels, const std::vector<int64_t>& kernel,
                      const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                      const Dims& outDims);

class ConvSlabs {
 public:
  ConvSlabs();
  ~ConvSlabs();
  void clear();  // forgets the plans (a new epilogue)
  // Runs the Conv over `parts` (its data input, or the parts of a Concat the executor folded into it, which
  // join along channels) as slabs on the pool's tasks and writes output 0; false, having written nothing,
  // where it does not fit that form or would not split. `implementation` gets oneDNN's name for it. The
  // weights must be constant (`constantWeights`): they are packed once per plan.
  Expected<bool> run(KernelContext& ctx, const std::vector<const TensorValue*>& parts, const TensorValue& w,
                     bool constantWeights, const std::vector<ConvPostOp>& postOps, bool fused,
                     std::string& implementation);

  // Slabs for a Conv of `flops` over `rows` output rows on `threads` threads: one per kFlopsPerSlab, at most
  // eight per thread and one per row (fewer than 2: the Conv stays whole). About 10-20 us
  // of one core's work: each slab costs a few microseconds of descriptors and a primitive call
  // (shufflenet_v2's small convs ran 1.08x slower at half this).
  static int64_t slabCount(int64_t flops, int64_t rows, int threads);
  static constexpr int64_t kFlopsPerSlab = int64_t(2) << 20;

 private:
  struct Plan;
  struct Key {
    std::vector<std::pair<Dims, bool>> parts;  // dims and channels-last, per part
    bool fused = false;
    bool dstChannelsLast = false;
    bool operator<(const Key& o) const {
      return std::tie(parts, fused, dstChannelsLast) < std::tie(o.parts, o.fused, o.dstChannelsLast);
    }
  };
  // Null where this shape does not fit (the whole-tensor path reports what is wrong with it).
  std::unique_ptr<Plan> makePlan(KernelContext& ctx, const std::vector<const TensorValue*>& parts,
                                 const TensorValue& w, const std::vector<ConvPostOp>& postOps, bool fused,
                                 bool dstChannelsLast);

  std::map<Key, std::unique_ptr<Plan>> plans_;  // a null plan: this shape does not fit
};

}  // namespace onyx::exec
