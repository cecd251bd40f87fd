// The loader reads the wire format itself (engine/onnx/model_stream.cpp) and must agree with protobuf's own
// ModelProto::ParseFromString on every input: it accepts exactly the files protobuf accepts, and what it
// accepts is the model that protobuf's parse, converted the ordinary way, gives. Checked on hand-built byte
// strings for each wire-format rule (lengths, over-long varints, wire types, field 0, groups, nesting,
// truncation) at each level the reader handles itself (model, main graph, initializer), and on seeded random
// mutations of real models.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_io.h"
#include "onnx_io_test_support.h"
#include "support/test_data.h"

namespace onyx {
namespace {

using testing::readFile;

std::string varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(char(value | 0x80));
    value >>= 7;
  }
  out.push_back(char(value));
  return out;
}

// `value` in exactly `bytes` bytes (over-long: padded with continuation bytes).
std::string longVarint(uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(char(i + 1 < bytes ? byte | 0x80 : byte));
  }
  return out;
}

std::string tag(uint32_t field, uint32_t wireType) {
  return varint((uint64_t(field) << 3) | wireType);
}
std::string lengthField(uint32_t field, const std::string& payload) {
  return tag(field, 2) + varint(payload.size()) + payload;
}

// What a file of these bytes loads as: the saved bytes of the model, or "error: " and the message.
std::string loaded(const std::string& bytes) {
  auto model = parseModel(bytes, {}, "");
  if (!model) return "error: " + model.error().message;
  auto saved = serializeModel(**model);
  return saved ? *saved : "error on save: " + saved.error().message;
}

// Asserts that the loader and protobuf agree on `bytes`; `what` names the case in a failure.
void expectAgreement(const std::string& bytes, const std::string& what) {
  onnx::ModelProto reference;
  bool protobufAccepts = reference.ParseFromString(bytes);
  std::string ours = loaded(bytes);
  if (!protobufAccepts) {
    // Rejected as unparseable, or (for files nested past protobuf's limit) with the nesting limit named.
    const bool parseError = ours.rfind("error: cannot parse the model", 0) == 0;
    const bool nestingError = ours.rfind("error: ", 0) == 0 && ours.find("over the nesting limit of") != std::string::npos;
    EXPECT_TRUE(parseError || nestingError)
        << what << ": protobuf rejects the file but the loader gives " << ours.substr(0, 200);
    return;
  }
  std::string expected = loaded(reference.SerializeAsString());
  EXPECT_TRUE(ours == expected) << what << ": protobuf accepts the file; the loader gives "
                                << ours.substr(0, 200) << ", protobuf's parse gives "
                                << expected.substr(0, 200);
}

// A small valid model built from its three levels, so that bytes can be injected into each: model fields
// around the graph, graph fields around the initializer, initializer fields around its raw_data.
struct Levels {
  std::string tensorFields, graphFields, modelFields;

  Levels() {
    onnx::TensorProto tensor;
    tensor.set_name("w");
    tensor.set_data_type(onnx::TensorProto::FLOAT);
    tensor.add_dims(2);
    tensor.set_raw_data(std::string(8, '\x01'));
    tensorFields = tensor.SerializeAsString();
    onnx::GraphProto graph;
    graph.set_name("g");
    auto* node = graph.add_node();
    node->set_op_type("Add");
    node->add_input("x");
    node->add_input("w");
    node->add_output("y");
    for (auto* info : {graph.add_input(), graph.add_output()}) {
      info->set_name(info == &graph.input(0) ? "x" : "y");
      auto* type = info->mutable_type()->mutable_tensor_type();
      type->set_elem_type(onnx::TensorProto::FLOAT);
      type->mutable_shape()->add_dim()->set_dim_value(2);
    }
    graphFields = graph.SerializeAsString();
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    modelFields = model.SerializeAsString();
  }

  // The model with `extra` appended to the fields of the model (level 0), graph (1) or initializer (2).
  std::string with(int level, const std::string& extra) const {
    std::string tensor = tensorFields + (level == 2 ? extra : "");
    std::string graph = graphFields + lengthField(5, tensor) + (level == 1 ? extra : "");
    return modelFields + lengthField(7, graph) + (level == 0 ? extra : "");
  }
};

// Bytes that protobuf either accepts or rejects, each a rule of the wire format.
std::vector<std::pair<std::string, std::string>> wireFormatCases() {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&cases](std::string name, std::string bytes) {
    cases.emplace_back(std::move(name), std::move(bytes));
  };
  const std::string opset = tag(2, 0) + varint(99);  // OperatorSetIdProto.version 99
  // Lengths: the low 32 bits of 2^32+2 are 2; a length over 2 GB; one past the end.
  add("length 2^32+2", tag(8, 2) + varint((uint64_t(1) << 32) + 2) + opset);
  add("length 2^31", tag(8, 2) + varint(uint64_t(1) << 31) + opset);
  add("length 2^31-1", tag(8, 2) + varint((uint64_t(1) << 31) - 1) + opset);
  add("length 2^63", tag(8, 2) + varint(uint64_t(1) << 63) + opset);
  add("length past the end", tag(8, 2) + varint(opset.size() + 1) + opset);
  add("length of 0", tag(8, 2) + varint(0));
  // Over-long encodings of a length, a tag and a varint value.
  for (int bytes = 2; bytes <= 11; ++bytes) {
    std::string n = std::to_string(bytes);
    add("length 2 in " + n + " bytes", tag(8, 2) + longVarint(opset.size(), bytes) + opset);
    add("tag in " + n + " bytes", longVarint((8 << 3) | 2, bytes) + varint(opset.size()) + opset);
    add("varint in " + n + " bytes", tag(1000, 0) + longVarint(5, bytes));
  }
  add("varint with bits beyond 64", tag(1000, 0) + std::string(9, '\xff') + "\x7f");
  add("varint of 11 bytes", tag(1000, 0) + std::string(10, '\xff') + "\x01");
  add("5-byte tag with high bits", std::string("\xc2\x80\x80\x80\x10", 5) + varint(opset.size()) + opset);
  add("5-byte length with high bits", tag(8, 2) + std::string("\x84\x80\x80\x80\x10", 5) + opset);
  // Field number 0, tag 0 and invalid wire types.
  for (uint32_t wire = 0; wire < 8; ++wire) {
    std::string w = std::to_string(wire);
    add("field 0 wire type " + w, tag(0, wire) + varint(0) + std::string(8, '\0'));
    add("field 1000 wire type " + w, tag(1000, wire) + varint(1) + std::string(8, '\0'));
    add("known field 8 wire type " + w, tag(8, wire) + varint(1) + std::string(8, '\0'));
  }
  add("tag 0 at the end", std::string(1, '\0'));
  add("over-long tag 0", std::string("\x80\x80\x00", 3));
  // Groups: well-formed, nested, unterminated, mismatched, stray end-group.
  add("group", tag(1000, 3) + tag(1, 0) + varint(7) + tag(1000, 4));
  add("empty group", tag(1000, 3) + tag(1000, 4));
  add("nested groups", tag(1000, 3) + tag(5, 3) + tag(1, 2) + varint(1) + "x" + tag(5, 4) + tag(1000, 4));
  add("group of a known field", tag(7, 3) + tag(1, 0) + varint(1) + tag(7, 4));
  add("unterminated group", tag(1000, 3) + tag(1, 0) + varint(7));
  add("mismatched end group", tag(1000, 3) + tag(1001, 4));
  add("stray end group", tag(1000, 4));
  add("field 0 in a group", tag(1000, 3) + tag(0, 0) + varint(1) + tag(1000, 4));
  add("wire type 7 in a group", tag(1000, 3) + tag(1, 7) + tag(1000, 4));
  for (int depth : {97, 98, 99, 100, 101}) {
    std::string nested;
    for (int i = 0; i < depth; ++i) nested += tag(1000, 3);
    for (int i = 0; i < depth; ++i) nested += tag(1000, 4);
    add("groups nested " + std::to_string(depth) + " deep", nested);
  }
  // Truncated fields.
  add("truncated varint", tag(1000, 0) + "\x80");
  add("truncated fixed64", tag(1000, 1) + "1234567");
  add("truncated fixed32", tag(1000, 5) + "123");
  add("truncated tag", std::string("\x80", 1));
  add("fixed64", tag(1000, 1) + "12345678");
  add("fixed32", tag(1000, 5) + "1234");
  return cases;
}

TEST(OnnxParser, AgreesWithProtobufOnEachWireFormatRule) {
  Levels levels;
  ASSERT_EQ(loaded(levels.with(0, "")).rfind("error", 0), std::string::npos) << loaded(levels.with(0, ""));
  int accepted = 0, rejected = 0;
  for (const auto& [name, bytes] : wireFormatCases())
    for (int level = 0; level <= 2; ++level) {
      std::string file = levels.with(level, bytes);
      onnx::ModelProto probe;
      (probe.ParseFromString(file) ? accepted : rejected)++;
      expectAgreement(file, name + " at level " + std::to_string(level));
    }
  // Both outcomes are exercised: the cases are not all rejected (or all accepted) by protobuf.
  EXPECT_GT(accepted, 50);
  EXPECT_GT(rejected, 50);
}

TEST(OnnxParser, TheLowBitsOfALengthAreNotALength) {
  // The file of issue #25: a length of 2^32+2 before an opset import of version 99.
  Levels levels;
  std::string file = levels.with(0, tag(8, 2) + varint((uint64_t(1) << 32) + 2) + tag(2, 0) + varint(99));
  EXPECT_EQ(loaded(file).rfind("error: cannot parse the model", 0), 0u) << loaded(file);
}

TEST(OnnxParser, AgreesWithProtobufOnEveryTruncation) {
  Levels levels;
  std::string file = levels.with(0, "");
  for (size_t size = 0; size < file.size(); ++size)
    expectAgreement(file.substr(0, size), "the first " + std::to_string(size) + " bytes");
}

// Subgraphs nested through If bodies around protobuf's nesting limit of 100 (three levels per If: node,
// attribute, graph).
TEST(OnnxParser, AgreesWithProtobufOnNestingDepth) {
  for (int ifs = 30; ifs <= 34; ++ifs) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    onnx::GraphProto* graph = model.mutable_graph();
    for (int i = 0; i < ifs; ++i) {
      graph->set_name("g" + std::to_string(i));
      graph->add_output()->set_name("y");
      auto* node = graph->add_node();
      node->set_op_type("If");
      node->add_input("c");
      node->add_output("y");
      auto* attribute = node->add_attribute();
      attribute->set_name("then_branch");
      attribute->set_type(onnx::AttributeProto::GRAPH);
      graph = attribute->mutable_g();
    }
    graph->add_output()->set_name("c");
    expectAgreement(model.SerializeAsString(), std::to_string(ifs) + " nested Ifs");
  }
}

// Rewrites the varint starting at `at` (if one does) as another value or encoding.
std::string editVarint(const std::string& bytes, size_t at, std::mt19937& random) {
  size_t end = at;
  uint64_t value = 0;
  while (end < bytes.size() && end - at < 10) {
    value |= uint64_t(uint8_t(bytes[end]) & 0x7f) << (7 * (end - at));
    if (uint8_t(bytes[end++]) < 0x80) break;
  }
  std::string replacement;
  switch (random() % 5) {
    case 0:
      replacement = varint(value + 1);
      break;
    case 1:
      replacement = varint(value == 0 ? 0 : value - 1);
      break;
    case 2:
      replacement = varint(value + (uint64_t(1) << 32));
      break;
    case 3:
      replacement = longVarint(value, 5 + int(random() % 7));
      break;
    default:
      replacement = varint(uint64_t(random()) << (random() % 40));
      break;
  }
  return bytes.substr(0, at) + replacement + bytes.substr(end);
}

std::string mutate(const std::string& bytes, std::mt19937& random) {
  std::string out = bytes;
  switch (random() % 4) {
    case 0:  // byte flips
      for (int flips = 1 + int(random() % 3); flips > 0; --flips) out[random() % out.size()] = char(random());
      return out;
    case 1:  // truncation
      return out.substr(0, random() % out.size());
    case 2:  // length (or any varint) edit
      return editVarint(out, random() % out.size(), random);
    default:  // an inserted byte
      return out.insert(random() % out.size(), 1, char(random()));
  }
}

TEST(OnnxParser, AgreesWithProtobufOnMutatedModels) {
  ONYX_REQUIRE_SHARED(data, "onnx-backend-data");
  const char* models[] = {"pytorch-converted/test_Conv2d", "node/test_if", "node/test_loop11",
                          "pytorch-converted/test_BatchNorm2d_eval", "node/test_constant"};
  std::mt19937 random(25);
  int mutations = 0;
  for (const char* name : models) {
    std::string original = readFile(data / name / "model.onnx");
    ASSERT_FALSE(original.empty()) << name;
    for (int i = 0; i < 400; ++i, ++mutations) {
      std::string mutated = mutate(original, random);
      expectAgreement(mutated, std::string(name) + ", mutation " + std::to_string(i));
      if (::testing::Test::HasFailure()) return;  // one case is enough to debug
    }
  }
  std::cout << "[ parser ] loader and protobuf agree on " << mutations << " mutated models\n";
}

}  // namespace
}  // namespace onyx
