// BitCast: reinterprets each element's bytes as another type of the same width (no value conversion).
#include <cstring>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

bool bitCastable(DataType dtype) {
  return dtype != DataType::String && dtype != DataType::Undefined && elementBytes(dtype) > 0 &&
         dataTypeBits(dtype) >= 8;
}

Expected<void> bitCastKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  DataType to = static_cast<DataType>(ctx.attrInt("to", 0));
  DataType from = (*x)->dtype();
  if (!bitCastable(from)) return ctx.unsupportedType(0);
  if (!bitCastable(to))
    return ctx.error("cannot bit-cast to " + std::string(dataTypeName(to)) + "; pick a numeric type");
  if (elementBytes(from) != elementBytes(to))
    return ctx.error("cannot bit-cast " + std::string(dataTypeName(from)) + " to " +
                         std::string(dataTypeName(to)) + ": the element sizes differ",
                     0);
  auto y = ctx.allocateOutput(0, to, (*x)->dims());
  if (!y) return y.error();
  if ((*x)->byteSize()) std::memcpy((*y)->raw(), (*x)->raw(), (*x)->byteSize());
  if (to == DataType::Bool) {  // a byte other than 0 or 1 is no value a bool may hold: nonzero is true
    auto* bytes = (*y)->data<uint8_t>();
    for (int64_t i = 0; i < (*y)->count(); ++i) bytes[i] = bytes[i] != 0;
  }
  return {};
}

}  // namespace

void registerBitCastCpuKernels(KernelRegistry& registry) {
  registry.add(kernel("BitCast", bitCastKernel, 26));
}

}  // namespace onyx::exec
