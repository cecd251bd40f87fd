// Load time and memory per model: `load_bench [--large MB] [MODEL.onnx...]` (default: every model under
// $ONYX_TEST_DATA/models). Each model loads in a fresh child process, so the peak RSS (VmHWM, reset
// through /proc/self/clear_refs) is that model's alone. Baselines in the same run: protobuf's own parse of
// the file (time) and the file size (memory). A copy of the largest model with external data shows what
// loading costs when weights are mapped rather than read.
#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "onnx/onnx_io.h"

namespace fs = std::filesystem;

namespace {

// A field of /proc/self/status in bytes ("VmHWM", "VmRSS").
size_t statusBytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  size_t length = std::strlen(field);
  while (std::getline(status, line))
    if (line.compare(0, length, field) == 0 && line[length] == ':')
      return std::stoull(line.substr(length + 1)) * 1024;
  return 0;
}

void resetPeak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Measurement {
  double protobufSeconds = 0;  // baseline: onnx::ModelProto parse of the file
  double loadSeconds = 0;
  size_t peakDelta = 0;     // VmHWM after loadModel minus VmRSS before
  size_t touchedDelta = 0;  // after reading every initializer's bytes (maps external data)
  bool ok = false;
};

// Runs in a child process; the parent receives the struct through a pipe.
Measurement measure(const fs::path& path) {
  Measurement m;
  {
    // Warm the page cache, then time protobuf's own parse of the file (the baseline).
    std::ifstream warm(path, std::ios::binary);
    std::vector<char> chunk(1 << 20);
    while (warm.read(chunk.data(), std::streamsize(chunk.size())) || warm.gcount() > 0) {
    }
    auto start = std::chrono::steady_clock::now();
    int fd = ::open(path.c_str(), O_RDONLY);
    onnx::ModelProto proto;
    proto.ParseFromFileDescriptor(fd);
    ::close(fd);
    m.protobufSeconds = secondsSince(start);
  }
  resetPeak();
  size_t before = statusBytes("VmRSS");
  auto start = std::chrono::steady_clock::now();
  auto model = onyx::loadModel(path);
  m.loadSeconds = secondsSince(start);
  m.peakDelta = statusBytes("VmHWM") - before;
  if (!model) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), model.error().toString().c_str());
    return m;
  }
  size_t checksum = 0;
  for (onyx::Value* value : (*model)->graph().initializers())
    for (std::byte b : value->initializer()->bytesOrEmpty()) checksum += size_t(b);
  m.touchedDelta = statusBytes("VmHWM") - before + (checksum == 1 ? 1 : 0);
  m.ok = true;
  return m;
}

Measurement measureInChild(const fs::path& path) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    Measurement m = measure(path);
    ssize_t written = ::write(fds[1], &m, sizeof m);
    ::_exit(written == ssize_t(sizeof m) ? 0 : 1);
  }
  ::close(fds[1]);
  Measurement m;
  if (::read(fds[0], &m, sizeof m) != ssize_t(sizeof m)) m.ok = false;
  ::close(fds[0]);
  ::waitpid(child, nullptr, 0);
  return m;
}

double mb(size_t bytes) {
  return double(bytes) / (1024.0 * 1024.0);
}

// `fixedPeak`: the peak of loading a model with no weights (code pages and allocator set-up), which the
// "net" ratio leaves out.
void printRow(const std::string& name, size_t fileSize, const Measurement& m, size_t fixedPeak) {
  if (!m.ok) {
    std::printf("%-38s failed to load\n", name.c_str());
    return;
  }
  double net = double(m.peakDelta > fixedPeak ? m.peakDelta - fixedPeak : 0) / double(fileSize);
  std::printf("%-38s %8.1f %8.1f %8.1f %6.2fx %8.1f %6.2fx %6.2fx %9.1f\n", name.c_str(), mb(fileSize),
              m.protobufSeconds * 1e3, m.loadSeconds * 1e3, m.loadSeconds / m.protobufSeconds,
              mb(m.peakDelta), double(m.peakDelta) / double(fileSize), net, mb(m.touchedDelta));
}

fs::path writeEmptyModel(const fs::path& folder) {
  onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  auto* graph = proto.mutable_graph();
  graph->set_name("empty");
  graph->add_input()->set_name("x");
  auto* node = graph->add_node();
  node->set_op_type("Identity");
  node->add_input("x");
  node->add_output("y");
  graph->add_output()->set_name("y");
  fs::path path = folder / "empty.onnx";
  std::ofstream out(path, std::ios::binary);
  proto.SerializeToOstream(&out);
  return path;
}

// A model with one float tensor of `megabytes`, written inline (for strings over protobuf's 50 MB
// reservation step).
fs::path writeLargeModel(const fs::path& folder, size_t megabytes) {
  onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  auto* graph = proto.mutable_graph();
  graph->set_name("large");
  auto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(int64_t(megabytes * 1024 * 1024 / 4));
  w->mutable_raw_data()->assign(megabytes * 1024 * 1024, '\x01');
  auto* node = graph->add_node();
  node->set_op_type("Identity");
  node->add_input("w");
  node->add_output("y");
  graph->add_output()->set_name("y");
  fs::path path = folder / ("large_" + std::to_string(megabytes) + "mb.onnx");
  std::ofstream out(path, std::ios::binary);
  proto.SerializeToOstream(&out);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> models;
  size_t largeMegabytes = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--large" && i + 1 < argc)
      largeMegabytes = std::stoul(argv[++i]);
    else
      models.emplace_back(argv[i]);
  }
  const char* dataEnv = std::getenv("ONYX_TEST_DATA");
  fs::path data = dataEnv && *dataEnv ? fs::path(dataEnv) : fs::path(ONYX_DEFAULT_TEST_DATA);
  if (models.empty() && fs::exists(data / "models"))
    for (const auto& entry : fs::directory_iterator(data / "models"))
      if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path() / "model.onnx");
  std::sort(models.begin(), models.end());

  fs::path scratch = fs::temp_directory_path() / ("onyx-load-bench-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  if (largeMegabytes > 0) models.push_back(writeLargeModel(scratch, largeMegabytes));

  std::printf("%-38s %8s %8s %8s %7s %8s %7s %7s %9s\n", "model", "file MB", "pb ms", "load ms", "/pb",
              "peak MB", "/file", "net", "+touch MB");
  fs::path empty = writeEmptyModel(scratch);
  Measurement fixed = measureInChild(empty);
  size_t fixedPeak = fixed.ok ? fixed.peakDelta : 0;
  printRow("(fixed cost: a model without weights)", fs::file_size(empty), fixed, fixedPeak);
  fs::path largest;
  for (const fs::path& path : models) {
    std::string name = path.parent_path().filename().string();
    if (name.empty() || path.filename() != "model.onnx") name = path.filename().string();
    size_t size = fs::file_size(path);
    if (path.filename() == "model.onnx" && (largest.empty() || size > fs::file_size(largest))) largest = path;
    printRow(name, size, measureInChild(path), fixedPeak);
  }

  if (!largest.empty()) {
    auto model = onyx::loadModel(largest);
    onyx::SaveOptions options;
    options.weights = onyx::SaveOptions::Weights::External;
    options.externalDataName = "model.onnx.data";
    if (model && onyx::saveModel(**model, scratch / "model.onnx", options)) {
      size_t total = fs::file_size(scratch / "model.onnx") + fs::file_size(scratch / "model.onnx.data");
      printRow(largest.parent_path().filename().string() + " (external data)", total,
               measureInChild(scratch / "model.onnx"), fixedPeak);
    }
  }
  fs::remove_all(scratch);
  std::printf(
      "pb ms: protobuf's parse of the same file (baseline); peak MB: peak RSS growth while loading;\n"
      "net: (peak - fixed cost) / file size; +touch MB: peak after also reading every initializer\n"
      "(external data is mapped then).\n");
  return 0;
}
