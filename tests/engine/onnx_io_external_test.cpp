// External data: weights in a file beside the model, checked at load (inside the model's folder, present,
// long enough), mapped on use, and written by saveModel as the options ask, without touching the input.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "onnx_io_test_support.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::readFile;
using testing::ScratchFolder;
using testing::writeFile;

std::string floatBytes(int count, float scale) {
  std::string raw(size_t(count) * sizeof(float), '\0');
  for (int i = 0; i < count; ++i) {
    float value = float(i) * scale;
    std::memcpy(raw.data() + size_t(i) * sizeof(float), &value, sizeof(float));
  }
  return raw;
}

// y = (x + big) * small: `big` has 4096 floats (16 KiB), `small` 8 (32 bytes).
onnx::ModelProto twoWeightModel() {
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
  auto addWeight = [graph](const std::string& name, int count, float scale) {
    auto* w = graph->add_initializer();
    w->set_name(name);
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(count);
    w->set_raw_data(floatBytes(count, scale));
    return w;
  };
  addWeight("big", 4096, 0.25f);
  addWeight("small", 8, 2.0f);
  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("big");
  add->add_output("sum");
  auto* mul = graph->add_node();
  mul->set_op_type("Mul");
  mul->add_input("sum");
  mul->add_input("small");
  mul->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

// The same model with `big` moved to `location` at `offset` (the file is written unless `dataFile` is empty).
onnx::ModelProto externalModel(const fs::path& folder, const std::string& location, int64_t offset,
                               const std::string& dataFileName) {
  onnx::ModelProto model = twoWeightModel();
  auto* big = model.mutable_graph()->mutable_initializer(0);
  std::string bytes = big->raw_data();
  big->clear_raw_data();
  big->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [big](const char* key, const std::string& value) {
    auto* entry = big->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  add("length", std::to_string(bytes.size()));
  if (!dataFileName.empty()) writeFile(folder / dataFileName, std::string(size_t(offset), 'x') + bytes);
  return model;
}

const Tensor& initializer(const Model& model, const std::string& name) {
  Value* value = model.graph().findValue(name);
  EXPECT_NE(value, nullptr) << name;
  EXPECT_TRUE(value->isInitializer()) << name;
  return *value->initializer();
}

std::string tensorBytes(const Tensor& tensor) {
  auto bytes = tensor.bytes();
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().toString());
  return bytes.ok() ? std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size())
                    : std::string();
}

TEST(OnnxExternalData, LoadsLazilyFromTheModelsFolder) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx",
            externalModel(folder.path(), "weights.bin", 128, "weights.bin").SerializeAsString());
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  const Tensor& big = initializer(**model, "big");
  EXPECT_TRUE(big.isExternal());
  EXPECT_EQ(big.externalData()->offset, 128);
  EXPECT_EQ(tensorBytes(big), floatBytes(4096, 0.25f));
  EXPECT_FALSE(initializer(**model, "small").isExternal());
}

TEST(OnnxExternalData, MissingFileIsAnErrorNamingTheTensor) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx", externalModel(folder.path(), "weights.bin", 0, "").SerializeAsString());
  auto model = loadModel(folder / "model.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().toString(),
            "external data file 'weights.bin' not found (looked for " + (folder / "weights.bin").string() +
                "); keep it next to the model (initializer 'big' in graph 'weights')");
}

TEST(OnnxExternalData, ShortFileIsAnError) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx", externalModel(folder.path(), "weights.bin", 64, "").SerializeAsString());
  writeFile(folder / "weights.bin", std::string(1000, 'x'));
  auto model = loadModel(folder / "model.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(
      model.error().toString(),
      "external data file 'weights.bin' is too short: the tensor needs bytes 64..16448, the file has 1000 "
      "(initializer 'big' in graph 'weights')");
}

TEST(OnnxExternalData, LocationsOutsideTheModelsFolderAreRefused) {
  ScratchFolder folder;
  fs::create_directory(folder / "models");
  writeFile(folder / "outside.bin", std::string(16384, 'x'));
  fs::create_symlink(folder / "outside.bin", folder / "models" / "link.bin");
  struct Case {
    std::string location;
    std::string error;
  };
  const Case cases[] = {
      {"../../etc/passwd",
       "external data location '../../etc/passwd' points outside the model's folder; external data must lie "
       "in "
       "the model's folder (initializer 'big' in graph 'weights')"},
      {"../outside.bin",
       "external data location '../outside.bin' points outside the model's folder; external data must lie in "
       "the "
       "model's folder (initializer 'big' in graph 'weights')"},
      {"/etc/passwd",
       "external data location '/etc/passwd' is an absolute path; external data must lie in the model's "
       "folder "
       "(initializer 'big' in graph 'weights')"},
      {"link.bin",
       "external data location 'link.bin' is a link to " + fs::canonical(folder / "outside.bin").string() +
           ", outside the model's folder; external data must lie in the model's folder (initializer "
           "'big' in graph 'weights')"},
  };
  for (const Case& c : cases) {
    writeFile(folder / "models" / "model.onnx",
              externalModel(folder.path(), c.location, 0, "").SerializeAsString());
    auto model = loadModel(folder / "models" / "model.onnx");
    ASSERT_FALSE(model.ok()) << c.location;
    EXPECT_EQ(model.error().toString(), c.error);
  }
}

TEST(OnnxExternalData, ModelsFromMemoryCannotNameExternalData) {
  std::string bytes = externalModel("", "weights.bin", 0, "").SerializeAsString();
  auto model = parseModel(bytes, {}, "pasted");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().toString(),
            "pasted: tensor is stored in external data file 'weights.bin', which needs the model's folder: "
            "load the model "
            "from its file (initializer 'big' in graph 'weights')");
}

TEST(OnnxExternalData, SaveExternalThenInlineRoundTrips) {
  ScratchFolder folder;
  std::string original = twoWeightModel().SerializeAsString();
  writeFile(folder / "in.onnx", original);
  auto model = loadModel(folder / "in.onnx");
  ASSERT_TRUE(model.ok());

  SaveOptions external;
  external.weights = SaveOptions::Weights::External;
  external.externalDataName = "out.weights";
  external.sizeThreshold = 1024;
  auto report = saveModel(**model, folder / "out.onnx", external);
  ASSERT_TRUE(report.ok()) << report.error().toString();
  EXPECT_EQ(report->externalTensors, 1u);
  EXPECT_EQ(report->externalBytes, 16384u);
  EXPECT_EQ(report->externalDataPath, folder / "out.weights");
  EXPECT_TRUE(readFile(folder / "in.onnx") == original) << "the input must not change";

  auto reloaded = loadModel(folder / "out.onnx");
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().toString();
  const Tensor& big = initializer(**reloaded, "big");
  ASSERT_TRUE(big.isExternal());
  EXPECT_EQ(big.externalData()->location, "out.weights");
  EXPECT_EQ(big.externalData()->offset % 64, 0);
  EXPECT_EQ(tensorBytes(big), floatBytes(4096, 0.25f));
  EXPECT_FALSE(initializer(**reloaded, "small").isExternal()) << "32 bytes is under the threshold";
  EXPECT_LT(fs::file_size(folder / "out.onnx"), 1024u);

  SaveOptions inlined;
  inlined.weights = SaveOptions::Weights::Inline;
  auto back = saveModel(**reloaded, folder / "back.onnx", inlined);
  ASSERT_TRUE(back.ok()) << back.error().toString();
  EXPECT_TRUE(back->externalDataPath.empty());
  auto inlineModel = loadModel(folder / "back.onnx");
  ASSERT_TRUE(inlineModel.ok());
  EXPECT_FALSE(initializer(**inlineModel, "big").isExternal());
  EXPECT_EQ(tensorBytes(initializer(**inlineModel, "big")), floatBytes(4096, 0.25f));
  EXPECT_TRUE(readFile(folder / "back.onnx") == original) << "inline again: the same bytes as the original";
}

TEST(OnnxExternalData, KeepInAnotherFolderTakesTheWeightsAlong) {
  ScratchFolder folder;
  fs::create_directory(folder / "a");
  fs::create_directory(folder / "b");
  writeFile(folder / "a" / "model.onnx",
            externalModel(folder / "a", "weights.bin", 0, "weights.bin").SerializeAsString());
  auto model = loadModel(folder / "a" / "model.onnx");
  ASSERT_TRUE(model.ok());

  auto sameFolder = saveModel(**model, folder / "a" / "copy.onnx");
  ASSERT_TRUE(sameFolder.ok()) << sameFolder.error().toString();
  EXPECT_TRUE(sameFolder->externalDataPath.empty()) << "same folder: the existing data file serves both";

  auto elsewhere = saveModel(**model, folder / "b" / "moved.onnx");
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.error().toString();
  EXPECT_EQ(elsewhere->externalDataPath, folder / "b" / "moved.onnx.data");
  fs::remove_all(folder / "a");
  auto moved = loadModel(folder / "b" / "moved.onnx");
  ASSERT_TRUE(moved.ok()) << moved.error().toString();
  EXPECT_EQ(tensorBytes(initializer(**moved, "big")), floatBytes(4096, 0.25f));
}

TEST(OnnxExternalData, RefusesToOverwriteTheWeightsOfTheInput) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx",
            externalModel(folder.path(), "weights.bin", 0, "weights.bin").SerializeAsString());
  std::string weights = readFile(folder / "weights.bin");
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok());
  SaveOptions options;
  options.weights = SaveOptions::Weights::External;
  options.externalDataName = "weights.bin";
  auto saved = saveModel(**model, folder / "other.onnx", options);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().toString(), "the data file " + (folder / "weights.bin").string() +
                                          " holds the weights of " + (folder / "model.onnx").string() +
                                          ", which would be overwritten; choose another external data name");
  EXPECT_TRUE(readFile(folder / "weights.bin") == weights);
  EXPECT_FALSE(fs::exists(folder / "other.onnx"));

  // Saving over the model itself may rewrite its data file: both are replaced atomically.
  auto over = saveModel(**model, folder / "model.onnx", options);
  ASSERT_TRUE(over.ok()) << over.error().toString();
  auto reloaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(tensorBytes(initializer(**reloaded, "big")), floatBytes(4096, 0.25f));
}

TEST(OnnxExternalData, FailedSaveLeavesNoFiles) {
  ScratchFolder folder;
  writeFile(folder / "model.onnx",
            externalModel(folder.path(), "weights.bin", 0, "weights.bin").SerializeAsString());
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok());
  fs::remove(folder / "weights.bin");  // the weights vanish after loading: inlining them must fail cleanly
  SaveOptions inlined;
  inlined.weights = SaveOptions::Weights::Inline;
  auto saved = saveModel(**model, folder / "out.onnx", inlined);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error().toString(),
            "external data file 'weights.bin' cannot be read: cannot open " +
                (folder / "weights.bin").string() +
                ": No such file or directory; keep it next to the model (tensor 'big')");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(folder.path()))
    left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"model.onnx"});
}

}  // namespace
}  // namespace onyx

namespace onyx {
namespace {

TEST(OnnxExternalData, WithoutALengthTheRestOfTheFileMustFit) {
  ScratchFolder folder;
  onnx::ModelProto model = externalModel(folder.path(), "weights.bin", 0, "weights.bin");
  auto* big = model.mutable_graph()->mutable_initializer(0);
  big->mutable_external_data()->RemoveLast();  // drop "length"
  writeFile(folder / "model.onnx", model.SerializeAsString());
  auto loaded = loadModel(folder / "model.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
  EXPECT_EQ(tensorBytes(initializer(**loaded, "big")), floatBytes(4096, 0.25f));

  writeFile(folder / "weights.bin", floatBytes(4096, 0.25f) + "tail");
  auto longer = loadModel(folder / "model.onnx");
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(
      longer.error().toString(),
      "external data without a length runs from byte 0 to the end of 'weights.bin': 16388 bytes, but the "
      "tensor's type and shape need 16384; add a length entry (initializer 'big' in graph 'weights')");
}

// Saved with its weights where they are (Keep, beside the input), a model with external data is written back
// byte for byte, external_data entries included as the file had them: an explicit offset of 0, the keys in
// their own order, a key the IR does not model.
TEST(OnnxExternalData, KeepSavesTheSameBytes) {
  ScratchFolder folder;
  onnx::ModelProto proto = externalModel(folder.path(), "weights.bin", 0, "weights.bin");
  auto* entries = proto.mutable_graph()->mutable_initializer(0)->mutable_external_data();
  entries->SwapElements(1, 2);  // location, length, offset
  auto* extra = entries->Add();
  extra->set_key("basepath");
  extra->set_value(".");
  std::string original = proto.SerializeAsString();
  writeFile(folder / "model.onnx", original);
  auto model = loadModel(folder / "model.onnx");
  ASSERT_TRUE(model.ok()) << model.error().toString();
  auto saved = serializeModel(**model);
  ASSERT_TRUE(saved.ok());
  EXPECT_TRUE(*saved == original);
  ASSERT_TRUE(saveModel(**model, folder / "again.onnx").ok());
  EXPECT_TRUE(readFile(folder / "again.onnx") == original);
  // Elsewhere, the weights follow into a new data file and the entries name it.
  ScratchFolder other;
  ASSERT_TRUE(saveModel(**model, other / "moved.onnx").ok());
  onnx::ModelProto moved;
  ASSERT_TRUE(moved.ParseFromString(readFile(other / "moved.onnx")));
  EXPECT_EQ(moved.graph().initializer(0).external_data(0).value(), "moved.onnx.data");
  EXPECT_EQ(moved.graph().initializer(0).external_data_size(), 3);
}

}  // namespace
}  // namespace onyx
