// Load + save keeps what the IR does not interpret: doc strings, metadata, value_info, denotations, typed
// tensor fields, sparse initializers, functions with attribute defaults, training_info, quantization
// annotations, and fields newer than onnx 1.12 (IR 10's overload and metadata_props among them).
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_io_test_support.h"

namespace onyx {
namespace {

onnx::ValueInfoProto* addTensorInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                    const std::string& name, int elemType) {
  auto* info = list->Add();
  info->set_name(name);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(elemType);
  return info;
}

std::string entryBytes(const std::string& key, const std::string& value) {
  onnx::StringStringEntryProto entry;
  entry.set_key(key);
  entry.set_value(value);
  return entry.SerializeAsString();
}

onnx::TensorProto* addTensor(onnx::GraphProto* graph, const std::string& name, int type,
                             std::vector<int64_t> dims) {
  auto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(type);
  for (int64_t dim : dims) tensor->add_dims(dim);
  return tensor;
}

onnx::ModelProto richModel() {
  onnx::ModelProto model;
  model.set_ir_version(10);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(21);
  auto* local = model.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  model.set_producer_name("hand");
  model.set_producer_version("1.0");
  model.set_domain("test.onyx");
  model.set_model_version(3);
  model.set_doc_string("model doc");
  auto* meta = model.add_metadata_props();
  meta->set_key("author");
  meta->set_value("onyx");
  model.mutable_unknown_fields()->AddVarint(99, 7);  // a field from the future

  auto* graph = model.mutable_graph();
  graph->set_name("rich");
  graph->set_doc_string("graph doc");
  auto* x = addTensorInfo(graph->mutable_input(), "x", onnx::TensorProto::FLOAT);
  x->set_doc_string("input doc");
  auto* shape = x->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* batch = shape->add_dim();
  batch->set_dim_param("N");
  batch->set_denotation("DATA_BATCH");
  shape->add_dim()->set_dim_value(4);
  shape->add_dim();  // neither value nor name
  x->mutable_type()->set_denotation("TENSOR");
  x->mutable_unknown_fields()->AddLengthDelimited(4,
                                                  entryBytes("unit", "m"));  // ValueInfoProto.metadata_props
  auto* c = addTensorInfo(graph->mutable_input(), "c", onnx::TensorProto::BOOL);
  c->mutable_type()->mutable_tensor_type()->mutable_shape();  // a scalar

  auto* i8 = addTensor(graph, "i8", onnx::TensorProto::INT8, {3});
  for (int v : {-1, 2, -128}) i8->add_int32_data(v);
  i8->set_doc_string("typed int8");
  i8->mutable_unknown_fields()->AddVarint(77, 1);
  auto* f16 = addTensor(graph, "f16", onnx::TensorProto::FLOAT16, {2});
  for (int v : {15360, 49152}) f16->add_int32_data(v);
  auto* i64 = addTensor(graph, "i64", onnx::TensorProto::INT64, {2});
  for (int64_t v : {int64_t(1), int64_t(-2)}) i64->add_int64_data(v);
  addTensor(graph, "d", onnx::TensorProto::DOUBLE, {})->add_double_data(1.5);
  addTensor(graph, "u32", onnx::TensorProto::UINT32, {1})->add_uint64_data(4000000000u);
  auto* s = addTensor(graph, "s", onnx::TensorProto::STRING, {2});
  s->add_string_data("a");
  s->add_string_data("bc");
  auto* f = addTensor(graph, "f", onnx::TensorProto::FLOAT, {2});
  f->add_float_data(1.0f);
  f->add_float_data(2.0f);
  addTensor(graph, "empty", onnx::TensorProto::FLOAT, {0})->set_raw_data("");
  auto* sparse = graph->add_sparse_initializer();
  sparse->mutable_values()->set_name("sp");
  sparse->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(2);
  sparse->mutable_values()->add_float_data(5.0f);
  sparse->mutable_values()->add_float_data(6.0f);
  sparse->mutable_indices()->set_data_type(onnx::TensorProto::INT64);
  sparse->mutable_indices()->add_dims(2);
  sparse->mutable_indices()->add_int64_data(0);
  sparse->mutable_indices()->add_int64_data(3);
  sparse->add_dims(4);

  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->set_name("n1");
  add->set_doc_string("node doc");
  add->add_input("x");
  add->add_input("f");
  add->add_output("t");
  add->mutable_unknown_fields()->AddLengthDelimited(8, "ov1");  // NodeProto.overload
  add->mutable_unknown_fields()->AddLengthDelimited(
      9, entryBytes("origin", "test"));  // NodeProto.metadata_props

  auto* branch = graph->add_node();
  branch->set_op_type("If");
  branch->set_name("choose");
  branch->add_input("c");
  branch->add_output("y");
  branch->add_output("");
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* attribute = branch->add_attribute();
    attribute->set_name(which);
    attribute->set_type(onnx::AttributeProto::GRAPH);
    attribute->set_doc_string(std::string(which) + " doc");
    auto* body = attribute->mutable_g();
    body->set_name(which);
    auto* inner = body->add_node();
    inner->set_op_type(std::string(which) == "then_branch" ? "Relu" : "Neg");
    inner->add_input("t");  // outer scope
    inner->add_output(std::string(which) + "_out");
    addTensorInfo(body->mutable_output(), std::string(which) + "_out", onnx::TensorProto::FLOAT);
  }
  auto* call = graph->add_node();
  call->set_op_type("Fn");
  call->set_domain("local");
  call->add_input("t");
  call->add_output("u");
  auto* alpha = call->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(0.5f);
  auto* lists = call->add_attribute();
  lists->set_name("pads");
  lists->set_type(onnx::AttributeProto::INTS);
  lists->add_ints(1);
  lists->add_ints(2);
  auto* typeAttr = call->add_attribute();
  typeAttr->set_name("ty");
  typeAttr->set_type(onnx::AttributeProto::TYPE_PROTO);
  typeAttr->mutable_tp()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      1);

  addTensorInfo(graph->mutable_output(), "y", onnx::TensorProto::FLOAT);
  addTensorInfo(graph->mutable_output(), "u", onnx::TensorProto::FLOAT);
  addTensorInfo(graph->mutable_value_info(), "t", onnx::TensorProto::FLOAT)->set_doc_string("t doc");
  addTensorInfo(graph->mutable_value_info(), "nowhere", onnx::TensorProto::INT64);
  auto* annotation = graph->add_quantization_annotation();
  annotation->set_tensor_name("t");
  auto* scale = annotation->add_quant_parameter_tensor_names();
  scale->set_key("SCALE_TENSOR");
  scale->set_value("f");

  auto* training = model.add_training_info();
  training->mutable_initialization()->set_name("init");
  auto* binding = training->add_initialization_binding();
  binding->set_key("f");
  binding->set_value("f_init");

  auto* function = model.add_functions();
  function->set_name("Fn");
  function->set_domain("local");
  function->set_doc_string("function doc");
  function->add_input("X");
  function->add_output("Y");
  function->add_attribute("alpha");
  auto* leaky = function->add_node();
  leaky->set_op_type("LeakyRelu");
  leaky->add_input("X");
  leaky->add_output("Y");
  auto* ref = leaky->add_attribute();
  ref->set_name("alpha");
  ref->set_type(onnx::AttributeProto::FLOAT);
  ref->set_ref_attr_name("alpha");
  auto* fopset = function->add_opset_import();
  fopset->set_domain("");
  fopset->set_version(21);
  onnx::AttributeProto beta;
  beta.set_name("beta");
  beta.set_type(onnx::AttributeProto::FLOAT);
  beta.set_f(2.0f);
  function->mutable_unknown_fields()->AddLengthDelimited(11, beta.SerializeAsString());  // attribute_proto
  function->mutable_unknown_fields()->AddLengthDelimited(13, "fov");                     // overload
  onnx::ValueInfoProto functionInfo;
  functionInfo.set_name("X");
  function->mutable_unknown_fields()->AddLengthDelimited(12, functionInfo.SerializeAsString());  // value_info
  return model;
}

std::unique_ptr<Model> loadRich() {
  auto model = parseModel(richModel().SerializeAsString(), {}, "rich");
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().toString());
  return model.ok() ? std::move(*model) : nullptr;
}

TEST(OnnxLossless, SaveGivesBackTheSameMessage) {
  auto model = loadRich();
  ASSERT_TRUE(model);
  auto bytes = serializeModel(*model);
  ASSERT_TRUE(bytes.ok());
  onnx::ModelProto saved;
  ASSERT_TRUE(saved.ParseFromString(*bytes));
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(richModel(), saved)) << report;
}

TEST(OnnxLossless, TheIrSeesWhatItModels) {
  auto model = loadRich();
  ASSERT_TRUE(model);
  const Graph& graph = model->graph();
  EXPECT_EQ(model->irVersion, 10);
  EXPECT_EQ(model->metadata, (std::vector<StringPair>{{"author", "onyx"}}));
  EXPECT_EQ(model->trainingInfoEntries.size(), 1u);
  EXPECT_EQ(graph.inputs()[0]->type().toString(), "float32[N, 4, ?]");
  EXPECT_EQ(graph.inputs()[0]->type().denotation(), "TENSOR");
  EXPECT_EQ((*graph.inputs()[0]->type().shape())[0].denotation(), "DATA_BATCH");
  EXPECT_EQ(graph.inputs()[1]->type().toString(), "bool[]");

  const Tensor& i8 = *graph.findValue("i8")->initializer();
  EXPECT_EQ(i8.storage(), TensorStorage::TypedField);
  EXPECT_EQ(std::vector<int8_t>(i8.values<int8_t>().begin(), i8.values<int8_t>().end()),
            (std::vector<int8_t>{-1, 2, -128}));
  const Tensor& f16 = *graph.findValue("f16")->initializer();
  EXPECT_EQ(std::vector<uint16_t>(f16.values<uint16_t>().begin(), f16.values<uint16_t>().end()),
            (std::vector<uint16_t>{0x3c00, 0xc000}));
  const Tensor& u32 = *graph.findValue("u32")->initializer();
  EXPECT_EQ(u32.values<uint32_t>()[0], 4000000000u);
  EXPECT_EQ(graph.findValue("s")->initializer()->stringValues(), (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(graph.findValue("empty")->initializer()->storage(), TensorStorage::Raw);
  ASSERT_EQ(graph.sparseInitializers().size(), 1u);
  EXPECT_EQ(graph.sparseInitializers()[0]->name(), "sp");

  std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0]->overload(), "ov1");
  EXPECT_EQ(nodes[0]->docString(), "node doc");
  EXPECT_EQ(nodes[1]->output(1), nullptr) << "an absent optional output";
  EXPECT_EQ(nodes[2]->attribute("ty")->valueToString(), "seq(float32[...])");

  ASSERT_EQ(model->functions.size(), 1u);
  const Function& function = *model->functions[0];
  EXPECT_EQ(function.overload, "fov");
  ASSERT_EQ(function.attributeDefaults.size(), 1u);
  EXPECT_EQ(function.attributeDefaults[0].name(), "beta");
  EXPECT_EQ(*function.attributeDefaults[0].getFloat(), 2.0f);
  Node* leaky = *function.body->nodes().begin();
  EXPECT_TRUE(leaky->attribute("alpha")->isReference());
  EXPECT_EQ(leaky->input(0), function.body->inputs()[0]);
  EXPECT_EQ(model->findFunction("local", "Fn", "fov"), &function);
}

}  // namespace
}  // namespace onyx
