#include "util/json_writer.h"

#include <array>
#include <cassert>
#include <charconv>
#include <cmath>

namespace onyx {
namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8SequenceLength(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

void appendEscaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t length = utf8SequenceLength(text, i);
      if (length == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER, one per invalid byte
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

}  // namespace

std::string jsonQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  appendEscaped(out, text);
  return out;
}

void JsonWriter::newline() {
  if (style_ == Style::Compact) return;
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  assert(stack_.empty() ? out_.empty() : !stack_.back().isObject);  // object members need key() first
  if (stack_.empty()) return;
  if (stack_.back().count++ > 0) out_ += ',';
  newline();
}

JsonWriter& JsonWriter::key(std::string_view name) {
  assert(!stack_.empty() && stack_.back().isObject && !afterKey_);
  if (stack_.back().count++ > 0) out_ += ',';
  newline();
  appendEscaped(out_, name);
  out_ += style_ == Style::Pretty ? ": " : ":";
  afterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::open(char bracket, bool isObject) {
  beforeValue();
  out_ += bracket;
  stack_.push_back({isObject});
  return *this;
}

JsonWriter& JsonWriter::close(char bracket, bool isObject) {
  bool matches = !stack_.empty() && stack_.back().isObject == isObject && !afterKey_;
  assert(matches);  // every begin has its end, and no key is left without a value
  (void)matches;
  bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline();
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::beginObject() {
  return open('{', true);
}
JsonWriter& JsonWriter::endObject() {
  return close('}', true);
}
JsonWriter& JsonWriter::beginArray() {
  return open('[', false);
}
JsonWriter& JsonWriter::endArray() {
  return close(']', false);
}

JsonWriter& JsonWriter::rawValue(std::string_view text) {
  beforeValue();
  out_ += text;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  beforeValue();
  appendEscaped(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  return rawValue(flag ? "true" : "false");
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  std::array<char, 32> buffer;
  auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
  assert(error == std::errc());  // 32 characters hold any double
  (void)error;
  return rawValue(std::string_view(buffer.data(), size_t(end - buffer.data())));
}

JsonWriter& JsonWriter::null() {
  return rawValue("null");
}

}  // namespace onyx
