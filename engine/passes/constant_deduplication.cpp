// constant-deduplication: initializers with the same type, dims and bytes become one value (the first in
// file order); the others' readers use it and the copies are removed. Candidates are grouped by a hash of
// their contents, then compared byte for byte.
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include "passes/all_passes.h"
#include "passes/pass_util.h"

namespace onyx::passes {

namespace {

size_t shapeHash(const Tensor& tensor) {
  size_t hash = std::hash<int>()(int(tensor.dtype()));
  for (int64_t d : tensor.dims()) hash = hash * 1000003u ^ std::hash<int64_t>()(d);
  return hash;
}

size_t bytesHash(const Tensor& tensor) {
  if (tensor.dtype() == DataType::String) {
    size_t hash = 0;
    for (const std::string& s : tensor.stringValues()) hash = hash * 1000003u ^ std::hash<std::string>()(s);
    return hash;
  }
  auto bytes = tensor.bytesOrEmpty();
  return std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

bool sameContents(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims()) return false;
  if (a.dtype() == DataType::String) return a.stringValues() == b.stringValues();
  auto x = a.bytesOrEmpty();
  auto y = b.bytesOrEmpty();
  if (x.size() != y.size()) return false;
  // Tensors sharing one buffer (copies, generated weights) are equal without reading megabytes.
  return x.data() == y.data() || std::equal(x.begin(), x.end(), y.begin());
}

}  // namespace

Expected<bool> ConstantDeduplication::run(PassContext& context) {
  bool changed = false;
  Rewriter& rewriter = context.rewriter();
  for (Graph* graph : allGraphs(context.model())) {
    std::unordered_multimap<size_t, Value*> byHash;
    // Hashes by storage: tensors sharing bytes are hashed once.
    std::map<std::pair<const void*, size_t>, size_t> hashOfStorage;
    std::vector<Value*> initializers = graph->initializers();
    std::vector<Value*> copies;  // removed together at the end (one by one was quadratic)
    for (Value* value : initializers) {
      const Tensor* tensor = fixedInitializer(value);
      if (!tensor || value->uses().empty()) continue;
      if (!tensor->isExternal() || tensor->bytes()) {
        const void* storage = tensor->dtype() == DataType::String ? nullptr : tensor->bytesOrEmpty().data();
        size_t contents;
        auto known = storage ? hashOfStorage.find({storage, tensor->byteSize()}) : hashOfStorage.end();
        if (known != hashOfStorage.end()) {
          contents = known->second;
        } else {
          contents = bytesHash(*tensor);
          if (storage) hashOfStorage[{storage, tensor->byteSize()}] = contents;
        }
        size_t hash = shapeHash(*tensor) * 1000003u ^ contents;
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
          copies.push_back(value);
          context.count("initializers-removed");
        }
        changed = changed || moved > 0;
      }
    }
    if (!copies.empty()) rewriter.removeValues(copies);
  }
  return changed;
}

}  // namespace onyx::passes
