#pragma once
// What the com.microsoft CPU kernels share: float32 arithmetic on tensors stored as float32, float16 or
// bfloat16 (a row or a weight panel is widened when it is used, never a whole weight set at load), the
// product of activations with weights decoded panel by panel, and the kernel definition in the domain.
#include <functional>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec::contrib {

inline constexpr const char* kMicrosoftDomain = "com.microsoft";

// float, float16 or bfloat16: the storage types these kernels compute on in float32.
bool isFloatStorage(DataType dtype);
// n elements of float storage to float32 and back (float16 through F16C where the CPU has it). Any other
// dtype is never reinterpreted: toFloats gives NaN without reading, fromFloats writes nothing. Callers check
// that their inputs and outputs are float storage first.
void toFloats(DataType dtype, const void* src, float* dst, int64_t n);
void fromFloats(DataType dtype, const float* src, void* dst, int64_t n);
// A small tensor (a scale, a bias, a gamma) widened to float32; empty for an absent input. Any numeric
// dtype converts by value (TensorValue::doubleAt), never by reinterpreting its bytes.
std::vector<float> floatsOf(const TensorValue& t);
// A tensor's elements as float32: a pointer into the tensor when it is float32, else widened into `scratch`
// (as floatsOf does).
const float* floatData(const TensorValue& t, std::vector<float>& scratch);
// A float buffer of the calling thread kept between a kernel's runs through a thread_local vector: a new
// one each run cost a page fault per 4 KiB. Past kLimit the vector is given back when the lease ends, so one
// large product does not stay resident. Lambdas run on the pool's threads must use the data pointer: a
// thread_local named inside them is that thread's own.
class KeptFloats {
 public:
  static constexpr size_t kLimit = size_t(1) << 20;  // floats (4 MiB): bert's largest is 0.5 MiB
  explicit KeptFloats(std::vector<float>& storage) : storage_(storage) {}
  ~KeptFloats() {
    if (storage_.capacity() > kLimit) std::vector<float>().swap(storage_);
  }
  KeptFloats(const KeptFloats&) = delete;
  KeptFloats& operator=(const KeptFloats&) = delete;
  std::vector<float>& vector() { return storage_; }
  float* resize(size_t n) {
    storage_.resize(n);
    return storage_.data();
  }

 private:
  std::vector<float>& storage_;
};

// The same with large tensors widened on the context's threads (a float16 model's activations: 128 x 1024
// halves took one thread 25 us). Callers that keep `scratch` between runs save its page faults too.
const float* floatData(const KernelContext& ctx, const TensorValue& t, std::vector<float>& scratch);

// The right-hand side of a product Y[m, n] = A[m, k] * W[k, n] whose W is produced on demand, a panel of
// columns [n0, n1) at a time: quantized (MatMulNBits) or 16-bit (float16 weights) storage stays as it is.
struct WeightPanels {
  int64_t k = 0, n = 0;
  // true: decode writes the panel as (n1 - n0) rows of k floats (W transposed, MatMulNBits' layout);
  // false: as k rows of (n1 - n0) floats.
  bool columnMajor = false;
  std::function<void(int64_t n0, int64_t n1, float* dst)> decode;
};
// Y = A * W (+ bias[n] when not null), A row-major with leading dimension lda, Y with ldy. Panels are
// spread over the context's threads; each thread decodes into its own scratch and multiplies serially.
void gemmPanels(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const WeightPanels& w,
                const float* bias, float* y, int64_t ldy);
// The same for W given as a float, float16 or bfloat16 tensor [k, n] (row-major, or [n, k] when
// transposed): float32 goes straight to sgemm, float16 [k, n] to the panel micro-kernel (halfWeightsGemm,
// nbits_gemm.h), other 16-bit storage is widened one panel at a time for sgemm.
void gemmWeights(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const TensorValue& w,
                 bool transposed, const float* bias, float* y, int64_t ldy);
// Receives each finished panel of Y, columns [n0, n1) of all m rows (row r at panel + r * (n1 - n0)), to
// finish and store while it is in the core's cache: a bias, C, the conversion to 16 bits. Called on the
// pool's threads, one panel at a time per thread; the panel is that thread's scratch.
using PanelSink = std::function<void(int64_t n0, int64_t n1, float* panel)>;
void gemmPanelsTo(const KernelContext& ctx, const float* a, int64_t m, int64_t lda, const WeightPanels& w,
                  const PanelSink& sink);
// W as a float16 or bfloat16 tensor [k, n] (or [n, k] when transposed), widened one panel at a time.
WeightPanels sixteenBitPanels(const TensorValue& w, bool transposed);

// Rotary position embedding of one head vector in place: its first 2 * half channels rotated by the angles
// whose cos/sin (half values each) are given; pairs (i, i + half), or (2i, 2i + 1) when interleaved.
void rotateHead(float* x, int64_t half, const float* cos, const float* sin, bool interleaved);

// A kernel of the com.microsoft domain; its FLOPs are contribFlops' (contrib_flops.h) on the run's input dims.
KernelDef microsoftKernel(std::string opType, KernelFunction function);
int64_t contribKernelFlops(const KernelContext& ctx);

}  // namespace onyx::exec::contrib
