// constant-deduplication: initializers with the same type, dims and bytes become one value (the first in
// file order); the others' readers use it and the copies are removed. Candidates are grouped by a hash of
// their contents, then compared byte for byte.
#include <functional>
#include <string_view>
#include <unordered_map>

#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

size_t contentHash(const Tensor& tensor) {
  size_t hash = std::hash<int>()(int(tensor.dtype()));
  for (int64_t d : tensor.dims()) hash = hash * 1000003u ^ std::hash<int64_t>()(d);
  if (tensor.dtype() == DataType::String) {
    for (const std::string& s : tensor.stringValues()) hash = hash * 1000003u ^ std::hash<std::string>()(s);
  } else {
    auto bytes = tensor.bytesOrEmpty();
    hash = hash * 1000003u ^
           std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return hash;
}

bool sameContents(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims()) return false;
  if (a.dtype() == DataType::String) return a.stringValues() == b.stringValues();
  auto x = a.bytesOrEmpty();
  auto y = b.bytesOrEmpty();
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}

}  // namespace

Expected<bool> ConstantDeduplication::run(PassContext& context) {
  bool changed = false;
  Rewriter& rewriter = context.rewriter();
  for (Graph* graph : allGraphs(context.model())) {
    std::unordered_multimap<size_t, Value*> byHash;
    std::vector<Value*> initializers = graph->initializers();
    for (Value* value : initializers) {
      const Tensor* tensor = fixedInitializer(value);
      if (!tensor || value->uses().empty()) continue;
      if (!tensor->isExternal() || tensor->bytes()) {
        size_t hash = contentHash(*tensor);
        Value* original = nullptr;
        auto [begin, end] = byHash.equal_range(hash);
        for (auto it = begin; it != end && !original; ++it)
          if (sameContents(*it->second->initializer(), *tensor)) original = it->second;
        if (!original) {
          byHash.emplace(hash, value);
          continue;
        }
        // Only readers within the scope move; a graph output keeps its own value and name.
        bool allMoved = true;
        int moved = 0;
        std::vector<Use> uses = value->uses();
        for (const Use& use : uses) {
          if (!use.node || !context.inScope(*use.node)) {
            allMoved = false;
            continue;
          }
          rewriter.setInput(use.node, size_t(use.index), original);
          context.count("uses-redirected");
          ++moved;
        }
        if (allMoved) {
          if (value->hasValueInfo()) rewriter.setValueInfo(value, false);
          rewriter.removeValue(value);
          context.count("initializers-removed");
        }
        changed = changed || moved > 0;
      }
    }
  }
  return changed;
}

}  // namespace onyx::passes
