#pragma once
// A small streaming JSON writer: objects, arrays, strings, integers, doubles, bools and null, written
// pretty (two-space indent, one member per line) or compact. Strings are escaped per RFC 8259; bytes that
// are not valid UTF-8 become U+FFFD, so the output is always valid JSON whatever a model file held.
//
//   JsonWriter json;
//   json.beginObject().member("name", "resnet").key("inputs").beginArray().value(1).endArray().endObject();
//   std::string text = json.str();  // {"name": "resnet", "inputs": [1]}, pretty-printed
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onyx {

class JsonWriter {
 public:
  enum class Style { Pretty, Compact };
  explicit JsonWriter(Style style = Style::Pretty) : style_(style) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  // The next value is this member of the enclosing object.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonWriter& value(T number) {
    if constexpr (std::is_signed_v<T>)
      return rawValue(std::to_string(static_cast<long long>(number)));
    else
      return rawValue(std::to_string(static_cast<unsigned long long>(number)));
  }
  // Shortest text that reads back to the same double; NaN and infinities (not JSON) are written as null.
  JsonWriter& value(double number);
  JsonWriter& null();
  // key(name).value(v), for objects written member by member.
  template <class T>
  JsonWriter& member(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  // The document so far; complete once every object and array is closed.
  const std::string& str() const { return out_; }
  bool complete() const { return stack_.empty() && !out_.empty(); }

 private:
  struct Level {
    bool isObject;
    int count = 0;
  };
  JsonWriter& rawValue(std::string_view text);
  void beforeValue();
  JsonWriter& open(char bracket, bool isObject);
  JsonWriter& close(char bracket, bool isObject);
  void newline();

  Style style_;
  std::string out_;
  std::vector<Level> stack_;
  bool afterKey_ = false;
};

// `text` as a JSON string literal, quotes included.
std::string jsonQuote(std::string_view text);

}  // namespace onyx
