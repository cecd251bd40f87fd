// Byte-faithful save (issue #25): every model of the shared corpus (the node suite and the other backend
// test folders, the exported models and the ORT-optimized ones), loaded and serialized again without an edit,
// gives the bytes of its file. The saver writes what the IR holds, field presence included (FieldPresence:
// an explicit empty domain or name stays, an absent one stays absent); it never copies the file's bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <onnx/onnx_pb.h>

#include "ir/rewriter.h"
#include "onnx/onnx_io.h"
#include "onnx_io_test_support.h"
#include "support/test_data.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

// FOLDER/*/model.onnx, or FOLDER/*/*/model.onnx when `nested`.
std::vector<fs::path> corpusModels(const fs::path& folder, bool nested) {
  std::vector<fs::path> models;
  if (!fs::is_directory(folder)) return models;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (!entry.is_directory()) continue;
    if (!nested) {
      if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path() / "model.onnx");
      continue;
    }
    for (const auto& inner : fs::directory_iterator(entry.path()))
      if (inner.is_directory() && fs::exists(inner.path() / "model.onnx"))
        models.push_back(inner.path() / "model.onnx");
  }
  std::sort(models.begin(), models.end());
  return models;
}

TEST(OnnxFaithfulSave, EveryCorpusModelSavesToItsOwnBytes) {
  fs::path data = testing::testDataDir();
  std::vector<fs::path> models = corpusModels(data / "onnx-backend-data", true);
  for (const char* folder : {"models", "models-ort"}) {
    auto more = corpusModels(data / folder, false);
    models.insert(models.end(), more.begin(), more.end());
  }
  if (models.empty()) GTEST_SKIP() << "test data not found under " << data << " (set ONYX_TEST_DATA)";
  size_t differing = 0;
  std::string firstDifferences;
  for (const fs::path& path : models) {
    std::string problem;
    auto model = loadModel(path);
    if (!model) {
      problem = "load: " + model.error().toString();
    } else if (auto saved = serializeModel(**model); !saved) {
      problem = "save: " + saved.error().toString();
    } else if (std::string original = testing::readFile(path); *saved != original) {
      auto [at, unused] = std::mismatch(original.begin(), original.end(), saved->begin(), saved->end());
      problem = "differs from byte " + std::to_string(at - original.begin()) + " (" +
                std::to_string(original.size()) + " bytes in the file, " + std::to_string(saved->size()) +
                " saved)";
    }
    if (problem.empty()) continue;
    if (++differing <= 10) firstDifferences += fs::relative(path, data).string() + ": " + problem + "\n";
  }
  std::cout << "[ faithful ] " << models.size() - differing << " of " << models.size()
            << " models save byte-identical\n";
  EXPECT_EQ(differing, 0u) << "the first that differ:\n" << firstDifferences;
}

// A model whose proto2 presence differs from what a fresh writer would choose: an explicit empty node domain,
// an opset import without a domain, an attribute tensor with an explicit empty name, an explicit empty graph
// doc string, and a graph output that value_info lists again with less shape.
onnx::ModelProto modelWithPresence() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);  // no domain field at all
  auto* graph = model.mutable_graph();
  graph->set_name("presence");
  graph->set_doc_string("");
  auto* input = graph->add_input();
  input->set_name("x");
  input->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* constant = graph->add_node();
  constant->set_op_type("Constant");
  constant->set_domain("");
  constant->add_output("c");
  auto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_name("");
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_float_data(2.0f);
  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->set_domain("");
  add->add_input("x");
  add->add_input("c");
  add->add_output("y");
  auto* output = graph->add_output();
  output->set_name("y");
  output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  output->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
  auto* listed = graph->add_value_info();
  listed->set_name("y");
  listed->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return model;
}

TEST(OnnxFaithfulSave, FieldPresenceSurvivesLoadAndSave) {
  std::string bytes = modelWithPresence().SerializeAsString();
  auto model = parseModel(bytes, {}, "");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto saved = serializeModel(**model);
  ASSERT_TRUE(saved.ok());
  EXPECT_TRUE(*saved == bytes);
  // The output keeps its declared shape; the value_info entry its own type.
  const Value* y = (*model)->graph().outputs()[0];
  EXPECT_EQ(y->type().toString(), "float32[1]");
}

// The presence is carried by the IR, not copied from the file: after edits elsewhere, the untouched fields
// keep their presence and the edited ones take their new values.
TEST(OnnxFaithfulSave, PresenceIsKeptThroughEdits) {
  auto model = parseModel(modelWithPresence().SerializeAsString(), {}, "");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  Graph& graph = (*model)->graph();
  Node* add = *std::next(graph.nodes().begin());
  Rewriter rewriter(**model);
  rewriter.renameNode(add, "renamed");
  rewriter.setAttribute(add, Attribute::ofInt("unused", 1));
  auto saved = serializeModel(**model);
  ASSERT_TRUE(saved.ok());
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(*saved));
  EXPECT_FALSE(proto.opset_import(0).has_domain());
  EXPECT_TRUE(proto.graph().has_doc_string());
  EXPECT_TRUE(proto.graph().node(0).has_domain());
  EXPECT_TRUE(proto.graph().node(0).attribute(0).t().has_name());
  EXPECT_EQ(proto.graph().node(1).name(), "renamed");
  EXPECT_TRUE(proto.graph().node(1).has_domain());
  EXPECT_EQ(proto.graph().node(1).attribute_size(), 1);
  // A new type for y is the type of both its declarations.
  rewriter.setType(graph.outputs()[0], Type::tensor(DataType::Float, Shape{Dim(3)}));
  saved = serializeModel(**model);
  ASSERT_TRUE(saved.ok());
  ASSERT_TRUE(proto.ParseFromString(*saved));
  EXPECT_EQ(proto.graph().value_info(0).type().tensor_type().shape().dim(0).dim_value(), 3);
}

// Objects built in memory have no record: the saver writes its own choices (an opset import's domain always,
// a node's empty domain never).
TEST(OnnxFaithfulSave, ObjectsBuiltInMemoryGetTheWritersDefaults) {
  auto model = testing::modelFromText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) { y = Relu(x) })");
  ASSERT_TRUE(model);
  Rewriter rewriter(*model);
  Node* relu = *model->graph().nodes().begin();
  Rewriter::NodeSpec spec;
  spec.opType = "Neg";
  spec.inputs = {relu->output(0)};
  spec.outputNames = {"z"};
  rewriter.addNode(model->graph(), std::move(spec));
  model->opsetImports.push_back(OpsetImport{"", 1});  // a second, empty-domain import added in memory
  auto saved = serializeModel(*model);
  ASSERT_TRUE(saved.ok());
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(*saved));
  ASSERT_EQ(proto.opset_import_size(), 2);
  EXPECT_TRUE(proto.opset_import(1).has_domain());
  ASSERT_EQ(proto.graph().node_size(), 2);
  EXPECT_FALSE(proto.graph().node(1).has_domain());
}

}  // namespace
}  // namespace onyx
