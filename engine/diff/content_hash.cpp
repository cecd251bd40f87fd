#include "diff/content_hash.h"

#include <cstring>
#include <variant>

#include "ir/graph.h"

namespace onyx::diff {

void Hasher::mix(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    state_ ^= bytes[i];
    state_ *= 1099511628211ull;
  }
}

Hasher& Hasher::add(std::span<const std::byte> bytes) {
  uint64_t size = bytes.size();
  mix(&size, sizeof size);
  mix(bytes.data(), bytes.size());
  return *this;
}

Hasher& Hasher::add(std::string_view text) {
  return add(std::as_bytes(std::span(text.data(), text.size())));
}

Hasher& Hasher::add(uint64_t number) {
  mix(&number, sizeof number);
  return *this;
}

uint64_t tensorContentHash(const Tensor& tensor) {
  Hasher hasher;
  hasher.add(uint64_t(tensor.dtype())).add(uint64_t(tensor.dims().size()));
  for (int64_t dim : tensor.dims()) hasher.add(uint64_t(dim));
  if (tensor.dtype() == DataType::String) {
    for (const std::string& text : tensor.stringValues()) hasher.add(text);
    return hasher.result();
  }
  auto bytes = tensor.bytes();
  if (bytes) {
    hasher.add(*bytes);
  } else {
    // Unreadable external data: two such tensors are the same only if they point at the same bytes.
    const ExternalData* external = tensor.externalData();
    hasher.add("unreadable").add(external ? external->location : std::string());
    if (external) hasher.add(uint64_t(external->offset)).add(uint64_t(external->length));
  }
  return hasher.result();
}

namespace {

struct PayloadHasher {
  Hasher& hasher;
  void operator()(std::monostate) const {}
  void operator()(float v) const {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    hasher.add(uint64_t(bits));
  }
  void operator()(int64_t v) const { hasher.add(uint64_t(v)); }
  void operator()(const std::string& v) const { hasher.add(v); }
  void operator()(const Tensor& v) const { hasher.add(tensorContentHash(v)); }
  void operator()(const Attribute::GraphPtr&) const {}
  void operator()(const SparseTensor& v) const {
    hasher.add(tensorContentHash(v.values)).add(tensorContentHash(v.indices));
    for (int64_t dim : v.dims) hasher.add(uint64_t(dim));
  }
  void operator()(const Type& v) const { hasher.add(v.toString()); }
  template <class T>
  void operator()(const std::vector<T>& list) const {
    hasher.add(uint64_t(list.size()));
    for (const T& item : list) (*this)(item);
  }
};

}  // namespace

uint64_t attributeValueHash(const Attribute& attribute) {
  Hasher hasher;
  hasher.add(uint64_t(attribute.kind())).add(attribute.refAttrName());
  std::visit(PayloadHasher{hasher}, attribute.payload());
  return hasher.result();
}

std::string hashToHex(uint64_t hash) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) text[size_t(i)] = digits[hash & 15];
  return text;
}

std::string tensorTypeText(const Tensor& tensor) {
  std::string text = std::string(dataTypeName(tensor.dtype())) + "[";
  for (size_t i = 0; i < tensor.dims().size(); ++i)
    text += (i ? ", " : "") + std::to_string(tensor.dims()[i]);
  return text + "]";
}

}  // namespace onyx::diff
