#include "analysis/bindings_text.h"

#include <cctype>
#include <charconv>

namespace onyx {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

Expected<SymBindings> parseBindingsText(std::string_view text) {
  SymBindings bindings;
  while (!trimmed(text).empty()) {
    size_t separator = text.find_first_of(",;");
    std::string_view entry = trimmed(text.substr(0, separator));
    text = separator == std::string_view::npos ? std::string_view() : text.substr(separator + 1);
    if (entry.empty()) continue;
    size_t equals = entry.find('=');
    std::string_view name = equals == std::string_view::npos ? entry : trimmed(entry.substr(0, equals));
    std::string_view size =
        equals == std::string_view::npos ? std::string_view() : trimmed(entry.substr(equals + 1));
    int64_t value = -1;
    auto [end, status] = std::from_chars(size.data(), size.data() + size.size(), value);
    if (name.empty() || size.empty() || status != std::errc() || end != size.data() + size.size() ||
        value < 0)
      return makeError("expected NAME=SIZE with a size >= 0 (as in `batch=1, seq=128`), got '" +
                       std::string(entry) + "'");
    auto [it, added] = bindings.emplace(std::string(name), value);
    if (!added && it->second != value)
      return makeError("'" + std::string(name) + "' is bound twice, to " + std::to_string(it->second) + " and " +
                       std::to_string(value));
  }
  return bindings;
}

std::string bindingsText(const SymBindings& bindings) {
  std::string text;
  for (const auto& [name, value] : bindings)
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}

}  // namespace onyx
