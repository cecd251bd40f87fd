#pragma once
// Content hashes for the diff: a tensor's hash covers its element type, dims and bytes, so two initializers
// with the same hash hold the same constant; an attribute's hash covers its kind and value, so equal hashes
// mean equal attributes (bodies are compared node by node instead and contribute only their kind).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ir/attribute.h"
#include "ir/tensor.h"

namespace onyx::diff {

// 64-bit FNV-1a, fed piece by piece. Each piece is prefixed with its length so ("ab","c") != ("a","bc").
class Hasher {
 public:
  Hasher& add(std::span<const std::byte> bytes);
  Hasher& add(std::string_view text);
  Hasher& add(uint64_t number);
  uint64_t result() const { return state_; }

 private:
  void mix(const void* data, size_t size);
  uint64_t state_ = 14695981039346656037ull;
};

uint64_t tensorContentHash(const Tensor& tensor);
uint64_t attributeValueHash(const Attribute& attribute);
// Sixteen lowercase hex digits.
std::string hashToHex(uint64_t hash);
// "float32[64, 3]"
std::string tensorTypeText(const Tensor& tensor);

}  // namespace onyx::diff
