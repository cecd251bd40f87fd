// Reads a ModelProto like protobuf's own parser, except for the raw_data of the main graph's initializers:
// those are read into strings of exactly their size. Protobuf reserves at most 50 MB for a string and then
// grows it by doubling, which for one 300 MB tensor means a 200 MB copy and a peak of 1.3x the file; the
// weights are most of a model, so they are the bytes worth handling here. Everything else is handed to
// protobuf's parser unchanged.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>

#include "onnx/proto_convert.h"

namespace onyx::onnx_io {
namespace {

using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

constexpr int kModelGraphField = 7;
constexpr int kGraphInitializerField = 5;
constexpr int kTensorRawDataField = 9;

// A claimed length is trusted for an allocation only once it fits both the enclosing message and the file.
class Reader {
 public:
  Reader(CodedInputStream& in, size_t size) : in(in), size_(size) {}
  bool fits(uint32_t length) const {
    int untilLimit = in.BytesUntilLimit();
    return size_t(in.CurrentPosition()) + length <= size_ &&
           (untilLimit < 0 || int64_t(length) <= untilLimit);
  }
  bool readLength(uint32_t& length) { return in.ReadVarint32(&length) && fits(length); }
  CodedInputStream& in;

 private:
  size_t size_;
};

void appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(char(value | 0x80));
    value >>= 7;
  }
  out.push_back(char(value));
}

// Appends the field whose tag was just read, tag included, to `out`.
bool copyField(Reader& reader, uint32_t tag, std::string& out) {
  CodedInputStream& in = reader.in;
  appendVarint(out, tag);
  switch (WireFormat::GetTagWireType(tag)) {
    case WireFormat::WIRETYPE_VARINT: {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return false;
      appendVarint(out, value);
      return true;
    }
    case WireFormat::WIRETYPE_FIXED64: {
      uint64_t value = 0;
      if (!in.ReadLittleEndian64(&value)) return false;
      out.append(reinterpret_cast<const char*>(&value), 8);
      return true;
    }
    case WireFormat::WIRETYPE_FIXED32: {
      uint32_t value = 0;
      if (!in.ReadLittleEndian32(&value)) return false;
      out.append(reinterpret_cast<const char*>(&value), 4);
      return true;
    }
    case WireFormat::WIRETYPE_LENGTH_DELIMITED: {
      uint32_t length = 0;
      if (!reader.readLength(length)) return false;
      appendVarint(out, length);
      size_t at = out.size();
      out.resize(at + length);
      return in.ReadRaw(out.data() + at, int(length));
    }
    default:
      return false;  // groups: onnx.proto has none
  }
}

// Runs `field(tag)` for each field of the length-delimited message starting here; false on malformed input.
template <class FieldHandler>
bool forEachFieldOfMessage(Reader& reader, FieldHandler field) {
  CodedInputStream& in = reader.in;
  uint32_t length = 0;
  if (!reader.readLength(length)) return false;
  auto limit = in.PushLimit(int(length));
  while (true) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    if (!field(tag)) return false;
  }
  bool complete = in.ConsumedEntireMessage();
  in.PopLimit(limit);
  return complete;
}

bool isLengthDelimited(uint32_t tag, int number) {
  return WireFormat::GetTagFieldNumber(tag) == number &&
         WireFormat::GetTagWireType(tag) == WireFormat::WIRETYPE_LENGTH_DELIMITED;
}

bool readInitializer(Reader& reader, onnx::TensorProto& tensor) {
  CodedInputStream& in = reader.in;
  std::string rest;
  std::string raw;
  bool hasRaw = false;
  bool ok = forEachFieldOfMessage(reader, [&](uint32_t tag) {
    if (!isLengthDelimited(tag, kTensorRawDataField)) return copyField(reader, tag, rest);
    uint32_t length = 0;
    if (!reader.readLength(length)) return false;
    raw.clear();
    raw.shrink_to_fit();
    raw.resize(length);  // the one allocation of the weights' bytes
    hasRaw = true;
    return in.ReadRaw(raw.data(), int(length));
  });
  if (!ok || !tensor.MergeFromString(rest)) return false;
  if (hasRaw) tensor.set_raw_data(std::move(raw));
  return true;
}

bool readGraph(Reader& reader, onnx::GraphProto& graph) {
  std::string rest;
  bool ok = forEachFieldOfMessage(reader, [&](uint32_t tag) {
    if (isLengthDelimited(tag, kGraphInitializerField))
      return readInitializer(reader, *graph.add_initializer());
    return copyField(reader, tag, rest);
  });
  return ok && graph.MergeFromString(rest);
}

}  // namespace

bool parseModelStream(CodedInputStream& in, size_t size, onnx::ModelProto& model) {
  Reader reader(in, size);
  std::string rest;
  while (true) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    bool ok = isLengthDelimited(tag, kModelGraphField) ? readGraph(reader, *model.mutable_graph())
                                                       : copyField(reader, tag, rest);
    if (!ok) return false;
  }
  return in.ConsumedEntireMessage() && model.MergeFromString(rest);
}

}  // namespace onyx::onnx_io
