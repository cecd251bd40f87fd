// test_data_set files: tensors, and the sequences, optionals and maps some backend tests feed and expect.
#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>

#include <algorithm>

#include "onnx_io_test_support.h"
#include "support/test_data.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ScratchFolder;
using testing::writeFile;

TEST(OnnxTestValues, TensorFileRoundTrips) {
  ScratchFolder folder;
  Tensor tensor = Tensor::fromValues<float>(DataType::Float, {2, 2}, {1.0f, -2.0f, 3.5f, 0.25f});
  tensor.setName("input_0");
  ASSERT_TRUE(saveTensorFile(tensor, folder / "input_0.pb").ok());
  auto loaded = loadTensorFile(folder / "input_0.pb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  EXPECT_EQ(loaded->name(), "input_0");
  EXPECT_EQ(loaded->dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(std::vector<float>(loaded->values<float>().begin(), loaded->values<float>().end()),
            (std::vector<float>{1.0f, -2.0f, 3.5f, 0.25f}));

  Tensor strings = Tensor::strings({2}, {"x", "yz"});
  ASSERT_TRUE(saveTensorFile(strings, folder / "strings.pb").ok());
  auto loadedStrings = loadTensorFile(folder / "strings.pb");
  ASSERT_TRUE(loadedStrings.ok());
  EXPECT_EQ(loadedStrings->stringValues(), (std::vector<std::string>{"x", "yz"}));
}

TEST(OnnxTestValues, SequencesOptionalsAndMaps) {
  ScratchFolder folder;
  onnx::SequenceProto sequence;
  sequence.set_name("seq");
  sequence.set_elem_type(onnx::SequenceProto::TENSOR);
  for (int64_t v : {int64_t(4), int64_t(5)}) {
    auto* tensor = sequence.add_tensor_values();
    tensor->set_data_type(onnx::TensorProto::INT64);
    tensor->add_dims(1);
    tensor->add_int64_data(v);
  }
  writeFile(folder / "seq.pb", sequence.SerializeAsString());
  auto seq = loadTestValueFile(folder / "seq.pb", Type::sequence(Type::tensor(DataType::Int64)));
  ASSERT_TRUE(seq.ok()) << seq.error().toString();
  EXPECT_EQ(seq->kind, TestValue::Kind::Sequence);
  ASSERT_EQ(seq->elements.size(), 2u);
  EXPECT_EQ(seq->elements[1].tensor.values<int64_t>()[0], 5);

  onnx::OptionalProto none;
  none.set_name("opt");
  none.set_elem_type(onnx::OptionalProto::TENSOR);
  writeFile(folder / "none.pb", none.SerializeAsString());
  auto empty = loadTestValueFile(folder / "none.pb", Type::optional(Type::tensor(DataType::Float)));
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->hasValue());
  *none.mutable_sequence_value() = sequence;
  none.set_elem_type(onnx::OptionalProto::SEQUENCE);
  writeFile(folder / "some.pb", none.SerializeAsString());
  auto some =
      loadTestValueFile(folder / "some.pb", Type::optional(Type::sequence(Type::tensor(DataType::Int64))));
  ASSERT_TRUE(some.ok());
  ASSERT_TRUE(some->hasValue());
  EXPECT_EQ(some->elements[0].kind, TestValue::Kind::Sequence);

  onnx::MapProto map;
  map.set_key_type(onnx::TensorProto::STRING);
  map.add_string_keys("a");
  map.add_string_keys("b");
  *map.mutable_values() = sequence;
  writeFile(folder / "map.pb", map.SerializeAsString());
  auto loadedMap =
      loadTestValueFile(folder / "map.pb", Type::map(DataType::String, Type::tensor(DataType::Int64)));
  ASSERT_TRUE(loadedMap.ok()) << loadedMap.error().toString();
  EXPECT_EQ(loadedMap->keys.stringValues(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(loadedMap->elements.size(), 2u);
  map.add_string_keys("c");
  writeFile(folder / "bad_map.pb", map.SerializeAsString());
  auto badMap =
      loadTestValueFile(folder / "bad_map.pb", Type::map(DataType::String, Type::tensor(DataType::Int64)));
  ASSERT_FALSE(badMap.ok());
  EXPECT_EQ(badMap.error().toString(), "map has 3 keys but 2 values (map '')");
}

TEST(OnnxTestValues, EveryBackendDataSetLoads) {
  ONYX_REQUIRE_SHARED(root, "onnx-backend-data");
  size_t files = 0, sequences = 0, optionals = 0;
  std::string failures;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "model.onnx") continue;
    auto model = loadModel(entry.path());
    ASSERT_TRUE(model.ok()) << entry.path();
    const Graph& graph = (*model)->graph();
    for (const auto& set : fs::directory_iterator(entry.path().parent_path())) {
      if (!set.is_directory()) continue;
      for (const auto& file : fs::directory_iterator(set.path())) {
        std::string name = file.path().stem().string();  // input_3, output_0
        bool input = name.rfind("input_", 0) == 0;
        size_t index = std::stoul(name.substr(name.find('_') + 1));
        const std::vector<Value*>& declared = input ? graph.inputs() : graph.outputs();
        // Old models list initializers as inputs; their data sets feed only the real inputs.
        std::vector<Value*> fed;
        for (Value* value : declared)
          if (!input || !value->isInitializer()) fed.push_back(value);
        Type type = index < fed.size() ? fed[index]->type() : Type();
        auto value = loadTestValueFile(file.path(), type);
        ++files;
        if (!value.ok()) {
          failures += fs::relative(file.path(), root).string() + ": " + value.error().toString() + "\n";
          continue;
        }
        sequences += value->kind == TestValue::Kind::Sequence;
        optionals += value->kind == TestValue::Kind::Optional;
      }
    }
  }
  std::cout << "[ test data ] " << files << " files, " << sequences << " sequences, " << optionals
            << " optionals\n";
  EXPECT_TRUE(failures.empty()) << failures;
  EXPECT_GT(files, 3000u);
  EXPECT_GT(sequences, 10u);
  EXPECT_GT(optionals, 5u);
}

}  // namespace
}  // namespace onyx
