#include "analysis/search.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

namespace onyx {
namespace {

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string withoutSpaces(std::string_view text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

class Matcher {
 public:
  Matcher(const ShapeInference& inference, std::string_view query) : inference_(inference) {
    query = trimmed(query);
    auto takePrefix = [&](std::string_view prefix) {
      if (query.size() < prefix.size() || lowered(query.substr(0, prefix.size())) != prefix) return false;
      query = trimmed(query.substr(prefix.size()));
      return true;
    };
    if (takePrefix("name:")) {
      matchOps_ = matchShapes_ = false;
    } else if (takePrefix("op:")) {
      matchNames_ = matchShapes_ = false;
      exactOp_ = true;
    } else if (takePrefix("shape:")) {
      matchNames_ = matchOps_ = false;
    }
    text_ = lowered(query);
    shapeText_ = withoutSpaces(query);
    shapeIsFragment_ = shapeText_.find_first_of("[,") != std::string::npos;
    if (!shapeIsFragment_) dim_ = SymExpr::parse(shapeText_);
  }

  bool empty() const { return text_.empty(); }

  std::optional<SearchField> node(const Node& node) const {
    if (matchNames_ && contains(node.name())) return SearchField::NodeName;
    if (matchOps_ && (exactOp_ ? lowered(node.opType()) == text_ : contains(node.opType())))
      return SearchField::OpType;
    return std::nullopt;
  }

  std::optional<SearchField> value(const Value& value) const {
    if (matchNames_ && contains(value.name())) return SearchField::ValueName;
    if (matchShapes_ && shapeMatches(value)) return SearchField::Shape;
    return std::nullopt;
  }

 private:
  bool contains(const std::string& field) const { return lowered(field).find(text_) != std::string::npos; }

  bool shapeMatches(const Value& value) const {
    const InferredValue* inferred = inference_.find(&value);
    const Type& type = inferred ? inferred->type : value.type();
    if (!type.shape()) return false;
    const Shape& shape = *type.shape();
    if (shapeIsFragment_) return withoutSpaces(shapeToString(shape)).find(shapeText_) != std::string::npos;
    if (!dim_) return false;
    return std::any_of(shape.begin(), shape.end(),
                       [&](const Dim& dim) { return !dim.isUnknown() && dim.expr() == *dim_; });
  }

  const ShapeInference& inference_;
  bool matchNames_ = true;
  bool matchOps_ = true;
  bool matchShapes_ = true;
  bool exactOp_ = false;
  std::string text_;
  std::string shapeText_;
  bool shapeIsFragment_ = false;
  std::optional<SymExpr> dim_;
};

class Search {
 public:
  explicit Search(const Matcher& matcher) : matcher_(matcher) {}

  void walk(const Graph& graph, bool withInterface) {
    if (withInterface) {
      for (const Value* input : graph.inputs())
        if (!input->isInitializer()) value(graph, *input);
      for (const Value* initializer : graph.initializers()) value(graph, *initializer);
    }
    for (const Node* node : graph.nodes()) {
      if (auto field = matcher_.node(*node)) matches_.push_back({&graph, node, nullptr, *field});
      for (const Value* output : node->outputs())
        if (output) value(graph, *output);
      for (const Graph* body : node->subgraphs()) walk(*body, true);
    }
  }

  std::vector<SearchMatch> take() { return std::move(matches_); }

 private:
  void value(const Graph& graph, const Value& value) {
    if (auto field = matcher_.value(value)) matches_.push_back({&graph, nullptr, &value, *field});
  }

  const Matcher& matcher_;
  std::vector<SearchMatch> matches_;
};

}  // namespace

std::vector<SearchMatch> searchModel(const Model& model, const ShapeInference& inference,
                                     std::string_view query) {
  Matcher matcher(inference, query);
  if (matcher.empty()) return {};
  Search search(matcher);
  search.walk(model.graph(), true);
  for (const auto& function : model.functions)
    if (function->body) search.walk(*function->body, true);
  return search.take();
}

}  // namespace onyx
