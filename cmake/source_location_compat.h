// Force-included by clang builds older than clang 15 (the sanitizer and fuzz builds, packaging/sanitize.sh):
// libstdc++ 12 defines std::source_location only for compilers with __builtin_source_location, which clang
// 14 lacks, so the engine's registries (which name the file that registered each op and kernel) would not
// compile. The class is built here from the older builtins, which also name the caller when used in default
// arguments. GCC and newer clang never see this file.
#pragma once
#include <version>

#if !defined(__cpp_lib_source_location) && !__has_builtin(__builtin_source_location)
#include <cstdint>
namespace std {
struct source_location {
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           uint_least32_t line = __builtin_LINE()) noexcept {
    source_location where;
    where.file_ = file;
    where.function_ = function;
    where.line_ = line;
    return where;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr uint_least32_t line() const noexcept { return line_; }
  constexpr uint_least32_t column() const noexcept { return 0; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  uint_least32_t line_ = 0;
};
}  // namespace std
#endif
