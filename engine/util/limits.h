#pragma once
// One resource policy for everything that sizes memory from a model or its inputs: declared input dims,
// `--bind` values, shape-carrying tensors and outputs sized from data (Expand, OneHot, Tile,
// ConstantOfShape). Sizes are checked here, with overflow-checked arithmetic, before anything is allocated,
// so a hostile or mistaken model gets an error naming the size it asked for and the limit instead of
// bad_alloc or a heap overrun.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace onyx {

// a * b, a + b, a - b; nullopt when the exact result does not fit in int64. Inline on GCC's and Clang's
// builtins: symbolic dims check every coefficient with them.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
  return result;
}
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
  return result;
}
inline std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_sub_overflow(a, b, &result)) return std::nullopt;
  return result;
}
// The product of `dims`; nullopt when a dim is negative or the product overflows int64.
std::optional<int64_t> checkedElementCount(std::span<const int64_t> dims);

struct ResourceLimits {
  int64_t maxTensorBytes = 0;  // one tensor (one allocation)
  int64_t maxRunBytes = 0;     // a run's planned arena
  int64_t maxShapeLength = 0;  // elements of a shape-carrying tensor (the rank it gives), checked by shapes
  // Levels of If/Loop/Scan bodies inside bodies and of model-local function calls (ir/nesting.h), checked
  // when a model loads and before shapes, the executor and the passes walk it recursively.
  int64_t maxNestingDepth = 0;
  // Iterations of one Loop node in one run: a trip count or condition computed from data can ask for billions.
  int64_t maxLoopIterations = 0;
};

// The environment variables that override the defaults (bytes; a plain decimal integer).
inline constexpr std::string_view kMaxTensorBytesEnv = "ONYX_MAX_TENSOR_BYTES";
inline constexpr std::string_view kMaxRunBytesEnv = "ONYX_MAX_RUN_BYTES";
// Iterations; default 100,000,000 (the fuzz targets set a few thousand, so a data-driven trip count is an
// error in well under their 30 s timeout instead of a hang).
inline constexpr std::string_view kMaxLoopIterationsEnv = "ONYX_MAX_LOOP_ITERATIONS";

// Defaults for a machine with `physicalBytes` of memory: a tensor may take half of it, a run all of it (what
// does not fit would only swap or be killed), a shape-carrying tensor 4096 elements (ONNX ranks are small; a
// longer one is a malformed model, not a real shape), nesting 24 levels (protobuf's own recursion limit of
// 100 messages stops a file at about 30 body levels; real models nest 2 or 3), 100,000,000 Loop iterations.
// Override values that are not positive integers are ignored.
ResourceLimits defaultResourceLimits(int64_t physicalBytes, const char* maxTensorBytesOverride,
                                     const char* maxRunBytesOverride, const char* maxLoopIterationsOverride = nullptr);
// An error naming the variable when one of the ONYX_MAX_* variables above is set but not a positive
// integer (`lots`, `-5`, `1e9`), which defaultResourceLimits would ignore: the CLI checks it first, so a
// mistyped limit is not silently the machine's default.
Expected<void> checkLimitOverrides();
// The process-wide policy: physical memory and the environment, read once.
const ResourceLimits& resourceLimits();

// Checks a tensor of `dims` whose elements take `elementBytes` each against the policy and returns its byte
// size. The error's message says what `what` (e.g. "output 0", "input 'x'") asked for, the limit and what to
// do; `where` becomes the error's location (the node or input).
Expected<int64_t> checkTensorSize(std::span<const int64_t> dims, int64_t elementBytes, std::string_view what,
                                  std::string where);
// Whether checkTensorSize passes a tensor with at least one element, without its message's strings (an
// executor asks for every output of every run). False for an empty one: checkTensorSize decides those.
bool tensorSizeFits(std::span<const int64_t> dims, int64_t elementBytes);
// Checks the length of a shape-carrying tensor (Reshape's shape, Expand's shape, ConstantOfShape's input).
Expected<void> checkShapeLength(int64_t length, std::string_view what, std::string where);

}  // namespace onyx
