// Mapped weights (LoadOptions::mapWeights): inline initializers of 1 MiB or more stay in a map of the model
// file instead of being copied. They read the same bytes as a copying load, save back byte for byte, and an
// embedding table read only by Gather runs from the mapping, unaligned start included.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "exec/executor.h"
#include "onnx_io_test_support.h"

namespace onyx {
namespace {

using testing::readFile;
using testing::ScratchFolder;

constexpr int kRows = 1024, kWidth = 300;  // 1.2 MB of float32: over the 1 MiB the loader maps

// y = Gather(table, ids): a table of kRows x kWidth floats (row r, column c holds r + c / 1000), stored
// after a name of `pad` bytes so that the test can place its raw_data at any offset.
onnx::ModelProto gatherModel(size_t pad) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto* graph = model.mutable_graph();
  graph->set_name(std::string(pad, 'g'));
  auto* ids = graph->add_input();
  ids->set_name("ids");
  ids->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  ids->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  auto* table = graph->add_initializer();
  table->set_name("table");
  table->set_data_type(onnx::TensorProto::FLOAT);
  table->add_dims(kRows);
  table->add_dims(kWidth);
  std::string raw(size_t(kRows) * kWidth * sizeof(float), '\0');
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kWidth; ++c) {
      const float value = float(r) + float(c) / 1000.0f;
      std::memcpy(raw.data() + (size_t(r) * kWidth + size_t(c)) * sizeof(float), &value, sizeof(float));
    }
  table->set_raw_data(raw);
  auto* gather = graph->add_node();
  gather->set_op_type("Gather");
  gather->add_input("table");
  gather->add_input("ids");
  gather->add_output("y");
  graph->add_output()->set_name("y");
  return model;
}

// Where the table's raw_data starts in the serialized model.
size_t rawDataOffset(const std::string& bytes) {
  std::string prefix(sizeof(float), '\0');
  const float first = 0.0f, second = 0.001f;
  std::memcpy(prefix.data(), &first, sizeof(float));
  std::string pattern = prefix;
  pattern.append(reinterpret_cast<const char*>(&second), sizeof(float));
  return bytes.find(pattern);
}

// Whether `address` lies in a mapping of `file` (/proc/self/maps).
bool inMappingOf(const void* address, const std::filesystem::path& file) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto at = reinterpret_cast<uintptr_t>(address);
  const std::string name = std::filesystem::canonical(file).string();
  while (std::getline(maps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) != 2) continue;
    if (at >= begin && at < end) return line.size() >= name.size() && line.ends_with(name);
  }
  return false;
}

TEST(MappedWeights, LargeInlineWeightsStayInTheFileAndSaveBackUnchanged) {
  ScratchFolder folder;
  const auto path = folder / "table.onnx";
  std::ofstream(path, std::ios::binary) << gatherModel(3).SerializeAsString();
  auto copied = loadModel(path);
  auto mapped = loadModel(path, LoadOptions{.mapWeights = true});
  ASSERT_TRUE(copied.ok()) << copied.error().toString();
  ASSERT_TRUE(mapped.ok()) << mapped.error().toString();
  const Tensor& a = *(*copied)->graph().initializers()[0]->initializer();
  const Tensor& b = *(*mapped)->graph().initializers()[0]->initializer();
  ASSERT_EQ(a.byteSize(), b.byteSize());
  EXPECT_EQ(std::memcmp(a.bytesOrEmpty().data(), b.bytesOrEmpty().data(), a.byteSize()), 0);
  EXPECT_TRUE(inMappingOf(b.bytesOrEmpty().data(), path));
  EXPECT_FALSE(inMappingOf(a.bytesOrEmpty().data(), path));
  // Saved without edits: the same bytes as the file it came from.
  auto saved = saveModel(**mapped, folder / "again.onnx");
  ASSERT_TRUE(saved.ok()) << saved.error().toString();
  EXPECT_EQ(readFile(folder / "again.onnx"), readFile(path));
}

TEST(MappedWeights, GatherReadsAnUnalignedMappedTable) {
  ScratchFolder folder;
  const auto path = folder / "table.onnx";
  // Names of 0-7 bytes move the table's start through every alignment; some land off a float boundary.
  int unaligned = 0;
  for (size_t pad = 0; pad < 8; ++pad) {
    const std::string bytes = gatherModel(pad).SerializeAsString();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    const size_t offset = rawDataOffset(bytes);
    ASSERT_NE(offset, std::string::npos);
    unaligned += offset % sizeof(float) != 0;
    auto model = loadModel(path, LoadOptions{.mapWeights = true});
    ASSERT_TRUE(model.ok()) << model.error().toString();
    auto executor = exec::Executor::create(**model);
    ASSERT_TRUE(executor.ok()) << executor.error().toString();
    exec::TensorValue ids = exec::TensorValue::allocate(DataType::Int64, {3});
    const int64_t rows[3] = {7, kRows - 1, 0};
    std::memcpy(ids.raw(), rows, sizeof(rows));
    auto out = (*executor)->run({{"ids", ids}});
    ASSERT_TRUE(out.ok()) << out.error().toString();
    const auto& y = std::get<exec::TensorValue>((*out)[0]);
    ASSERT_EQ(y.dims(), (exec::Dims{3, kWidth}));
    for (int j = 0; j < 3; ++j)
      for (int c = 0; c < kWidth; c += 37)
        EXPECT_EQ(y.data<float>()[j * kWidth + c], float(rows[j]) + float(c) / 1000.0f)
            << "pad " << pad << " row " << rows[j] << " column " << c;
  }
  EXPECT_GT(unaligned, 0) << "no name length put the table off a float boundary";
}

}  // namespace
}  // namespace onyx
