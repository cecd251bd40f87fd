#include "ir/module_path.h"


namespace onyx {
namespace {

constexpr std::string_view kNameScopesKey = "pkg.torch.onnx.name_scopes";
constexpr std::string_view kNamespaceKey = "namespace";

// Cumulative names ("model", "model.layers.0") from the root module's child down to the module holding
// the node (the node's own entry already dropped) -> "/model/layers.0".
std::string pathFromCumulativeNames(const std::vector<std::string>& names) {
  std::string path;
  std::string_view previous;
  for (const std::string& name : names) {
    if (name.empty()) continue;
    std::string_view relative = name;
    if (!previous.empty() && relative.size() > previous.size() + 1 && relative.starts_with(previous) &&
        relative[previous.size()] == '.') {
      relative.remove_prefix(previous.size() + 1);
    }
    path += '/';
    path += relative;
    previous = name;
  }
  return path;
}

// "namespace": "<name>: <class>" per module, separated by '/', the root's name empty, the node last.
std::vector<std::string> namesFromNamespace(std::string_view text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(start, end - start);
    size_t colon = entry.find(':');
    names.emplace_back(entry.substr(0, colon));
    start = end + 1;
  }
  return names;
}

}  // namespace

std::optional<std::vector<std::string>> parsePythonStringList(std::string_view text) {
  size_t i = 0;
  auto skipSpaces = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t')) ++i;
  };
  skipSpaces();
  if (i >= text.size() || text[i] != '[') return std::nullopt;
  ++i;
  std::vector<std::string> items;
  for (;;) {
    skipSpaces();
    if (i < text.size() && text[i] == ']') return items;
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) return std::nullopt;
    char quote = text[i++];
    std::string item;
    while (i < text.size() && text[i] != quote) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      item += text[i++];
    }
    if (i >= text.size()) return std::nullopt;
    ++i;  // closing quote
    items.push_back(std::move(item));
    skipSpaces();
    if (i < text.size() && text[i] == ',') {
      ++i;
    } else if (i >= text.size() || text[i] != ']') {
      return std::nullopt;
    }
  }
}

std::optional<std::string> modulePathFromMetadata(const std::vector<StringPair>& metadata) {
  std::optional<std::vector<std::string>> names;
  for (const StringPair& entry : metadata) {
    if (entry.key == kNameScopesKey) names = parsePythonStringList(entry.value);
  }
  if (!names) {
    for (const StringPair& entry : metadata) {
      if (entry.key == kNamespaceKey) names = namesFromNamespace(entry.value);
    }
  }
  if (!names || names->empty()) return std::nullopt;
  names->pop_back();  // the node's own (FX node) name
  return pathFromCumulativeNames(*names);
}

std::string scopePathOf(const Node& node) {
  if (node.modulePath()) return *node.modulePath();
  return std::string(node.scopePath());
}

}  // namespace onyx
