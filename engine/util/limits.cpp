#include "util/limits.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace onyx {

std::optional<int64_t> checkedElementCount(std::span<const int64_t> dims) {
  for (int64_t d : dims)
    if (d < 0) return std::nullopt;
  int64_t count = 1;
  bool overflowed = false;
  for (int64_t d : dims) {
    if (d == 0) return 0;  // a zero dim makes the product 0 whatever the others are
    if (!overflowed) {
      auto next = checkedMul(count, d);
      if (next)
        count = *next;
      else
        overflowed = true;
    }
  }
  if (overflowed) return std::nullopt;
  return count;
}

namespace {

std::optional<int64_t> positiveInteger(const char* text) {
  if (!text || !*text) return std::nullopt;
  int64_t value = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || value <= 0) return std::nullopt;
  return value;
}

int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return int64_t(8) << 30;  // unknown: assume a small 8 GiB machine
  return checkedMul(pages, pageSize).value_or(INT64_MAX);
}

std::string dimsText(std::span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

}  // namespace

ResourceLimits defaultResourceLimits(int64_t physicalBytes, const char* maxTensorBytesOverride,
                                     const char* maxRunBytesOverride, const char* maxLoopIterationsOverride) {
  ResourceLimits limits;
  limits.maxTensorBytes =
      positiveInteger(maxTensorBytesOverride).value_or(std::max<int64_t>(physicalBytes / 2, 1));
  limits.maxRunBytes = positiveInteger(maxRunBytesOverride).value_or(std::max<int64_t>(physicalBytes, 1));
  limits.maxShapeLength = 4096;
  limits.maxNestingDepth = 24;
  limits.maxLoopIterations = positiveInteger(maxLoopIterationsOverride).value_or(100000000);
  return limits;
}

Expected<void> checkLimitOverrides() {
  for (std::string_view name : {kMaxTensorBytesEnv, kMaxRunBytesEnv, kMaxLoopIterationsEnv}) {
    const char* text = std::getenv(std::string(name).c_str());
    if (text && !positiveInteger(text))
      return makeError("'" + std::string(text) + "' is not a positive whole number" +
                           (name == kMaxLoopIterationsEnv ? "" : " of bytes") + " (as in " + std::string(name) +
                           "=1000000000); unset it for the default",
                       std::string(name));
  }
  return {};
}

const ResourceLimits& resourceLimits() {
  static const ResourceLimits limits =
      defaultResourceLimits(physicalMemoryBytes(), std::getenv(std::string(kMaxTensorBytesEnv).c_str()),
                            std::getenv(std::string(kMaxRunBytesEnv).c_str()),
                            std::getenv(std::string(kMaxLoopIterationsEnv).c_str()));
  return limits;
}

Expected<int64_t> checkTensorSize(std::span<const int64_t> dims, int64_t elementBytes, std::string_view what,
                                  std::string where) {
  for (int64_t d : dims) {
    if (d < 0)
      return makeError(std::string(what) + " has a negative dimension " + std::to_string(d) + " in " +
                           dimsText(dims) + "; dimensions must be 0 or more",
                       std::move(where));
  }
  auto count = checkedElementCount(dims);
  if (!count)
    return makeError(std::string(what) + " asks for a tensor of " + dimsText(dims) +
                         ", whose element count does not fit in 64 bits; use smaller sizes",
                     std::move(where));
  const int64_t limit = resourceLimits().maxTensorBytes;
  if (*count == 0) {
    // An empty tensor holds nothing, but kernels size their scratch from its other dims (a TopK row of
    // [0, 2^40], a Resize tap table): those dims get the same limit as a tensor's elements.
    int64_t span = 1;
    for (int64_t d : dims)
      if (d > 0) span = checkedMul(span, d).value_or(std::numeric_limits<int64_t>::max());
    if (auto spanBytes = checkedMul(span, std::max<int64_t>(elementBytes, 1)); !spanBytes || *spanBytes > limit)
      return makeError(std::string(what) + " asks for an empty tensor of " + dimsText(dims) +
                           " whose other dimensions span " + std::to_string(span) + " elements, over the limit of " +
                           std::to_string(limit) + " bytes per tensor; use smaller sizes or raise the limit with " +
                           std::string(kMaxTensorBytesEnv),
                       std::move(where));
    return 0;
  }
  auto bytes = checkedMul(*count, std::max<int64_t>(elementBytes, 1));
  if (!bytes || *bytes > limit) {
    std::string size = bytes ? std::to_string(*bytes) + " bytes" : "more than 2^63 bytes";
    return makeError(
        std::string(what) + " asks for a tensor of " + dimsText(dims) + ": " + std::to_string(*count) +
            " elements, " + size + ", over the limit of " + std::to_string(limit) +
            " bytes per tensor; use smaller sizes or raise the limit with " + std::string(kMaxTensorBytesEnv),
        std::move(where));
  }
  return *bytes;
}

bool tensorSizeFits(std::span<const int64_t> dims, int64_t elementBytes) {
  for (int64_t d : dims)
    if (d <= 0) return false;
  auto count = checkedElementCount(dims);
  auto bytes = count ? checkedMul(*count, std::max<int64_t>(elementBytes, 1)) : std::nullopt;
  return bytes && *bytes <= resourceLimits().maxTensorBytes;
}

Expected<void> checkShapeLength(int64_t length, std::string_view what, std::string where) {
  const int64_t limit = resourceLimits().maxShapeLength;
  if (length < 0 || length > limit)
    return makeError(std::string(what) + " is declared with " + std::to_string(length) +
                         " elements, over the limit of " + std::to_string(limit) +
                         " for a shape (it gives the output's rank); declare the shape input's real length",
                     std::move(where));
  return {};
}

}  // namespace onyx
