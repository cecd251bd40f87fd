#pragma once
// What the rewriter tells subscribers (views, undo stack, diff) after each edit.
#include <string>

#include "ir/dim.h"

namespace onyx {

class Graph;

struct ChangeEvent {
  enum class Kind {
    NodeAdded,
    NodeRemoved,
    InputsChanged,      // a node's inputs were rewired
    AttributeChanged,   // set, replaced or removed; `name` is the attribute
    NodeRenamed,
    ValueRenamed,       // `name` is the old name
    ValueTypeChanged,
    GraphInputsChanged,
    GraphOutputsChanged,
    InitializerChanged,  // added, replaced or removed; `name` is the value
    FunctionAdded,       // a model-local function; `name` is "domain.name"
    FunctionRemoved,
    OpsetImportsChanged,  // `name` is the domain
  };
  Kind kind;
  const Graph* graph = nullptr;
  NodeId node = kNoNode;
  std::string name;
  bool undoing = false;  // emitted while a change log is undone
};

const char* changeKindName(ChangeEvent::Kind kind);

}  // namespace onyx
