#include "diff/diff_format.h"

#include "util/json_writer.h"

namespace onyx::diff {

ChangeDirection changeDirection(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::GraphInputAdded:
    case ChangeKind::GraphOutputAdded:
    case ChangeKind::InitializerAdded:
    case ChangeKind::NodeAdded:
    case ChangeKind::FunctionAdded:
      return ChangeDirection::Added;
    case ChangeKind::GraphInputRemoved:
    case ChangeKind::GraphOutputRemoved:
    case ChangeKind::InitializerRemoved:
    case ChangeKind::NodeRemoved:
    case ChangeKind::FunctionRemoved:
      return ChangeDirection::Removed;
    default:
      return ChangeDirection::Changed;
  }
}
namespace {

std::string count(size_t n, const std::string& noun, const std::string& verb) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s") + " " + verb;
}

std::string orNone(const std::string& name) {
  return name.empty() ? "<none>" : "'" + name + "'";
}

char sign(ChangeKind kind) {
  switch (changeDirection(kind)) {
    case ChangeDirection::Added:
      return '+';
    case ChangeDirection::Removed:
      return '-';
    case ChangeDirection::Changed:
      break;
  }
  return '~';
}

const char* category(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::OpsetChanged:
      return "opset";
    case ChangeKind::GraphInputAdded:
    case ChangeKind::GraphInputRemoved:
      return "graph input";
    case ChangeKind::GraphInputsReordered:
      return "graph inputs";
    case ChangeKind::GraphOutputAdded:
    case ChangeKind::GraphOutputRemoved:
    case ChangeKind::GraphOutputChanged:
      return "graph output";
    case ChangeKind::InitializerAdded:
    case ChangeKind::InitializerRemoved:
    case ChangeKind::InitializerChanged:
      return "initializer";
    case ChangeKind::ValueRenamed:
    case ChangeKind::ValueTypeChanged:
      return "value";
    case ChangeKind::FunctionAdded:
    case ChangeKind::FunctionRemoved:
    case ChangeKind::FunctionChanged:
      return "function";
    default:
      return "node";
  }
}

std::string detail(const Change& c) {
  switch (c.kind) {
    case ChangeKind::OpsetChanged:
      return "version " + (c.before.empty() ? "<none>" : c.before) + " -> " +
             (c.after.empty() ? "<none>" : c.after);
    case ChangeKind::GraphInputAdded:
    case ChangeKind::GraphOutputAdded:
    case ChangeKind::InitializerAdded:
      return c.after;
    case ChangeKind::GraphInputRemoved:
    case ChangeKind::GraphOutputRemoved:
    case ChangeKind::InitializerRemoved:
      return c.before;
    case ChangeKind::GraphInputsReordered:
      return "order " + c.before + " -> " + c.after;
    case ChangeKind::GraphOutputChanged:
      return "from " + c.before + " -> " + c.after;
    case ChangeKind::InitializerChanged:
      return c.item + " " + c.before + " -> " + c.after;
    case ChangeKind::NodeAdded:
    case ChangeKind::NodeRemoved:
    case ChangeKind::FunctionAdded:
    case ChangeKind::FunctionRemoved:
      return "";
    case ChangeKind::NodeOpChanged:
      return "op " + c.before + " -> " + c.after;
    case ChangeKind::NodeRenamed:
      return "name " + orNone(c.before) + " -> " + orNone(c.after);
    case ChangeKind::NodeInputChanged:
    case ChangeKind::NodeOutputChanged:
      return c.item + " " + orNone(c.before) + " -> " + orNone(c.after);
    case ChangeKind::NodeInputProducerChanged:
      return c.item + " from " + c.before + " -> " + c.after;
    case ChangeKind::AttributeAdded:
      return "attribute " + c.item + " added: " + c.after;
    case ChangeKind::AttributeRemoved:
      return "attribute " + c.item + " removed (was " + c.before + ")";
    case ChangeKind::AttributeChanged:
      return "attribute " + c.item + " " + c.before + " -> " + c.after;
    case ChangeKind::ValueRenamed:
      return "renamed to '" + c.after + "'";
    case ChangeKind::ValueTypeChanged:
      return "type " + c.before + " -> " + c.after;
    case ChangeKind::FunctionChanged:
      return c.item + " " + c.before + " -> " + c.after;
    case ChangeKind::NodesFused:
      return "fused from " + c.before;
    case ChangeKind::NodeSplit:
      return "split into " + c.after;
  }
  return "";
}

}  // namespace

std::string formatSummary(const DiffSummary& s) {
  std::string text = std::to_string(s.nodesAdded) + " added, " + std::to_string(s.nodesRemoved) +
                     " removed, " + std::to_string(s.nodesChanged) + " changed nodes";
  auto part = [&](size_t n, const std::string& noun, const std::string& verb) {
    if (n) text += "; " + count(n, noun, verb);
  };
  part(s.initializersAdded, "initializer", "added");
  part(s.initializersRemoved, "initializer", "removed");
  part(s.initializersChanged, "initializer", "changed");
  part(s.valuesRenamed, "value", "renamed");
  part(s.valueTypesChanged, "value type", "changed");
  part(s.graphInputsAdded, "graph input", "added");
  part(s.graphInputsRemoved, "graph input", "removed");
  if (s.graphInputsReordered) text += "; graph inputs reordered";
  part(s.graphOutputsAdded, "graph output", "added");
  part(s.graphOutputsRemoved, "graph output", "removed");
  part(s.graphOutputsChanged, "graph output", "changed");
  part(s.functionsAdded, "function", "added");
  part(s.functionsRemoved, "function", "removed");
  part(s.functionsChanged, "function", "changed");
  part(s.opsetsChanged, "opset import", "changed");
  if (s.fusions) text += "; " + std::to_string(s.fusions) + (s.fusions == 1 ? " fusion" : " fusions");
  if (s.splits) text += "; " + std::to_string(s.splits) + (s.splits == 1 ? " split" : " splits");
  return text;
}

std::string formatChange(const Change& change) {
  std::string line = std::string(1, sign(change.kind)) + " " + category(change.kind);
  if (!change.subject.empty()) line += " " + change.subject;
  if (!change.scope.empty()) line += " in " + change.scope;
  std::string text = detail(change);
  if (!text.empty()) line += ": " + text;
  return line;
}

std::string formatDiffText(const ModelDiff& diff) {
  std::string text = formatSummary(diff.summary) + "\n";
  for (const Change& change : diff.changes) text += formatChange(change) + "\n";
  return text;
}

std::string formatDiffJson(const ModelDiff& diff) {
  const DiffSummary& s = diff.summary;
  JsonWriter json;
  json.beginObject().key("summary").beginObject();
  json.member("nodes_added", s.nodesAdded).member("nodes_removed", s.nodesRemoved);
  json.member("nodes_changed", s.nodesChanged);
  json.member("initializers_added", s.initializersAdded)
      .member("initializers_removed", s.initializersRemoved);
  json.member("initializers_changed", s.initializersChanged);
  json.member("values_renamed", s.valuesRenamed).member("value_types_changed", s.valueTypesChanged);
  json.member("graph_inputs_added", s.graphInputsAdded).member("graph_inputs_removed", s.graphInputsRemoved);
  json.member("graph_inputs_reordered", s.graphInputsReordered != 0);
  json.member("graph_outputs_added", s.graphOutputsAdded)
      .member("graph_outputs_removed", s.graphOutputsRemoved);
  json.member("graph_outputs_changed", s.graphOutputsChanged);
  json.member("functions_added", s.functionsAdded).member("functions_removed", s.functionsRemoved);
  json.member("functions_changed", s.functionsChanged);
  json.member("opsets_changed", s.opsetsChanged);
  if (s.fusions) json.member("fusions", s.fusions);
  if (s.splits) json.member("splits", s.splits);
  json.endObject().key("changes").beginArray();
  for (const Change& change : diff.changes) {
    json.beginObject().member("kind", changeKindName(change.kind)).member("scope", change.scope);
    json.member("subject", change.subject);
    if (!change.item.empty()) json.member("item", change.item);
    if (!change.before.empty()) json.member("before", change.before);
    if (!change.after.empty()) json.member("after", change.after);
    if (change.beforeNode != kNoNode) json.member("before_node", change.beforeNode);
    if (change.afterNode != kNoNode) json.member("after_node", change.afterNode);
    json.member("text", formatChange(change));
    json.endObject();
  }
  json.endArray().endObject();
  return json.str() + "\n";
}

}  // namespace onyx::diff
