#include "onnx/node_metadata.h"

#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

namespace onyx {
namespace {
constexpr int kNodeMetadataPropsField = 9;
constexpr const char* kOriginKey = "onyx.origin";

// [[12,"Conv","/conv1/Conv"],[13,"BatchNormalization","/bn1/BatchNormalization"]]: id, op type, name.
std::string originsText(const std::vector<NodeOrigin>& origins) {
  nlohmann::json list = nlohmann::json::array();
  for (const NodeOrigin& origin : origins) list.push_back({origin.id, origin.opType, origin.name});
  return list.dump();
}

// Entries that do not read as [id, op, name] are dropped: provenance is a hint, never a load error.
std::vector<NodeOrigin> originsFromText(const std::string& text) {
  std::vector<NodeOrigin> origins;
  nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return origins;
  for (const auto& entry : list) {
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_number_unsigned() || !entry[1].is_string() ||
        !entry[2].is_string())
      continue;
    origins.push_back({entry[0].get<NodeId>(), entry[1].get<std::string>(), entry[2].get<std::string>()});
  }
  return origins;
}
}  // namespace

std::vector<NodeOrigin> originsFromUnknownFields(const std::string& unknownFields) {
  for (const StringPair& entry : metadataPropsFromUnknownFields(unknownFields))
    if (entry.key == kOriginKey) return originsFromText(entry.value);
  return {};
}

std::string withNodeOrigins(const std::string& unknownFields, const std::vector<NodeOrigin>& origins) {
  google::protobuf::UnknownFieldSet fields;
  if (!unknownFields.empty() && !fields.ParseFromString(unknownFields)) return unknownFields;
  for (int i = 0; i < fields.field_count();) {
    const google::protobuf::UnknownField& field = fields.field(i);
    onnx::StringStringEntryProto entry;
    if (field.number() == kNodeMetadataPropsField &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
        entry.ParseFromString(field.length_delimited()) && entry.key() == kOriginKey)
      fields.DeleteSubrange(i, 1);
    else
      ++i;
  }
  if (!origins.empty()) {
    onnx::StringStringEntryProto entry;
    entry.set_key(kOriginKey);
    entry.set_value(originsText(origins));
    fields.AddLengthDelimited(kNodeMetadataPropsField, entry.SerializeAsString());
  }
  std::string bytes;
  fields.SerializeToString(&bytes);
  return bytes;
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
