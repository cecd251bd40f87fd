#pragma once
// What the com.microsoft QLinear* kernels share: an 8-bit tensor's per-tensor scale and zero point, and
// requantization as ONNX Runtime's CPU kernels do it (x / scale rounded half to even, plus the zero point,
// saturated to the type's range).
#include <cstdint>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec::contrib {

// uint8 [0, 255] or int8 [-128, 127]: the QLinear ops' element types.
struct ByteType {
  DataType dtype = DataType::Uint8;
  int32_t lo = 0, hi = 255;
};
// The element type of input `input` as a ByteType, or the error naming the node.
Expected<ByteType> byteTypeOf(const KernelContext& ctx, size_t input);

struct Quantization {
  float scale = 1.0f;
  int32_t zero = 0;
  float dequantize(int32_t q) const { return float(q - zero) * scale; }
};
// The scale at `scaleInput` and zero point at `zeroInput` (absent: 0), both one value (per tensor); the zero
// point, when given, of the element type `type`.
Expected<Quantization> quantizationAt(const KernelContext& ctx, size_t scaleInput, size_t zeroInput, const ByteType& type);

// X, X_scale, X_zero_point, Y_scale, Y_zero_point: the inputs of the one-input QLinear ops (Sigmoid,
// LeakyRelu, Softmax, the pools, ReduceMean), read and checked once.
struct QuantizedUnary {
  const TensorValue* x = nullptr;
  ByteType type;
  Quantization qx, qy;
};
Expected<QuantizedUnary> quantizedUnaryInputs(const KernelContext& ctx);

// v as a value of `q` in `type`: nearbyint(v / scale) + zero, saturated.
int32_t quantize(float v, const Quantization& q, const ByteType& type);

// An 8-bit tensor's elements as int32, and int32 values already in range stored into an 8-bit tensor.
std::vector<int32_t> bytesOf(const TensorValue& t);
void storeBytes(const std::vector<int32_t>& values, TensorValue& out);

}  // namespace onyx::exec::contrib
