#pragma once
// A 2-D Conv in a shared-cores run (ThreadPool::sharesCores) as slabs, each a oneDNN convolution of its own on
// one thread, run as the pool's tasks. oneDNN splits a primitive statically between the threads of an OpenMP
// team and waits for all of them; slabs let the caller take over the work of a helper whose core another
// program holds. Row slabs cut the output rows, each reading its input rows (with the padding only the first
// and last slab have); where the weights outweigh the input, channel slabs cut the output channels, each over
// all rows. A slab writes its rows of a channels-last output where they lie; otherwise (channel slabs, plain
// output) it writes a dense channels-last buffer of its thread, copied into place.
// Batch 1, float, channels-last input (a plain one is copied to channels-last first), no blocked layouts: so
// no Winograd. A Conv that Winograd serves is WinogradSlabs' or stays whole (one thread: resnet18 ran 1.18x
// slower with its 3x3 convs as direct slabs). It serves runs that would otherwise have one thread.
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "exec/cpu/dnnl_common.h"
#include "exec/cpu/slabs.h"
#include "exec/kernel.h"

namespace onyx::exec {

// One element-wise op of a Conv epilogue as a oneDNN post-op: an eltwise algorithm, or the sum of a
// residual operand (KernelContext::epilogueOperand `residual`).
struct ConvPostOp {
  dnnl::algorithm algorithm = dnnl::algorithm::undef;  // undef: the residual sum
  float alpha = 0, beta = 0;
  int residual = -1;
};
// Appends them to `post` in order: a sum for each residual (its destination holds the residual), an eltwise
// for the others.
void appendConvPostOps(dnnl::post_ops& post, const std::vector<ConvPostOp>& ops);

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
  // join along channels) as slabs on the pool's tasks and writes output 0, which it returns; null, having
  // written nothing, where it does not fit that form or would not split. `implementation` gets oneDNN's name
  // for it. The weights must be constant (`constantWeights`): they are packed once per plan.
  Expected<TensorValue*> run(KernelContext& ctx, const std::vector<const TensorValue*>& parts,
                             const TensorValue& w, bool constantWeights,
                             const std::vector<ConvPostOp>& postOps, bool fused, std::string& implementation);

  // Whether to cut the output channels rather than the rows, given the slabs of each (fewer than 2: that cut is
  // not possible): each row slab reads all the weights (from the core's cache where they fit in
  // `cachedElements`) and its rows of the input, each channel slab all the input and its filters. Channels
  // where that reads fewer elements: resnet18's layer4 convs (7 x 7 maps, 2.4M weights) read their weights
  // once per output row. Where the weights fit, rows: 1 x 1 convs of 1.6 MB ran 1.1x slower as channels.
  static bool chooseChannelSlabs(int64_t weightElements, int64_t inputElements, int64_t rowSlabs,
                                 int64_t channelSlabs, int64_t cachedElements);
  // Tests: the floats of weights a core's cache holds for chooseChannelSlabs (-1: the machine's L2).
  static void setCachedElementsForTests(int64_t elements);

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

// A Conv that oneDNN's Winograd serves (convWinogradPays), in a shared-cores run, as channel slabs: each slab a
// Winograd convolution of some output channels (whole blocks of 16) over the whole input, on one thread, run
// as the pool's tasks, where the whole Conv would run on one thread (ConvSlabs leaves it whole: its direct
// row slabs multiply 2.25x more). Each slab transforms the whole input again, about the work of the products
// of one or two of its output channels: so slabs of 64 channels at least. Reads the input in
// blocks of 16 channels (another layout is reordered into a buffer first) and writes the output's blocks of
// 16 where they lie, or through a buffer of its thread into channels-last or plain storage.
class WinogradSlabs {
 public:
  WinogradSlabs();
  ~WinogradSlabs();
  void clear();  // forgets the plans (a new epilogue)
  // Runs the Conv of x as slabs and writes output 0, which it returns; null, having written nothing, where it
  // does not fit (batch 1, float, 4-D, constant weights, a Winograd primitive for each slab) or would not
  // split.
  Expected<TensorValue*> run(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                             bool constantWeights, const std::vector<ConvPostOp>& postOps, bool fused,
                             std::string& implementation);
  // Slabs for `blocks` blocks of 16 output channels on `threads` threads: four blocks each at least, four slabs
  // per thread at most (fewer than 2: the Conv stays whole).
  static int64_t slabCount(int64_t blocks, int threads);

 private:
  struct Plan;
  enum class Layout { kPlain, kChannelsLast, kBlocks16 };
  static Layout layoutOf(const TensorValue& t);
  struct Key {
    Dims dims;
    Layout src = Layout::kPlain, dst = Layout::kPlain, residual = Layout::kPlain;
    bool fused = false;
    bool operator<(const Key& o) const {
      return std::tie(dims, src, dst, residual, fused) < std::tie(o.dims, o.src, o.dst, o.residual, o.fused);
    }
  };
  // Null where this Conv does not fit.
  std::unique_ptr<Plan> makePlan(KernelContext& ctx, const TensorValue& x, const TensorValue& w,
                                 const std::vector<ConvPostOp>& postOps, bool fused);

  std::map<Key, std::unique_ptr<Plan>> plans_;  // a null plan: this shape does not fit
};

}  // namespace onyx::exec
