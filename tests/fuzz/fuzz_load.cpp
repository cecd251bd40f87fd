// libFuzzer entry: any bytes given to the loader give a model or an error, never a crash, and what loads
// saves, reloads and saves again to the same bytes. Built with -fsanitize=fuzzer,address under ONYX_FUZZ;
// without it the same function runs over a seeded corpus of mutated models (fuzz_corpus_test.cpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ir/verify.h"
#include "onnx/onnx_io.h"

namespace {

[[noreturn]] void invariantBroken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_load: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto model = onyx::parseModel(bytes, {}, "fuzz input");
  if (!model) {
    if (model.error().message.empty()) invariantBroken("an error without a message", "");
    return 0;
  }
  onyx::verify(**model);
  (void)onyx::printModelText(**model);
  auto saved = onyx::serializeModel(**model);
  if (!saved) return 0;  // e.g. a tensor the IR cannot write back; an error, not a crash
  auto reloaded = onyx::parseModel(*saved, {}, "saved fuzz input");
  if (!reloaded) invariantBroken("a saved model does not load again", reloaded.error().toString());
  auto savedAgain = onyx::serializeModel(**reloaded);
  if (!savedAgain) invariantBroken("a reloaded model does not save", savedAgain.error().toString());
  if (*savedAgain != *saved) invariantBroken("save is not stable", "load(save(m)) saves differently");
  return 0;
}
