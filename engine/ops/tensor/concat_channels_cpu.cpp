// Concat along channels (axis 1) of float32 tensors in either storage order: SqueezeNet's fire modules and
// Inception blocks join Conv outputs this way, so reading and writing channels-last keeps the Convs on both
// sides in oneDNN's layout. Other axes, types and plain-only cases go to the reference kernel.
#include <cstring>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

class ConcatChannels final : public Kernel {
 public:
  Expected<void> run(KernelContext& ctx) override {
    bool anyLast = false, floats = ctx.inputCount() > 0;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
      if (!ctx.hasInput(i)) return runReferenceKernel(ctx);
      const TensorValue& t = ctx.input(i);
      if (t.rank() < 2) return runReferenceKernel(ctx);  // its error: dims 0 and 1 are read below
      anyLast = anyLast || t.channelsLast();
      floats = floats && t.dtype() == DataType::Float;
    }
    // Channels-last tensors exist only for float32 of rank 3 to 5.
    if (!anyLast || !floats) return runReferenceKernel(ctx);
    const TensorValue& first = ctx.input(0);
    const int64_t n = first.dim(0), spatial = first.count() / std::max<int64_t>(n * first.dim(1), 1);
    int64_t channels = 0;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
      const TensorValue& t = ctx.input(i);
      bool same = t.rank() == first.rank() && t.dim(0) == n;
      for (int64_t d = 2; same && d < t.rank(); ++d) same = t.dim(d) == first.dim(d);
      if (!same)
        return ctx.error("cannot concatenate " + t.describe() + " with " + first.describe() + " along axis 1",
                         int(i));
      channels += t.dim(1);
    }
    Dims outDims = first.dims();
    outDims[1] = channels;
    auto y = ctx.allocateOutput(0, DataType::Float, outDims);
    if (!y) return y.error();
    const bool lastOut = ctx.outputMayBeChannelsLast();
    (*y)->setChannelsLast(lastOut);
    float* out = (*y)->data<float>();
    if (!lastOut) {  // each input as plain storage (a tiled transpose when channels-last), then blocks
      int64_t offset = 0;
      for (size_t i = 0; i < ctx.inputCount(); ++i) {
        TensorValue plain = ctx.input(i).toPlainLayout();
        const int64_t block = plain.dim(1) * spatial;
        for (int64_t batch = 0; batch < n; ++batch)
          std::memcpy(out + (batch * channels + offset) * spatial, plain.data<float>() + batch * block,
                      size_t(block) * sizeof(float));
        offset += plain.dim(1);
      }
      return {};
    }
    ctx.parallelFor(n * spatial, std::max<int64_t>(1, 16384 / std::max<int64_t>(channels, 1)),
                    [&](int64_t b, int64_t e) {
                      int64_t offset = 0;
                      for (size_t i = 0; i < ctx.inputCount(); ++i) {
                        const TensorValue& t = ctx.input(i);
                        copyPixels(t, b, e, spatial, channels, offset, out);
                        offset += t.dim(1);
                      }
                    });
    return {};
  }
  bool acceptsChannelsLast(size_t input) const override { return input != kEpilogueOperands; }
  bool producesChannelsLast() const override { return true; }
  bool readsChannelsLastOnlyToKeepIt() const override { return true; }

 private:
  // Pixels [b, e) (batch-major: n * spatial + s) of one input into its channel range of the
  // channels-last output.
  static void copyPixels(const TensorValue& t, int64_t b, int64_t e, int64_t spatial, int64_t channels,
                         int64_t offset, float* out) {
    const float* in = t.data<float>();
    const int64_t c = t.dim(1);
    for (int64_t p = b; p < e; ++p) {
      if (t.channelsLast()) {
        std::memcpy(out + p * channels + offset, in + p * c, size_t(c) * sizeof(float));
      } else {
        const int64_t batch = p / spatial, s = p % spatial;
        for (int64_t k = 0; k < c; ++k) out[p * channels + offset + k] = in[(batch * c + k) * spatial + s];
      }
    }
  }
};

// Only nodes joining along axis 1 take channels-last inputs; the rank is known at run time.
bool joinsChannels(const Node& node, int) { return node.attrInt("axis", 0) == 1; }

}  // namespace

void registerConcatChannelsCpuKernels(KernelRegistry& r) {
  KernelDef def = kernelFactory("Concat", [](const PrepareContext&) -> Expected<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<ConcatChannels>());
  });
  def.variant = "channels";
  def.priority = 10;
  def.supports = joinsChannels;
  r.add(std::move(def));
}

}  // namespace onyx::exec
