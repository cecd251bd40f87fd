#include "onnx/node_metadata.h"

#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>

namespace onyx {
namespace {
constexpr int kNodeMetadataPropsField = 9;
}

std::vector<StringPair> metadataPropsFromUnknownFields(const std::string& unknownFields) {
  std::vector<StringPair> props;
  if (unknownFields.empty()) return props;
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromString(unknownFields)) return props;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() != kNodeMetadataPropsField ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    onnx::StringStringEntryProto entry;
    if (entry.ParseFromString(field.length_delimited())) props.push_back({entry.key(), entry.value()});
  }
  return props;
}

}  // namespace onyx
