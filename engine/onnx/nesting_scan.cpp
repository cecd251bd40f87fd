// The body nesting of a serialized model, read without protobuf's parser: protobuf rejects a message nested
// more than 100 deep (about 30 If levels) as unparsable, and the loader then says why (ir/nesting.h) instead
// of "truncated, damaged or not ONNX". Only the fields that lead to bodies are followed, and with an explicit
// stack, so a hostile file cannot make this recurse either.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

enum class Kind { Model, Graph, Function, Node, Attribute };

// The message a length-delimited field of `kind` holds, when it leads towards bodies.
std::optional<Kind> childKind(Kind kind, uint64_t field) {
  switch (kind) {
    case Kind::Model:
      if (field == 7) return Kind::Graph;      // ModelProto.graph
      if (field == 25) return Kind::Function;  // ModelProto.functions
      return std::nullopt;
    case Kind::Graph:
    case Kind::Function:
      if ((kind == Kind::Graph && field == 1) || (kind == Kind::Function && field == 7)) return Kind::Node;
      return std::nullopt;
    case Kind::Node:
      return field == 5 ? std::optional(Kind::Attribute) : std::nullopt;  // NodeProto.attribute
    case Kind::Attribute:
      return field == 6 || field == 11 ? std::optional(Kind::Graph) : std::nullopt;  // g, graphs
  }
  return std::nullopt;
}

struct Frame {
  Kind kind;
  size_t end;
  int64_t level;  // body level of the graph this message lies in
};

}  // namespace

std::optional<int64_t> scanBodyNesting(std::span<const std::byte> bytes) {
  size_t at = 0;
  auto varint = [&](uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
      auto byte = uint8_t(bytes[at++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  };
  std::vector<Frame> stack = {{Kind::Model, bytes.size(), 0}};
  int64_t deepest = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (at == top.end) {
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0;
    if (!varint(tag) || at > top.end) return std::nullopt;
    uint64_t length = 0;
    switch (tag & 7) {
      case 0:
        if (!varint(length)) return std::nullopt;
        break;
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        if (!varint(length) || length > top.end - std::min(at, top.end)) return std::nullopt;
        if (auto child = childKind(top.kind, tag >> 3)) {
          int64_t level = top.level + (*child == Kind::Graph && top.kind == Kind::Attribute ? 1 : 0) +
                          (*child == Kind::Function ? 1 : 0);
          deepest = std::max(deepest, level);
          stack.push_back({*child, at + length, level});
          continue;
        }
        at += length;
        break;
      }
      default:
        return std::nullopt;
    }
    if (at > top.end) return std::nullopt;
  }
  return deepest;
}

}  // namespace onyx::onnx_io
