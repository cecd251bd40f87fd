#include "layout/item_text.h"

#include <algorithm>
#include <array>
#include <sstream>

#include "ir/data_type.h"

namespace onyx::layout {
namespace {

// Initializer tags beyond this many fold into "+N more" so a BatchNormalization box stays small.
constexpr size_t kMaxTagLines = 3;

std::string joinInts(const std::vector<int64_t>& values, std::string_view separator) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) text += separator;
    text += std::to_string(values[i]);
  }
  return text;
}

struct KeyAttribute {
  std::string_view name;
  std::string_view label;
  std::string_view listSeparator;
};

// The attributes that tell two nodes of the same op apart at a glance; the inspector shows the rest.
constexpr std::array<KeyAttribute, 18> kKeyAttributes{{
    {"kernel_shape", "kernel", "×"},
    {"strides", "strides", "×"},
    {"dilations", "dilations", "×"},
    {"pads", "pads", ","},
    {"group", "group", ","},
    {"axis", "axis", ","},
    {"axes", "axes", ","},
    {"perm", "perm", ","},
    {"split", "split", ","},
    {"to", "to", ","},
    {"mode", "mode", ","},
    {"keepdims", "keepdims", ","},
    {"transA", "transA", ","},
    {"transB", "transB", ","},
    {"hidden_size", "hidden", ","},
    {"direction", "direction", ","},
    {"num_outputs", "outputs", ","},
    {"auto_pad", "auto_pad", ","},
}};

}  // namespace

std::vector<std::string> keyAttributeLines(const Node& node) {
  std::vector<std::string> lines;
  for (const KeyAttribute& key : kKeyAttributes) {
    const Attribute* attribute = node.attribute(key.name);
    if (!attribute || attribute->isReference()) continue;
    std::string value;
    if (const int64_t* number = attribute->getInt()) {
      if (key.name == "to") {
        value = std::string(dataTypeName(static_cast<DataType>(*number)));
      } else if (key.name == "group" && *number == 1) {
        continue;  // the default says nothing
      } else {
        value = std::to_string(*number);
      }
    } else if (const auto* numbers = attribute->getInts()) {
      value = joinInts(*numbers, key.listSeparator);
    } else if (const std::string* text = attribute->getString()) {
      if (key.name == "auto_pad" && *text == "NOTSET") continue;
      value = *text;
    } else {
      value = attribute->valueToString();
    }
    lines.push_back(std::string(key.label) + " " + value);
  }
  return lines;
}

std::vector<std::string> itemDetailLines(const Item& item) {
  std::vector<std::string> lines;
  switch (item.kind) {
    case ItemKind::Node: {
      lines = item.attributeLines;
      size_t shownTags = std::min(item.initializers.size(), kMaxTagLines);
      if (item.initializers.size() == kMaxTagLines + 1) shownTags = item.initializers.size();
      for (size_t i = 0; i < shownTags; ++i) {
        const InitializerTag& tag = item.initializers[i];
        lines.push_back(tag.name + " " + tag.typeText);
      }
      if (shownTags < item.initializers.size()) {
        lines.push_back("+" + std::to_string(item.initializers.size() - shownTags) + " more");
      }
      break;
    }
    case ItemKind::Group:
      lines.push_back(std::to_string(item.nodeCount) + (item.nodeCount == 1 ? " node" : " nodes"));
      if (item.repeats > 1) lines.push_back("×" + std::to_string(item.repeats) + " alike");
      break;
    case ItemKind::Input:
    case ItemKind::Output:
    case ItemKind::PortIn:
    case ItemKind::PortOut:
      if (item.value && !item.value->type().isNone()) lines.push_back(item.value->type().toString());
      break;
  }
  return lines;
}

double approximateTextWidth(std::string_view text, const BoxMetrics& metrics) {
  size_t characters = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++characters;  // count UTF-8 lead bytes only
  }
  return static_cast<double>(characters) * metrics.averageCharWidth;
}

void sizeItem(Item& item, const TextWidth& textWidth, const BoxMetrics& metrics) {
  auto measure = [&](std::string_view text) {
    return textWidth ? textWidth(text) : approximateTextWidth(text, metrics);
  };
  std::vector<std::string> lines = itemDetailLines(item);
  double widest = measure(item.title);
  for (const std::string& line : lines) widest = std::max(widest, measure(line));
  item.width = std::max(metrics.minWidth, widest + 2 * metrics.paddingX);
  item.height =
      metrics.titleHeight + static_cast<double>(lines.size()) * metrics.lineHeight + 2 * metrics.paddingY;
}

}  // namespace onyx::layout
