// Rewriter::removeValues: many unused values of a graph removed as one edit. Removing one value erases it
// from the graph's initializer, value_info and ownership lists, a linear search and shift each; a batch does
// one sweep per list, and its undo puts the lists back as they were.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "ir/rewriter.h"

namespace onyx {

namespace {

// What one value was before the batch removed it.
struct RemovedValue {
  Value* value = nullptr;
  std::unique_ptr<Value> owned;  // held while removed
  std::unique_ptr<Tensor> initializer;
  bool hasValueInfo = false;
};

}  // namespace

void Rewriter::removeValues(const std::vector<Value*>& values) {
  std::unordered_map<Graph*, std::vector<Value*>> byGraph;
  std::vector<Graph*> graphs;  // in first-seen order, so events come in a stable order
  for (Value* value : values) {
    if (!value->uses_.empty()) throw std::logic_error("removeValues: '" + value->name_ + "' is still used");
    if (value->producer_) throw std::logic_error("removeValues: '" + value->name_ + "' is a node output");
    auto [it, fresh] = byGraph.try_emplace(value->graph_);
    if (fresh) graphs.push_back(value->graph_);
    it->second.push_back(value);
  }
  for (Graph* graph : graphs) {
    std::vector<Value*>& removing = byGraph[graph];
    std::unordered_set<const Value*> set(removing.begin(), removing.end());
    if (std::any_of(removing.begin(), removing.end(), [](const Value* v) { return v->isGraphInput_; })) {
      std::vector<Value*> inputs = graph->inputs_;
      std::erase_if(inputs, [&](const Value* v) { return set.count(v) > 0; });
      setGraphInputs(*graph, std::move(inputs));
    }
    auto removed = std::make_shared<std::vector<RemovedValue>>();
    auto initializersBefore = std::make_shared<std::vector<Value*>>();
    auto valueInfoBefore = std::make_shared<std::vector<Value*>>();
    Model* model = model_;
    record({[=](bool) {
              *initializersBefore = graph->initializers_;
              *valueInfoBefore = graph->valueInfo_;
              std::erase_if(graph->initializers_, [&](const Value* v) { return set.count(v) > 0; });
              std::erase_if(graph->valueInfo_, [&](const Value* v) { return set.count(v) > 0; });
              removed->clear();
              std::vector<std::unique_ptr<Value>> kept;
              kept.reserve(graph->ownedValues_.size());
              for (auto& owned : graph->ownedValues_) {
                if (!set.count(owned.get())) {
                  kept.push_back(std::move(owned));
                  continue;
                }
                Value* value = owned.get();
                auto found = graph->byName_.find(value->name_);
                if (found != graph->byName_.end() && found->second == value) graph->byName_.erase(found);
                removed->push_back({value, std::move(owned), std::move(value->initializer_), value->hasValueInfo_});
                value->initializer_.reset();
                value->hasValueInfo_ = false;
              }
              graph->ownedValues_ = std::move(kept);
              for (const RemovedValue& entry : *removed)
                if (entry.initializer)
                  model->emit({ChangeEvent::Kind::InitializerChanged, graph, kNoNode, entry.value->name_, false});
            },
            [=] {
              for (RemovedValue& entry : *removed) {
                Value* value = entry.value;
                value->initializer_ = std::move(entry.initializer);
                value->hasValueInfo_ = entry.hasValueInfo;
                if (!value->name_.empty()) graph->byName_.try_emplace(value->name_, value);
                graph->ownedValues_.push_back(std::move(entry.owned));
              }
              graph->initializers_ = *initializersBefore;
              graph->valueInfo_ = *valueInfoBefore;
              for (const RemovedValue& entry : *removed)
                if (entry.value->initializer_)
                  model->emit({ChangeEvent::Kind::InitializerChanged, graph, kNoNode, entry.value->name_, true});
              removed->clear();
            }});
  }
}

}  // namespace onyx
