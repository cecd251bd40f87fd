#include "exec/tensor_value.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>

#include "exec/channels_last.h"
#include "ir/tensor.h"
#include "util/clamp_or_zero.h"
#include "util/limits.h"

// Under AddressSanitizer (packaging/sanitize.sh) the slack of tensor buffers is poisoned.
#if defined(__SANITIZE_ADDRESS__)
#define ONYX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONYX_ASAN 1
#endif
#endif
#if ONYX_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace onyx::exec {

int64_t elementCount(const Dims& dims) {
  // A zero dim makes the tensor empty whatever the others hold: a Tile of an empty tensor by huge repeats
  // gives [INT64_MAX (saturated), 2, 0], whose running product overflowed before reaching the 0 (fuzz_run,
  // UBSan). Products past int64 saturate.
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  int64_t n = 1;
  for (int64_t d : dims) {
    auto next = checkedMul(n, d);
    if (!next) return std::numeric_limits<int64_t>::max();
    n = *next;
  }
  return n;
}

std::string describeTensor(DataType dtype, const Dims& dims) {
  std::string text(dataTypeName(dtype));
  text += "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

size_t elementBytes(DataType dtype) {
  switch (dtype) {
    case DataType::String:
      return sizeof(std::string);
    case DataType::Bool:
      return 1;
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
      return 1;
    case DataType::Uint4:
    case DataType::Int4:
    case DataType::Float4E2M1:
    case DataType::Uint2:
    case DataType::Int2:
      return 1;  // unpacked: one byte per element at run time
    default:
      return size_t(dataTypeBits(dtype) / 8);
  }
}

namespace {

// 64-byte aligned, zero-filled heap block. Aligned by hand from malloc, not by aligned_alloc: glibc serves
// aligned_alloc(64, n) from a free chunk only if it holds n plus the alignment slack, but frees just the
// aligned n, so a block freed in the recording run (exec/plan_runner.cpp) never fits the next one of its
// size. bert_small_int4's first run grew the heap by 15 MB so, its 36 intermediates of 256-512 KB each
// landing in fresh memory; from malloc, a freed block takes the next request of its size.
std::shared_ptr<void> heapBlock(size_t bytes) {
  constexpr size_t kAlign = 64;
  const size_t rounded = std::max<size_t>((bytes + kAlign - 1) / kAlign * kAlign, kAlign);
  void* base = std::malloc(rounded + kAlign);
  if (!base) throw std::bad_alloc();
  void* p = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(base) + kAlign - 1) / kAlign * kAlign);
  std::memset(p, 0, rounded);
#if ONYX_ASAN
  // The rounding would hide a read just past the tensor from AddressSanitizer (kernels reading a short input
  // past its end went unseen by fuzz_run): the slack after the last element is poisoned.
  char* end = static_cast<char*>(p) + bytes;
  const size_t slack = size_t(static_cast<char*>(base) + rounded + kAlign - end);
  ASAN_POISON_MEMORY_REGION(end, slack);
  return std::shared_ptr<void>(p, [base, end, slack](void*) {
    ASAN_UNPOISON_MEMORY_REGION(end, slack);
    std::free(base);
  });
#else
  return std::shared_ptr<void>(p, [base](void*) { std::free(base); });
#endif
}

bool isSubByte(DataType dtype) {
  int bits = dataTypeBits(dtype);
  return bits > 0 && bits < 8;
}

}  // namespace

TensorValue TensorValue::allocate(DataType dtype, Dims dims) {
  TensorValue t;
  t.dtype_ = dtype;
  t.count_ = elementCount(dims);
  t.dims_ = std::move(dims);
  if (dtype == DataType::String) {
    auto strings = std::make_shared<std::vector<std::string>>(size_t(t.count_));
    t.data_ = strings->data();
    t.owner_ = std::move(strings);
  } else {
    auto block = heapBlock(t.byteSize());
    t.data_ = block.get();
    t.owner_ = std::move(block);
  }
  return t;
}

TensorValue TensorValue::view(DataType dtype, Dims dims, void* data, std::shared_ptr<const void> keepAlive) {
  TensorValue t;
  t.dtype_ = dtype;
  t.count_ = elementCount(dims);
  t.dims_ = std::move(dims);
  t.data_ = data;
  t.owner_ = std::move(keepAlive);
  return t;
}

TensorValue TensorValue::fromStrings(Dims dims, std::vector<std::string> values) {
  TensorValue t;
  t.dtype_ = DataType::String;
  t.count_ = elementCount(dims);
  t.dims_ = std::move(dims);
  values.resize(size_t(t.count_));
  auto strings = std::make_shared<std::vector<std::string>>(std::move(values));
  t.data_ = strings->data();
  t.owner_ = std::move(strings);
  return t;
}

TensorValue TensorValue::fromConstant(const onyx::Tensor& tensor) {
  DataType dtype = tensor.dtype();
  if (dtype == DataType::String) return fromStrings(tensor.dims(), tensor.stringValues());
  auto bytes = tensor.bytesOrEmpty();
  if (isSubByte(dtype)) {  // unpack to one element per byte, low nibble first as onnx stores them
    TensorValue t = allocate(dtype, tensor.dims());
    auto* out = t.data<uint8_t>();
    int bits = dataTypeBits(dtype);
    int perByte = 8 / bits;
    bool isSigned = dtype == DataType::Int4 || dtype == DataType::Int2;
    for (int64_t i = 0; i < t.count(); ++i) {
      size_t byte = size_t(i / perByte);
      uint8_t v = byte < bytes.size() ? uint8_t(bytes[byte]) : 0;
      uint8_t part = uint8_t((v >> ((i % perByte) * bits)) & ((1 << bits) - 1));
      if (isSigned && (part & (1 << (bits - 1)))) part = uint8_t(part | (0xff << bits));
      out[i] = part;
    }
    return t;
  }
  if (bytes.size() < size_t(elementCount(tensor.dims())) * elementBytes(dtype)) {
    return allocate(dtype, tensor.dims());  // malformed constant: zeros (the loader reports it)
  }
  // A bool byte other than 0 or 1 (a file can hold any) is not a value a C++ bool may hold: copy it as 0 or 1.
  if (dtype == DataType::Bool &&
      std::any_of(bytes.begin(), bytes.end(), [](std::byte b) { return uint8_t(b) > 1; })) {
    TensorValue t = allocate(dtype, tensor.dims());
    auto* out = t.data<uint8_t>();
    for (int64_t i = 0; i < t.count(); ++i) out[i] = uint8_t(bytes[size_t(i)]) != 0;
    return t;
  }
  // Weights are viewed in place wherever they are aligned to their element: the loader's buffers start at
  // malloc's 16 bytes, and copying float32 weights for a 64-byte start kept every float weight of a model
  // twice in memory (bert_small_int4's 8 MB embedding table) for vector loads that do not need it: the
  // element-wise kernels load unaligned, and MatMul, Gemm and Conv reorder constant weights into oneDNN's
  // own layout. Packed and 16-bit weights (MatMulNBits' int4 blocks, float16 sets) are decoded panel by
  // panel. A 4-bit model so stays about its file size.
  size_t alignment = size_t(elementBytes(dtype));
  if (reinterpret_cast<uintptr_t>(bytes.data()) % std::max<size_t>(alignment, 1) == 0 || bytes.empty()) {
    // Zero-copy: keep the tensor's buffer alive.
    auto owner = tensor.buffer();
    if (owner) {
      return view(dtype, tensor.dims(), const_cast<std::byte*>(bytes.data()), owner);
    }
  }
  TensorValue t = allocate(dtype, tensor.dims());
  if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), t.byteSize());
  return t;
}

int64_t TensorValue::intAt(int64_t i) const {
  switch (dtype_) {
    case DataType::Int64:
      return data<int64_t>()[i];
    case DataType::Int32:
      return data<int32_t>()[i];
    case DataType::Int16:
      return data<int16_t>()[i];
    case DataType::Int8:
      return data<int8_t>()[i];
    case DataType::Uint8:
      return data<uint8_t>()[i];
    case DataType::Uint16:
      return data<uint16_t>()[i];
    case DataType::Uint32:
      return data<uint32_t>()[i];
    case DataType::Uint64:
      return int64_t(data<uint64_t>()[i]);
    case DataType::Bool:
      return data<bool>()[i] ? 1 : 0;
    case DataType::Float:
    case DataType::Double:
    case DataType::Float16:
    case DataType::BFloat16:
      // NaN reads as 0 and values past int64 saturate: a plain conversion is undefined there (fuzz_run,
      // UBSan: a NaN float index through toInts). Callers range-check what they get.
      return saturateToInteger<int64_t>(doubleAt(i));
    default:
      return 0;  // strings and types without a numeric reading here (float8, int4 are unpacked raw)
  }
}

double TensorValue::doubleAt(int64_t i) const {
  switch (dtype_) {
    case DataType::Float:
      return data<float>()[i];
    case DataType::Double:
      return data<double>()[i];
    case DataType::Float16:
      return float(data<Half>()[i]);
    case DataType::BFloat16:
      return float(data<BFloat16>()[i]);
    default:
      return isInteger(dtype_) || dtype_ == DataType::Bool ? double(intAt(i)) : NAN;
  }
}

std::vector<int64_t> TensorValue::toInts() const {
  std::vector<int64_t> out(static_cast<size_t>(count_));
  for (int64_t i = 0; i < count_; ++i) out[size_t(i)] = intAt(i);
  return out;
}

TensorValue TensorValue::reshaped(Dims dims) const {
  TensorValue t = *this;
  t.layout_ = Layout::Plain;
  t.count_ = elementCount(dims);
  t.dims_ = std::move(dims);
  return t;
}

Dims TensorValue::channelsLastOrder(const Dims& dims) {
  if (dims.size() < 3) return dims;
  Dims out = {dims[0]};
  out.insert(out.end(), dims.begin() + 2, dims.end());
  out.push_back(dims[1]);
  return out;
}

namespace {
// A batch of (spatial x C) matrices transposed to (C x spatial), in tiles so both sides stay in cache.
template <class T>
void channelsLastToPlain(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial) {
  constexpr int64_t kTile = 32;
  for (int64_t b = 0; b < n; ++b) {
    const T* in = src + b * spatial * c;
    T* out = dst + b * spatial * c;
    for (int64_t s0 = 0; s0 < spatial; s0 += kTile)
      for (int64_t c0 = 0; c0 < c; c0 += kTile)
        for (int64_t ch = c0; ch < std::min(c, c0 + kTile); ++ch)
          for (int64_t s = s0; s < std::min(spatial, s0 + kTile); ++s) out[ch * spatial + s] = in[s * c + ch];
  }
}
// (N, C/16, spatial, 16) -> (N, C, spatial): each block a (spatial x 16) matrix transposed.
template <class T>
void blocked16ToPlain(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial) {
  constexpr int64_t kBlock = 16;
  for (int64_t b = 0; b < n * (c / kBlock); ++b) {
    const T* in = src + b * spatial * kBlock;
    T* out = dst + b * spatial * kBlock;
    for (int64_t s = 0; s < spatial; ++s)
      for (int64_t ch = 0; ch < kBlock; ++ch) out[ch * spatial + s] = in[s * kBlock + ch];
  }
}
}  // namespace

TensorValue TensorValue::toPlainLayout() const {
  if (layout_ == Layout::Plain) return *this;
  const int64_t n = dims_[0], c = dims_[1], spatial = count_ / std::max<int64_t>(n * c, 1);
  if (spatial == 1 || (c == 1 && layout_ == Layout::ChannelsLast)) {
    TensorValue same = *this;  // the same bytes in both orders
    same.layout_ = Layout::Plain;
    return same;
  }
  TensorValue out = allocate(dtype_, dims_);
  // The elements moved as unsigned integers of their size.
  auto reorder = [&](auto zero) {
    using T = decltype(zero);
    if (layout_ == Layout::Blocked16)
      blocked16ToPlain(data<T>(), out.data<T>(), n, c, spatial);
    else
      channelsLastToPlain(data<T>(), out.data<T>(), n, c, spatial);
  };
  switch (elementBytes(dtype_)) {
    case 1: reorder(uint8_t{}); break;
    case 2: reorder(uint16_t{}); break;
    case 4: reorder(uint32_t{}); break;
    default: reorder(uint64_t{}); break;
  }
  out.device_ = device_;
  return out;
}

void transposeBatches(const float* src, float* dst, int64_t batches, int64_t rows, int64_t cols) {
  channelsLastToPlain(src, dst, batches, cols, rows);
}

TensorValue TensorValue::clone() const {
  TensorValue t = allocate(dtype_, dims_);
  if (dtype_ == DataType::String) {
    for (int64_t i = 0; i < count_; ++i) t.data<std::string>()[i] = data<std::string>()[i];
  } else if (count_ > 0) {
    std::memcpy(t.raw(), raw(), byteSize());
  }
  t.device_ = device_;
  return t;
}

std::string describeValue(const RunValue& value) {
  if (auto* t = std::get_if<TensorValue>(&value)) return t->describe();
  if (auto* s = std::get_if<SequenceValue>(&value))
    return "seq(" + std::string(dataTypeName(s->elemType)) + ") of " + std::to_string(s->tensors.size());
  if (auto* o = std::get_if<EmptyOptional>(&value)) return "empty " + o->type.toString();
  return "absent";
}

}  // namespace onyx::exec
