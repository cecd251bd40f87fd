// Bad input never crashes the loader: each case gives an error that names what is wrong and where. Load
// errors come from loadModel; structural problems load (so the model can be shown) and verify() reports them.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <random>

#include "ir/verify.h"
#include "onnx_io_test_support.h"

namespace onyx {
namespace {

using testing::bytesFromText;
using testing::ScratchFolder;
using testing::writeFile;

constexpr const char* kSmallModel = R"(<ir_version: 8, opset_import: ["" : 17]>
small (float[4] x) => (float[4] y) {
  t = Relu(x)
  y = Neg(t)
})";

std::string loadError(const std::filesystem::path& path) {
  auto model = loadModel(path);
  return model.ok() ? std::string("(loaded)") : model.error().toString();
}

std::string loadErrorOfBytes(const std::string& bytes) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx", bytes);
  return loadError(folder / "model.onnx");
}

// The errors verify() reports, one per line.
std::string verifyErrors(const std::string& text) {
  auto model = parseModelText(text);
  if (!model) return "(parse failed: " + model.error().toString() + ")";
  std::string errors;
  for (const Diagnostic& d : verify(**model))
    if (d.severity == Diagnostic::Severity::Error) errors += d.message + " [" + d.where + "]\n";
  return errors;
}

// A model proto with one initializer of 256 floats, for the cases built field by field.
onnx::ModelProto modelWithWeights() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* graph = model.mutable_graph();
  graph->set_name("weights");
  auto* input = graph->add_input();
  input->set_name("x");
  input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  input->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(256);
  auto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(256);
  std::string raw(256 * sizeof(float), '\0');
  for (int i = 0; i < 256; ++i) {
    float value = float(i) * 0.5f;
    std::memcpy(raw.data() + i * sizeof(float), &value, sizeof(float));
  }
  w->set_raw_data(raw);
  auto* node = graph->add_node();
  node->set_op_type("Add");
  node->set_name("add");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

TEST(OnnxLoadErrors, EmptyFile) {
  EXPECT_EQ(loadErrorOfBytes(""), "the file is empty; an ONNX model is a serialized protobuf message");
}

TEST(OnnxLoadErrors, MissingFile) {
  ScratchFolder folder;
  EXPECT_EQ(loadError(folder / "absent.onnx"), "cannot open the file: No such file or directory");
}

TEST(OnnxLoadErrors, RandomBytes) {
  std::mt19937 random(20240611);
  for (int trial = 0; trial < 5; ++trial) {
    std::string bytes(4096, '\0');
    for (char& c : bytes) c = char(random() & 0xff);
    EXPECT_EQ(loadErrorOfBytes(bytes),
              "cannot parse the model: the file is truncated, damaged or not ONNX (protobuf rejected it) "
              "(4096 bytes)")
        << "trial " << trial;
  }
}

TEST(OnnxLoadErrors, TruncatedModel) {
  std::string bytes = modelWithWeights().SerializeAsString();
  ASSERT_EQ(bytes.size(), 1102u);
  // Cut after ir_version: what is left parses, but the graph is gone.
  EXPECT_EQ(loadErrorOfBytes(bytes.substr(0, 2)),
            "the file has no graph: it is not an ONNX model, or it is truncated");
  for (size_t cut : {size_t(40), size_t(551), size_t(1101)})
    EXPECT_EQ(loadErrorOfBytes(bytes.substr(0, cut)),
              "cannot parse the model: the file is truncated, damaged or not ONNX (protobuf rejected it) (" +
                  std::to_string(cut) + " bytes)")
        << "cut at " << cut;
}

TEST(OnnxLoadErrors, FilesOverTwoGigabytesNeedExternalData) {
  ScratchFolder folder;
  std::filesystem::path path = folder / "huge.onnx";
  writeFile(path, "");
  std::filesystem::resize_file(path, (size_t(1) << 31) + 10);  // sparse: no disk space used, never read
  EXPECT_EQ(loadError(path),
            "the file is 2147483658 bytes; protobuf cannot read one message over 2 GB: keep the weights in "
            "external "
            "data (onyx save --external-data)");
}

TEST(OnnxLoadErrors, MissingGraph) {
  onnx::ModelProto model = modelWithWeights();
  model.clear_graph();
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "the file has no graph: it is not an ONNX model, or it is truncated");
}

TEST(OnnxLoadErrors, EmptyGraph) {
  onnx::ModelProto model = modelWithWeights();
  model.mutable_graph()->Clear();
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "the model's graph is empty: it has no nodes and no outputs");
}

TEST(OnnxLoadErrors, AttributeTypeFieldContradictsValue) {
  onnx::ModelProto model = modelWithWeights();
  auto* node = model.mutable_graph()->mutable_node(0);
  auto* axes = node->add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto::FLOAT);
  axes->add_ints(0);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "attribute is declared FLOAT but holds ints; its type field must match its value (attribute "
            "'axes' of node Add 'add' (index 0) in graph 'weights')");
  axes->Clear();
  axes->set_name("alpha");
  axes->set_type(onnx::AttributeProto::INT);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "attribute is declared INT but holds no value (attribute 'alpha' of node Add 'add' (index 0) in "
            "graph 'weights')");
  axes->Clear();
  axes->set_name("mixed");
  axes->set_f(1.0f);
  axes->set_i(2);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "attribute has no type and holds several values (a float (f) and an int (i)); set its type field "
            "(attribute 'mixed' of node Add 'add' (index 0) in graph 'weights')");
}

TEST(OnnxLoadErrors, TensorDataDoesNotMatchShape) {
  onnx::ModelProto model = modelWithWeights();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  w->mutable_raw_data()->resize(100);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor has 100 bytes of raw_data, its type float32 and shape [256] need 1024 (initializer 'w' "
            "in graph 'weights')");
  w->clear_raw_data();
  w->add_float_data(1.0f);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor has 1 values in float_data, its type float32 and shape [256] need 256 (initializer 'w' "
            "in graph 'weights')");
  w->clear_float_data();
  w->add_int64_data(1);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor of type float32 stores values in int64_data, which holds other types; re-export the "
            "model (initializer 'w' in graph 'weights')");
  w->clear_int64_data();
  w->set_dims(0, -3);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor has a negative dimension in its shape [-3] (initializer 'w' in graph 'weights')");
}

TEST(OnnxLoadErrors, TensorWithoutAnOnnxElementType) {
  onnx::ModelProto model = modelWithWeights();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  w->set_data_type(0);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor has no data type (data_type 0, UNDEFINED); set the element type it holds (initializer 'w' "
            "in graph 'weights')");
  w->set_data_type(99);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "tensor has data type 99, which is not an ONNX element type (1-26) (initializer 'w' in graph "
            "'weights')");
}

TEST(OnnxLoadErrors, StringTensorInExternalData) {
  onnx::ModelProto model = modelWithWeights();
  auto* s = model.mutable_graph()->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::STRING);
  s->add_dims(2);
  s->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = s->add_external_data();
  location->set_key("location");
  location->set_value("s.bin");
  ScratchFolder folder;
  writeFile(folder / "s.bin", std::string(16, 'a'));
  writeFile(folder / "model.onnx", model.SerializeAsString());
  EXPECT_EQ(loadError(folder / "model.onnx"),
            "string tensor is marked as external data; ONNX keeps strings only in string_data (initializer "
            "'s' in graph 'weights')");
}

// Kernels read attributes by type: one of another type than the operator's schema declares would be
// passed over for the default, so loading refuses it, naming the node and both types.
TEST(OnnxLoadErrors, AttributeOfAnotherTypeThanItsOperatorDeclares) {
  onnx::ModelProto model = modelWithWeights();
  auto* node = model.mutable_graph()->mutable_node(0);
  node->set_op_type("Softmax");
  node->set_name("sm");
  node->mutable_input()->RemoveLast();
  auto* axis = node->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INTS);
  axis->add_ints(1);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "Softmax 'sm' (#1): attribute 'axis' is INTS, the operator expects INT");
  axis->Clear();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::FLOAT);
  axis->set_f(1.0f);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()),
            "Softmax 'sm' (#1): attribute 'axis' is FLOAT, the operator expects INT");
  axis->Clear();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-1);
  EXPECT_EQ(loadErrorOfBytes(model.SerializeAsString()), "(loaded)");
}

TEST(OnnxVerify, Cycle) {
  EXPECT_EQ(verifyErrors(R"(<ir_version: 8, opset_import: ["" : 17]>
cyclic (float[4] x) => (float[4] y) {
  a = Add(x, c)
  b = Relu(a)
  c = Neg(b)
  y = Identity(b)
})"),
            "the graph has a cycle: Add (#1) <- Neg (#3) <- Relu (#2) <- Add (#1); a value cannot depend on "
            "itself [graph 'cyclic', node Add (#1)]\n");
}

TEST(OnnxVerify, DanglingInput) {
  EXPECT_EQ(verifyErrors(R"(<ir_version: 8, opset_import: ["" : 17]>
dangling (float[4] x) => (float[4] y) {
  y = Add(x, missing)
})"),
            "input 'missing' of Add (#1) is not produced by any node, graph input or initializer [graph "
            "'dangling']\n");
}

TEST(OnnxVerify, DuplicateOutputs) {
  EXPECT_EQ(verifyErrors(R"(<ir_version: 8, opset_import: ["" : 17]>
twice (float[4] x) => (float[4] y) {
  y = Relu(x)
  y = Neg(x)
})"),
            "value 'y' is defined 2 times, by Relu (#1) and Neg (#2); each value name must be produced once "
            "[graph 'twice']\n");
}

TEST(OnnxVerify, UndefinedGraphOutput) {
  EXPECT_EQ(verifyErrors(R"(<ir_version: 8, opset_import: ["" : 17]>
nothing (float[4] x) => (float[4] y) {
  z = Relu(x)
})"),
            "graph output 'y' is not produced by any node, input or initializer [graph 'nothing']\n");
}

TEST(OnnxVerify, ValidModelHasNoErrors) {
  EXPECT_EQ(verifyErrors(kSmallModel), "");
}

}  // namespace
}  // namespace onyx
