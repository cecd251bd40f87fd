// libFuzzer entry for `onyx run --random`: any bytes that load as a model run on the CPU backend with random
// inputs, every symbolic input dim bound to a small size. Loading, planning or running may fail with an
// error (unsupported ops, inconsistent shapes, sizes over the limits), never crash. The resource limits are
// set low (util/limits.h reads them once) so that a model asking for a huge tensor meets the limit, not the
// fuzzer's memory cap. A model whose nodes would take more than kMaxRunWork (the static estimate, inferred
// shapes with the symbols bound) is planned but not run: the fuzzer looks for memory errors and wrong
// handling, and a legitimately heavy kernel takes longer than libFuzzer's timeout under ASan, which would end
// the campaign as if it hung: a 5x5x5 AveragePool over 65 x 32^3 values (178 M window reads), and at 20 M a
// dilated 5x5x5 MaxPool of 96 x 32^3 values (8.7 M window reads: 7.4 s of CPU under ASan in the generic
// N-d reference kernel, 45 s of wall time with a build beside it; 0.3 s in a release build). Ops that only
// move or compare data count zero FLOPs, so each node also counts the elements it reads and writes: a
// Unique of 2.8 M random floats (one input of a 390-byte file) took 12 s under ASan.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "exec/executor.h"
#include "onnx/onnx_io.h"
#include "profile/static_flops.h"
#include "shapes/shape_inference.h"

namespace {

constexpr int64_t kBoundSymbolSize = 2;
constexpr int64_t kMaxRunWork = 2'000'000;

// Elements of a value whose shape is known (inferred, else declared); 0 otherwise, saturating.
int64_t knownElements(const onyx::Value* value, const onyx::ShapeInference& shapes) {
  if (!value) return 0;
  const onyx::InferredValue* inferred = shapes.find(value);
  const onyx::Type& type = inferred ? inferred->type : value->type();
  if (!type.isTensor() || !type.shape()) return 0;
  int64_t count = 1;
  for (const onyx::Dim& dim : *type.shape()) {
    const auto size = dim.value();
    if (!size || *size < 0) return 0;
    if (*size != 0 && count > kMaxRunWork / *size) return kMaxRunWork + 1;
    count *= *size;
  }
  return count;
}

// The main graph's estimated work: FLOPs plus the elements each node reads and writes, saturating (dims near
// the limits multiply past int64), from the shapes of the inputs the run gets: a dim the file leaves unknown
// is 1 in a random input, and inferred from the declared shape it made every node after it not static, so
// estimated 0 (fuzz_run: a 60x80 MaxPool over [1, ?, 1000, 1000] ran for seconds under ASan).
int64_t estimatedRunWork(const onyx::Model& model, const onyx::SymBindings& bindings,
                         const onyx::exec::NamedValues& inputs) {
  onyx::ShapeInferenceOptions options;
  options.bindings = bindings;
  for (const auto& [name, value] : inputs) {
    if (!onyx::exec::isTensor(value)) continue;
    const onyx::exec::TensorValue& tensor = std::get<onyx::exec::TensorValue>(value);
    options.inputTypes[name] =
        onyx::Type::tensor(tensor.dtype(), onyx::Shape(tensor.dims().begin(), tensor.dims().end()));
  }
  const onyx::ShapeInference shapes = onyx::inferShapes(model, options);
  int64_t total = 0;
  for (const onyx::Node* node : model.graph().nodes()) {
    int64_t work = onyx::profile::estimateFlops(*node, shapes);  // saturates at the int64 maximum
    if (work < 0 || work > kMaxRunWork) return kMaxRunWork + 1;
    for (const onyx::Value* value : node->inputs()) work += knownElements(value, shapes);
    for (const onyx::Value* value : node->outputs()) work += knownElements(value, shapes);
    if (work < 0 || work > kMaxRunWork || total + work > kMaxRunWork) return kMaxRunWork + 1;
    total += work;
  }
  return total;
}

uint64_t seedFrom(const uint8_t* data, size_t size) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a: the same bytes give the same inputs (reproducible)
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  return hash;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("ONYX_MAX_TENSOR_BYTES", "16777216", 1);  // 16 MiB per tensor
  setenv("ONYX_MAX_RUN_BYTES", "67108864", 1);     // 64 MiB per run
  setenv("ONYX_MAX_LOOP_ITERATIONS", "10000", 1);  // a data-driven trip count errs in well under the timeout
  setenv("OMP_NUM_THREADS", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = onyx::parseModel(bytes, {}, "fuzz input");
  if (!model) return 0;
  const onyx::Model& loaded = **model;

  onyx::SymBindings bindings;
  for (const onyx::Value* input : loaded.graph().inputs()) {
    if (!input->type().isTensor() || !input->type().shape()) continue;
    for (const onyx::Dim& dim : *input->type().shape())
      if (dim.isSymbolic())
        for (const std::string& symbol : dim.expr().symbols()) bindings.emplace(symbol, kBoundSymbolSize);
  }
  onyx::exec::NamedValues inputs;
  uint64_t seed = seedFrom(data, size);
  for (const onyx::Value* input : loaded.graph().inputs()) {
    if (input->isInitializer()) continue;
    auto value = onyx::exec::randomInput(*input, bindings, seed++);
    if (!value) return 0;  // a sequence input, or a size over the limit: an error, as the CLI reports it
    inputs.push_back({input->name(), std::move(*value)});
  }

  onyx::exec::ExecutorOptions options;
  options.backends = {"cpu"};
  options.threads = 1;
  options.arenaLimitBytes = 64 << 20;
  auto executor = onyx::exec::Executor::create(loaded, options);
  if (!executor) return 0;
  if (estimatedRunWork(loaded, bindings, inputs) > kMaxRunWork) return 0;
  (void)(*executor)->run(inputs);
  return 0;
}
