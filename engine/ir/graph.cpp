#include "ir/graph.h"

#include <algorithm>

namespace onyx {

const Value::Listing& Value::listing() const {
  static const Listing none;
  return listing_ ? *listing_ : none;
}

void Value::setListing(Listing listing) {
  if (listing.empty())
    listing_.reset();
  else
    listing_ = std::make_unique<Listing>(std::move(listing));
}

void Value::setListedType(std::optional<Type> type) {
  Listing listing = this->listing();
  listing.listedType = std::move(type);
  setListing(std::move(listing));
}

std::vector<Value*> Node::outputs() const {
  std::vector<Value*> result;
  result.reserve(outputs_.size());
  for (const auto& output : outputs_) result.push_back(output.get());
  return result;
}

const Attribute* Node::attribute(std::string_view name) const {
  for (const Attribute& attr : attributes_)
    if (attr.name() == name) return &attr;
  return nullptr;
}

int64_t Node::attrInt(std::string_view name, int64_t fallback) const {
  return attributeIntOr(attribute(name), fallback);
}

float Node::attrFloat(std::string_view name, float fallback) const {
  return attributeFloatOr(attribute(name), fallback);
}

std::string Node::attrString(std::string_view name, std::string_view fallback) const {
  return attributeStringOr(attribute(name), fallback);
}

std::optional<std::vector<int64_t>> Node::attrInts(std::string_view name) const {
  const Attribute* attr = attribute(name);
  const std::vector<int64_t>* value = attr ? attr->getInts() : nullptr;
  if (!value) return std::nullopt;
  return *value;
}

std::vector<Graph*> Node::subgraphs() const {
  std::vector<Graph*> result;
  for (const Attribute& attr : attributes_)
    for (Graph* graph : attr.subgraphs()) result.push_back(graph);
  return result;
}

std::string_view Node::scopePath() const {
  std::string_view name = name_;
  size_t slash = name.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return {};
  return name.substr(0, slash);
}

std::string Node::describe() const {
  std::string type = opType_.empty() ? "op_type ''" : opType_;  // a broken file's node still reads
  std::string op = domain_.empty() || domain_ == "ai.onnx" ? type : domain_ + "::" + type;
  return op + (name_.empty() ? "" : " '" + name_ + "'") + " (#" + std::to_string(id_) + ")";
}

Graph::~Graph() {
  // Nodes hold subgraphs whose nodes use values of this graph: drop nodes last-first so no body outlives
  // what it points at while being torn down.
  while (!nodes_.empty()) nodes_.pop_back();
}

Value* Graph::findValue(std::string_view name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

Value* Graph::resolve(std::string_view name) const {
  for (const Graph* graph = this; graph; graph = graph->parent_)
    if (Value* value = graph->findValue(name)) return value;
  return nullptr;
}

bool Graph::hasNodeNamed(std::string_view name) const {
  return nodeNameCounts_.count(std::string(name)) > 0;
}

Node* Graph::findNode(NodeId id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : it->second;
}

std::vector<Value*> Graph::definedValues() const {
  std::vector<Value*> values;
  values.insert(values.end(), inputs_.begin(), inputs_.end());
  for (Value* value : initializers_)
    if (!value->isGraphInput()) values.push_back(value);
  for (const auto& node : nodes_)
    for (const auto& output : node->outputs_)
      if (output) values.push_back(output.get());
  return values;
}

}  // namespace onyx
