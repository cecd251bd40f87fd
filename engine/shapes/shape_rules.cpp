#include "shapes/shape_rules.h"

#include <fstream>
#include <sstream>

#include "shapes/shape_context.h"

namespace onyx {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// "in3" -> 3; nullopt otherwise.
std::optional<size_t> parseIndexed(std::string_view text, std::string_view prefix) {
  text = trim(text);
  if (text.substr(0, prefix.size()) != prefix || text.size() == prefix.size()) return std::nullopt;
  size_t value = 0;
  for (char c : text.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return value;
}

// Replaces `inJ[k]` with placeholder symbols the dim-expression parser accepts.
std::optional<std::string> replaceReferences(std::string_view text,
                                             std::unordered_map<std::string, ShapeRules::DimRef>& references) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool startsWord = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_');
    if (startsWord && text.substr(i, 2) == "in" && i + 2 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 2]))) {
      size_t j = i + 2;
      size_t input = 0;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) input = input * 10 + (text[j++] - '0');
      if (j >= text.size() || text[j] != '[') return std::nullopt;
      size_t close = text.find(']', j);
      if (close == std::string_view::npos) return std::nullopt;
      std::string index(trim(text.substr(j + 1, close - j - 1)));
      char* end = nullptr;
      long long dim = std::strtoll(index.c_str(), &end, 10);
      if (index.empty() || *end != '\0') return std::nullopt;
      std::string placeholder = "__in" + std::to_string(input) + "_" + (dim < 0 ? "m" : "") + std::to_string(std::llabs(dim));
      references[placeholder] = {input, dim};
      out += placeholder;
      i = close + 1;
      continue;
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

Expected<ShapeRules> ShapeRules::parse(std::string_view text, const std::string& source) {
  ShapeRules rules;
  int lineNumber = 0;
  for (std::string_view line : split(text, '\n')) {
    ++lineNumber;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    auto where = source + ":" + std::to_string(lineNumber);
    size_t separator = line.find("::");
    size_t colon = separator == std::string_view::npos ? separator : line.find(':', separator + 2);
    if (colon == std::string_view::npos) {
      return makeError("a shape rule must start with DOMAIN::OP: (like `mydomain::MyOp: out0 = in0`)", where);
    }
    Rule rule;
    rule.domain = std::string(trim(line.substr(0, separator)));
    rule.opType = std::string(trim(line.substr(separator + 2, colon - separator - 2)));
    rule.line = lineNumber;
    if (rule.opType.empty()) return makeError("missing op type before ':'", where);
    for (std::string_view clause : split(line.substr(colon + 1), ';')) {
      clause = trim(clause);
      if (clause.empty()) continue;
      size_t equals = clause.find('=');
      if (equals == std::string_view::npos) return makeError("expected `outK = ...` in `" + std::string(clause) + "`", where);
      auto output = parseIndexed(clause.substr(0, equals), "out");
      if (!output) return makeError("expected `outK` before '=' in `" + std::string(clause) + "`", where);
      OutputRule outputRule;
      outputRule.output = *output;
      std::string_view body = trim(clause.substr(equals + 1));
      size_t typeColon = body.rfind(':');
      if (typeColon != std::string_view::npos && body.find(']', typeColon) == std::string_view::npos) {
        std::string_view typeName = trim(body.substr(typeColon + 1));
        auto elem = dataTypeFromName(typeName);
        if (!elem) return makeError("unknown element type '" + std::string(typeName) + "'", where);
        outputRule.elemType = elem;
        body = trim(body.substr(0, typeColon));
      }
      if (auto input = parseIndexed(body, "in")) {
        outputRule.copyInput = input;
      } else if (body.size() >= 2 && body.front() == '[' && body.back() == ']') {
        std::string_view inner = trim(body.substr(1, body.size() - 2));
        if (!inner.empty()) {
          // Split on commas outside parentheses (min(a, b) has one inside).
          int depth = 0;
          size_t start = 0;
          for (size_t i = 0; i <= inner.size(); ++i) {
            if (i < inner.size() && inner[i] == '(') ++depth;
            if (i < inner.size() && inner[i] == ')') --depth;
            if (i == inner.size() || (inner[i] == ',' && depth == 0)) {
              std::string_view item = trim(inner.substr(start, i - start));
              auto replaced = replaceReferences(item, outputRule.references);
              auto expr = replaced ? SymExpr::parse(*replaced) : std::nullopt;
              if (!expr) return makeError("cannot read dim `" + std::string(item) + "`", where);
              outputRule.dims.push_back(*expr);
              start = i + 1;
            }
          }
        }
      } else {
        return makeError("expected `inJ` or `[dims]` after '=' in `" + std::string(clause) + "`", where);
      }
      rule.outputs.push_back(std::move(outputRule));
    }
    rules.rules_.push_back(std::move(rule));
  }
  return rules;
}

Expected<ShapeRules> ShapeRules::load(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return makeError("cannot open shape rules file", path.string());
  std::stringstream text;
  text << file.rdbuf();
  return parse(text.str(), path.string());
}

const ShapeRules::Rule* ShapeRules::find(std::string_view domain, std::string_view opType) const {
  if (domain == "ai.onnx") domain = "";
  for (const Rule& rule : rules_) {
    std::string_view ruleDomain = rule.domain == "ai.onnx" ? std::string_view() : std::string_view(rule.domain);
    if (ruleDomain == domain && rule.opType == opType) return &rule;
  }
  return nullptr;
}

Expected<void> ShapeRules::apply(ShapeContext& context) const {
  const Rule* rule = find(context.node().domain(), context.node().opType());
  if (!rule) return context.error("no shape rule for this op");
  for (const OutputRule& output : rule->outputs) {
    DataType elem = output.elemType.value_or(context.inputElemType(0));
    if (output.copyInput) {
      InferredValue copied = context.input(*output.copyInput);
      if (output.elemType) copied.type.setElemType(*output.elemType);
      copied.constant = nullptr;
      context.setOutput(output.output, std::move(copied));
      continue;
    }
    SymSubstitution substitution;
    std::shared_ptr<const DimOrigin> unknownOrigin;
    for (const auto& [placeholder, ref] : output.references) {
      const auto& shape = context.inputShape(ref.input);
      if (!shape) {
        unknownOrigin = context.rankOriginOf(ref.input);
        continue;
      }
      int64_t rank = static_cast<int64_t>(shape->size());
      int64_t dim = ref.dim < 0 ? ref.dim + rank : ref.dim;
      if (dim < 0 || dim >= rank) {
        return context.error("shape rule (line " + std::to_string(rule->line) + ") reads dim " +
                             std::to_string(ref.dim) + " of input " + std::to_string(ref.input) + ", which has rank " +
                             std::to_string(rank));
      }
      const Dim& source = (*shape)[dim];
      if (source.isUnknown()) {
        unknownOrigin = source.origin();
        continue;
      }
      substitution.emplace(placeholder, source.expr());
    }
    Shape shape;
    for (const SymExpr& dim : output.dims) {
      bool usesUnknown = false;
      for (const std::string& symbol : dim.symbols()) {
        if (output.references.count(symbol) && !substitution.count(symbol)) usesUnknown = true;
      }
      shape.push_back(usesUnknown ? Dim::unknown(unknownOrigin) : Dim(dim.substitute(substitution)));
    }
    context.setOutputTensor(output.output, elem, std::move(shape));
  }
  return {};
}

}  // namespace onyx
