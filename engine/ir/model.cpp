#include "ir/model.h"

#include <algorithm>

#include "ir/rewriter.h"

namespace onyx {

Model::Model() : graph_(std::make_unique<Graph>(this)) {}

Model::~Model() {
  // Functions' bodies and the main graph may be referenced by logs held elsewhere; nothing here to undo.
  functions.clear();
  graph_.reset();
}

int64_t Model::opsetVersion(std::string_view domain) const {
  bool isDefault = domain.empty() || domain == "ai.onnx";
  for (const OpsetImport& opset : opsetImports) {
    bool match = isDefault ? (opset.domain.empty() || opset.domain == "ai.onnx") : opset.domain == domain;
    if (match) return opset.version;
  }
  return 0;
}

const Function* Model::findFunction(std::string_view domain, std::string_view name, std::string_view overload) const {
  for (const auto& function : functions)
    if (function->domain == domain && function->name == name && function->overload == overload)
      return function.get();
  return nullptr;
}

int Model::subscribe(Listener listener) {
  int token = nextListenerToken_++;
  listeners_.emplace_back(token, std::move(listener));
  return token;
}

void Model::unsubscribe(int token) {
  std::erase_if(listeners_, [token](const auto& entry) { return entry.first == token; });
}

void Model::emit(const ChangeEvent& event) const {
  for (const auto& [token, listener] : listeners_) listener(event);
}

const char* changeKindName(ChangeEvent::Kind kind) {
  switch (kind) {
    case ChangeEvent::Kind::NodeAdded: return "node-added";
    case ChangeEvent::Kind::NodeRemoved: return "node-removed";
    case ChangeEvent::Kind::InputsChanged: return "inputs-changed";
    case ChangeEvent::Kind::AttributeChanged: return "attribute-changed";
    case ChangeEvent::Kind::NodeRenamed: return "node-renamed";
    case ChangeEvent::Kind::ValueRenamed: return "value-renamed";
    case ChangeEvent::Kind::ValueTypeChanged: return "value-type-changed";
    case ChangeEvent::Kind::GraphInputsChanged: return "graph-inputs-changed";
    case ChangeEvent::Kind::GraphOutputsChanged: return "graph-outputs-changed";
    case ChangeEvent::Kind::InitializerChanged: return "initializer-changed";
    case ChangeEvent::Kind::FunctionAdded: return "function-added";
    case ChangeEvent::Kind::FunctionRemoved: return "function-removed";
    case ChangeEvent::Kind::OpsetImportsChanged: return "opset-imports-changed";
  }
  return "unknown";
}

}  // namespace onyx
