// com.microsoft GatherBlockQuantized: Gather from a block-quantized table (4-bit LLM embeddings), then
// dequantize (q - zero_point) * scale with the block of the element along quantize_axis. uint8 data packs
// 8 / bits values per byte along the last dim (low bits first; gather_axis 0), int4/uint4 data arrives one
// value per byte. Zero points default to 2^(bits - 1) for uint8 and 0 for int4/uint4; an index out of range
// gives a slice of zeros, a negative one counts from the end.
#include "ops/contrib/contrib_kernels.h"

namespace onyx::exec::contrib {
namespace {

struct QuantTable {
  const TensorValue* data = nullptr;
  Dims dims;  // logical (unpacked) dims
  int64_t bits = 8;
  bool packed = false;  // uint8 holding 8 / bits values per byte along the last dim
  // Element at logical row-major offset i of a table with logical dims `dims` stored like `data`.
  int64_t at(const TensorValue& t, const Dims& logical, int64_t i) const {
    if (!packed) {
      if (t.dtype() == DataType::Int4) return static_cast<const int8_t*>(t.raw())[i];  // unpacked, sign-extended
      return static_cast<const uint8_t*>(t.raw())[i];
    }
    const int64_t last = logical.back(), row = i / last, col = i % last, perByte = 8 / bits;
    const int64_t rowBytes = (last + perByte - 1) / perByte;
    const uint8_t byte = t.data<uint8_t>()[row * rowBytes + col / perByte];
    return (byte >> ((col % perByte) * bits)) & ((1 << bits) - 1);
  }
};

Expected<void> runGatherBlockQuantized(KernelContext& ctx) {
  auto inputs = requireTensors<3>(ctx);
  if (!inputs) return inputs.error();
  const auto& [data, indices, scales] = *inputs;
  QuantTable table;
  table.data = &data;
  table.dims = data.dims();
  const bool isUint8 = data.dtype() == DataType::Uint8;
  if (!isUint8 && data.dtype() != DataType::Int4 && data.dtype() != DataType::Uint4) return ctx.unsupportedType(0);
  if (!isFloatStorage(scales.dtype())) return ctx.unsupportedType(2);
  if (data.rank() < 1) return ctx.error("data must have at least one dimension", 0);
  table.bits = isUint8 ? ctx.attrInt("bits", 4) : 4;
  if (table.bits != 2 && table.bits != 4 && table.bits != 8) return ctx.error("bits must be 2, 4 or 8");
  table.packed = isUint8 && table.bits < 8;
  if (table.packed) table.dims.back() *= 8 / table.bits;
  const int64_t rank = data.rank();
  auto gatherAxis = normalizeAxis(ctx.attrInt("gather_axis", 0), rank);
  auto quantAxis = normalizeAxis(ctx.attrInt("quantize_axis", rank - 1), rank);
  const int64_t block = ctx.attrInt("block_size", 128);
  if (!gatherAxis || !quantAxis) return ctx.error("gather_axis or quantize_axis is out of range for " + data.describe());
  if (isUint8 && *gatherAxis != 0) return ctx.error("uint8 data gathers on axis 0 only");
  if (block < 16 || (block & (block - 1))) return ctx.error("block_size must be a power of two of at least 16");
  Dims scaleDims = table.dims;
  scaleDims[size_t(*quantAxis)] = (scaleDims[size_t(*quantAxis)] + block - 1) / block;
  if (scales.dims() != scaleDims) return ctx.error("scales " + scales.describe() + " must have dims " + describeTensor(scales.dtype(), scaleDims), 2);
  const TensorValue& zeros = ctx.input(3);
  if (!zeros.empty() && zeros.dtype() != data.dtype()) return ctx.error("zero_points must have data's type", 3);
  // One zero point per scale, packed like the data (fuzz audit: an empty zero_points was read at byte 0).
  Dims zeroDims = scaleDims;
  if (table.packed) zeroDims.back() = (zeroDims.back() * table.bits + 7) / 8;
  if (!zeros.empty() && zeros.dims() != zeroDims)
    return ctx.error("zero_points " + zeros.describe() + " must have dims " + describeTensor(zeros.dtype(), zeroDims), 3);
  const int64_t defaultZero = isUint8 ? (1 << (table.bits - 1)) : 0;

  Dims outDims(table.dims.begin(), table.dims.begin() + *gatherAxis);
  outDims.insert(outDims.end(), indices.dims().begin(), indices.dims().end());
  outDims.insert(outDims.end(), table.dims.begin() + *gatherAxis + 1, table.dims.end());
  auto y = ctx.allocateOutput(0, scales.dtype(), outDims);
  if (!y) return y.error();
  const std::vector<int64_t> idx = indices.toInts();
  const std::vector<float> scaleValues = floatsOf(scales);
  const std::vector<int64_t> dataStrides = rowMajorStrides(table.dims), scaleStrides = rowMajorStrides(scaleDims);
  const int64_t outer = elementCount(Dims(table.dims.begin(), table.dims.begin() + *gatherAxis));
  const int64_t axisSize = table.dims[size_t(*gatherAxis)], inner = dataStrides[size_t(*gatherAxis)];
  std::vector<float> out(size_t(elementCount(outDims)), 0.0f);
  int64_t o = 0;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t index : idx) {
      const int64_t row = index < 0 ? index + axisSize : index;
      if (row < 0 || row >= axisSize) {
        o += inner;
        continue;
      }
      for (int64_t i = 0; i < inner; ++i, ++o) {
        const int64_t flat = (a * axisSize + row) * inner + i;
        int64_t scaleAt = 0, rest = flat;
        for (size_t d = 0; d < table.dims.size(); ++d) {
          int64_t coordinate = rest / dataStrides[d];
          rest %= dataStrides[d];
          if (int64_t(d) == *quantAxis) coordinate /= block;
          scaleAt += coordinate * scaleStrides[d];
        }
        const int64_t zero = zeros.empty() ? defaultZero : table.at(zeros, scaleDims, scaleAt);
        out[size_t(o)] = float(table.at(data, table.dims, flat) - zero) * scaleValues[size_t(scaleAt)];
      }
    }
  fromFloats(scales.dtype(), out.data(), (*y)->raw(), int64_t(out.size()));
  return {};
}

}  // namespace

void registerGatherBlockQuantizedCpuKernels(KernelRegistry& registry) {
  registry.add(microsoftKernel("GatherBlockQuantized", runGatherBlockQuantized));
}

}  // namespace onyx::exec::contrib
