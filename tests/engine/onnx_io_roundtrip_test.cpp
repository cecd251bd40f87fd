// Every model of the shared corpus survives load + save: the saved ModelProto equals the file's, field by
// field (MessageDifferencer, with unset fields equal to their defaults, NaN equal to NaN).
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> modelsUnder(const fs::path& folder) {
  std::vector<fs::path> models;
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == ".onnx") models.push_back(entry.path());
  std::sort(models.begin(), models.end());
  return models;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Empty when the model round-trips; otherwise what differs (shortened).
std::string roundTripDifference(const fs::path& path) {
  onnx::ModelProto original;
  if (!original.ParseFromString(readFile(path))) return "protobuf cannot parse the original";
  auto model = loadModel(path);
  if (!model) return "load: " + model.error().toString();
  auto bytes = serializeModel(**model);
  if (!bytes) return "save: " + bytes.error().toString();
  onnx::ModelProto saved;
  if (!saved.ParseFromString(*bytes)) return "protobuf cannot parse the saved model";
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  differencer.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  std::string report;
  differencer.ReportDifferencesToString(&report);
  if (differencer.Compare(original, saved)) return {};
  return report.size() > 600 ? report.substr(0, 600) + "..." : report;
}

void expectCorpusRoundTrips(const fs::path& folder) {
  auto models = modelsUnder(folder);
  ASSERT_FALSE(models.empty()) << "no .onnx files under " << folder;
  std::string failures;
  size_t failed = 0;
  for (const fs::path& path : models) {
    std::string difference = roundTripDifference(path);
    if (difference.empty()) continue;
    ++failed;
    failures += fs::relative(path, folder).string() + ": " + difference + "\n";
  }
  std::cout << "[ round trip ] " << models.size() - failed << " of " << models.size() << " models under " << folder
            << " round-trip\n";
  EXPECT_EQ(failed, 0u) << failures;
}

TEST(OnnxRoundTrip, BackendNodeTests) {
  ONYX_REQUIRE_SHARED(folder, "onnx-backend-data/node");
  expectCorpusRoundTrips(folder);
}

TEST(OnnxRoundTrip, BackendPytorchConvertedTests) {
  ONYX_REQUIRE_SHARED(folder, "onnx-backend-data/pytorch-converted");
  expectCorpusRoundTrips(folder);
}

TEST(OnnxRoundTrip, BackendPytorchOperatorTests) {
  ONYX_REQUIRE_SHARED(folder, "onnx-backend-data/pytorch-operator");
  expectCorpusRoundTrips(folder);
}

TEST(OnnxRoundTrip, BackendSimpleTests) {
  ONYX_REQUIRE_SHARED(folder, "onnx-backend-data/simple");
  expectCorpusRoundTrips(folder);
}

TEST(OnnxRoundTrip, ExportedModels) {
  ONYX_REQUIRE_SHARED(folder, "models");
  expectCorpusRoundTrips(folder);
}

}  // namespace
}  // namespace onyx
