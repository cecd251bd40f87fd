// Reads a ModelProto like protobuf's own parser, except for the raw_data of the main graph's initializers:
// those are read into strings of exactly their size. Protobuf reserves at most 50 MB for a string and then
// grows it by doubling, which for one 300 MB tensor means a 200 MB copy and a peak of 1.3x the file; the
// weights are most of a model, so they are the bytes worth handling here.
//
// Every other field is copied byte for byte and handed to protobuf's parser, so the only decisions made here
// are the wire format's: where a field ends. They follow protobuf 3.21's parser (parse_context.h) exactly, so
// that a file loads here if and only if ModelProto::ParseFromString accepts it: tags of at most 5 bytes, no
// tag 0, no field number 0, no wire type 6 or 7, no end-group outside its group; lengths of at most 5 bytes
// below 2 GB that fit the enclosing message; varints of at most 10 bytes; nesting (messages and groups) at
// most 100 deep. onnx_io_parser_test.cpp checks the agreement on hand-built and mutated files.
#include <google/protobuf/io/coded_stream.h>

#include <climits>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

using google::protobuf::io::CodedInputStream;

constexpr int kModelGraphField = 7;
constexpr int kGraphInitializerField = 5;
constexpr int kTensorRawDataField = 9;
constexpr int kRecursionLimit = 100;           // protobuf's default nesting limit (CodedInputStream)
constexpr uint32_t kMaxLength = INT_MAX - 16;  // protobuf's ReadSize: 2 GB less its slop bytes

enum WireType : uint32_t {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5
};

uint32_t wireType(uint32_t tag) {
  return tag & 7;
}
uint32_t fieldNumber(uint32_t tag) {
  return tag >> 3;
}

// A tag protobuf accepts at the start of a field (an end-group tag is checked by the group that it ends).
bool isFieldTag(uint32_t tag) {
  return fieldNumber(tag) != 0 && wireType(tag) != EndGroup && wireType(tag) <= Fixed32;
}

// Reads the file's bytes one wire-format item at a time; `end` is where the enclosing message ends.
class WireReader {
 public:
  explicit WireReader(CodedInputStream& in) : in_(in) {}
  int64_t position() const { return in_.CurrentPosition(); }

  // A varint of at most `maxBytes` bytes (bits beyond 64 dropped, as protobuf does); its bytes are appended
  // to `copy` when given.
  bool readVarint(int64_t end, int maxBytes, uint64_t& value, std::string* copy) {
    value = 0;
    for (int i = 0; i < maxBytes; ++i) {
      uint8_t byte = 0;
      if (position() >= end || !in_.ReadRaw(&byte, 1)) return false;
      if (copy) copy->push_back(char(byte));
      value |= uint64_t(byte & 0x7f) << (7 * i);
      if (byte < 0x80) return true;
    }
    return false;
  }
  bool readTag(int64_t end, uint32_t& tag, std::string* copy) {
    uint64_t value = 0;
    if (!readVarint(end, 5, value, copy)) return false;
    tag = uint32_t(value);  // a fifth byte's bits above 32 are dropped
    return true;
  }
  // A length, which must fit what is left of the enclosing message (and so of the file).
  bool readLength(int64_t end, uint32_t& length, std::string* copy) {
    uint64_t value = 0;
    if (!readVarint(end, 5, value, copy) || value > kMaxLength) return false;
    length = uint32_t(value);
    return int64_t(length) <= end - position();
  }
  bool readRaw(void* out, uint32_t size) { return size == 0 || in_.ReadRaw(out, int(size)); }
  bool skip(uint32_t size) { return size == 0 || in_.Skip(int(size)); }
  bool appendRaw(int64_t end, uint32_t size, std::string& out) {
    if (int64_t(size) > end - position()) return false;
    size_t at = out.size();
    out.resize(at + size);
    return readRaw(out.data() + at, size);
  }

  // Appends the value of the field whose tag was just read to `out`, byte for byte. `level` is the nesting
  // depth of the message holding the field; a group's fields lie one deeper.
  bool copyValue(int64_t end, uint32_t tag, int level, std::string& out) {
    switch (wireType(tag)) {
      case Varint: {
        uint64_t value = 0;
        return readVarint(end, 10, value, &out);
      }
      case Fixed64:
        return appendRaw(end, 8, out);
      case Fixed32:
        return appendRaw(end, 4, out);
      case LengthDelimited: {
        uint32_t length = 0;
        return readLength(end, length, &out) && appendRaw(end, length, out);
      }
      case StartGroup: {
        if (level + 1 > kRecursionLimit) return false;
        while (true) {
          uint32_t inner = 0;
          if (!readTag(end, inner, &out)) return false;
          if (wireType(inner) == EndGroup) return inner == tag + 1;  // the end of this group, not another
          if (!isFieldTag(inner) || !copyValue(end, inner, level + 1, out)) return false;
        }
      }
      default:
        return false;
    }
  }

 private:
  CodedInputStream& in_;
};

// Parses fields copied from a message at nesting depth `level` into `message`, with the nesting budget
// protobuf would have had left at that depth.
bool mergeCopiedFields(const std::string& bytes, google::protobuf::Message& message, int level) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
  in.SetRecursionLimit(kRecursionLimit - level);
  return message.MergePartialFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// Runs `special(tag, end)` on each field up to `end` for which `wants(tag)` holds, and copies the others to
// `rest`; false on malformed input.
template <class Wants, class Special>
bool forEachField(WireReader& reader, int64_t end, int level, std::string& rest, Wants wants,
                  Special special) {
  while (reader.position() < end) {
    std::string tagBytes;
    uint32_t tag = 0;
    if (!reader.readTag(end, tag, &tagBytes) || !isFieldTag(tag)) return false;
    if (wants(tag)) {
      if (!special(end)) return false;
      continue;
    }
    rest += tagBytes;
    if (!reader.copyValue(end, tag, level, rest)) return false;
  }
  return true;
}

auto lengthDelimitedField(int number) {
  return [number](uint32_t tag) {
    return fieldNumber(tag) == uint32_t(number) && wireType(tag) == LengthDelimited;
  };
}

// An initializer of the main graph (nesting depth 2), its raw_data read straight into its final string, or,
// when at least spans->minBytes, left in the (mapped) file and its place recorded.
bool readInitializer(WireReader& reader, int64_t outerEnd, onnx::TensorProto& tensor, InlineSpans* spans) {
  uint32_t length = 0;
  if (!reader.readLength(outerEnd, length, nullptr)) return false;
  int64_t end = reader.position() + length;
  std::string rest;
  std::string raw;
  bool hasRaw = false;
  std::optional<std::pair<size_t, size_t>> span;  // the last raw_data wins, as in protobuf
  bool ok = forEachField(reader, end, 2, rest, lengthDelimitedField(kTensorRawDataField), [&](int64_t end) {
    uint32_t size = 0;
    if (!reader.readLength(end, size, nullptr)) return false;
    raw.clear();
    raw.shrink_to_fit();
    hasRaw = true;
    if (spans && size >= spans->minBytes) {
      span = std::pair<size_t, size_t>(size_t(reader.position()), size_t(size));
      return reader.skip(size);
    }
    span.reset();
    raw.resize(size);  // the one allocation of the weights' bytes
    return reader.readRaw(raw.data(), size);
  });
  if (!ok || !mergeCopiedFields(rest, tensor, 2)) return false;
  if (span)
    spans->spans[&tensor] = *span;
  else if (hasRaw)
    tensor.set_raw_data(std::move(raw));
  return true;
}

bool readGraph(WireReader& reader, int64_t outerEnd, onnx::GraphProto& graph, InlineSpans* spans) {
  uint32_t length = 0;
  if (!reader.readLength(outerEnd, length, nullptr)) return false;
  int64_t end = reader.position() + length;
  std::string rest;
  bool ok = forEachField(reader, end, 1, rest, lengthDelimitedField(kGraphInitializerField),
                         [&](int64_t end) { return readInitializer(reader, end, *graph.add_initializer(), spans); });
  return ok && mergeCopiedFields(rest, graph, 1);
}

}  // namespace

bool parseModelStream(CodedInputStream& in, size_t size, onnx::ModelProto& model, InlineSpans* spans) {
  WireReader reader(in);
  std::string rest;
  int64_t end = int64_t(size);
  bool ok = forEachField(reader, end, 0, rest, lengthDelimitedField(kModelGraphField),
                         [&](int64_t end) { return readGraph(reader, end, *model.mutable_graph(), spans); });
  return ok && mergeCopiedFields(rest, model, 0);
}

}  // namespace onyx::onnx_io
