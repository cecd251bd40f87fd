// String ops: StringConcat, StringSplit, RegexFullMatch, StringNormalizer.
#include <locale.h>
#include <clocale>
#include <cwctype>
#include <regex>
#include <string>
#include <unordered_set>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

Expected<const TensorValue*> requireStrings(KernelContext& ctx, size_t i) {
  auto x = ctx.requireTensor(i);
  if (!x) return x.error();
  if ((*x)->dtype() != DataType::String) return ctx.unsupportedType(int(i));
  return *x;
}

Expected<void> stringConcatKernel(KernelContext& ctx) {
  auto a = requireStrings(ctx, 0);
  if (!a) return a.error();
  auto b = requireStrings(ctx, 1);
  if (!b) return b.error();
  auto dims = broadcastShapes({&(*a)->dims(), &(*b)->dims()});
  if (!dims) return ctx.error("cannot broadcast " + (*a)->describe() + " with " + (*b)->describe(), 1);
  auto y = ctx.allocateOutput(0, DataType::String, *dims);
  if (!y) return y.error();
  const std::string* left = (*a)->data<std::string>();
  const std::string* right = (*b)->data<std::string>();
  std::string* out = (*y)->data<std::string>();
  std::array<std::vector<int64_t>, 2> strides{broadcastStrides((*a)->dims(), *dims),
                                              broadcastStrides((*b)->dims(), *dims)};
  forEachBroadcast<2>(*dims, strides, [&](int64_t i, const std::array<int64_t, 2>& at) {
    out[i] = left[at[0]] + right[at[1]];
  });
  return {};
}

bool isAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Python's str.split: with an empty delimiter, runs of whitespace separate and edges are trimmed; otherwise
// every delimiter separates (so "" gives one empty piece). maxsplit < 0 means no limit.
std::vector<std::string> splitString(const std::string& s, const std::string& delimiter, int64_t maxsplit) {
  std::vector<std::string> pieces;
  if (delimiter.empty()) {
    size_t i = 0;
    while (true) {
      while (i < s.size() && isAsciiSpace(s[i])) ++i;
      if (i == s.size()) break;
      if (maxsplit >= 0 && int64_t(pieces.size()) == maxsplit) {
        pieces.push_back(s.substr(i));
        break;
      }
      size_t end = i;
      while (end < s.size() && !isAsciiSpace(s[end])) ++end;
      pieces.push_back(s.substr(i, end - i));
      i = end;
    }
    return pieces;
  }
  size_t start = 0;
  while (true) {
    size_t at = s.find(delimiter, start);
    if (at == std::string::npos || (maxsplit >= 0 && int64_t(pieces.size()) == maxsplit)) {
      pieces.push_back(s.substr(start));
      break;
    }
    pieces.push_back(s.substr(start, at - start));
    start = at + delimiter.size();
  }
  return pieces;
}

Expected<void> stringSplitKernel(KernelContext& ctx) {
  auto x = requireStrings(ctx, 0);
  if (!x) return x.error();
  std::string delimiter = ctx.attrString("delimiter");
  int64_t maxsplit = ctx.attrInt("maxsplit", -1);
  const std::string* in = (*x)->data<std::string>();
  std::vector<std::vector<std::string>> pieces(static_cast<size_t>((*x)->count()));
  int64_t widest = 0;
  for (int64_t i = 0; i < (*x)->count(); ++i) {
    pieces[size_t(i)] = splitString(in[i], delimiter, maxsplit);
    widest = std::max(widest, int64_t(pieces[size_t(i)].size()));
  }
  Dims yDims = (*x)->dims();
  yDims.push_back(widest);
  auto y = ctx.allocateOutput(0, DataType::String, yDims);
  if (!y) return y.error();
  auto z = ctx.allocateOutput(1, DataType::Int64, (*x)->dims());
  if (!z) return z.error();
  std::string* out = (*y)->data<std::string>();
  for (int64_t i = 0; i < (*x)->count(); ++i) {
    const auto& row = pieces[size_t(i)];
    for (size_t k = 0; k < row.size(); ++k) out[i * widest + int64_t(k)] = row[k];
    (*z)->data<int64_t>()[i] = int64_t(row.size());
  }
  return {};
}

Expected<void> regexFullMatchKernel(KernelContext& ctx) {
  auto x = requireStrings(ctx, 0);
  if (!x) return x.error();
  std::string pattern = ctx.attrString("pattern");
  std::regex regex;
  try {
    regex = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return ctx.error("pattern '" + pattern + "' is not a valid regular expression: " + e.what());
  }
  auto y = ctx.allocateOutput(0, DataType::Bool, (*x)->dims());
  if (!y) return y.error();
  const std::string* in = (*x)->data<std::string>();
  for (int64_t i = 0; i < (*x)->count(); ++i) (*y)->data<bool>()[i] = std::regex_match(in[i], regex);
  return {};
}

// UTF-8 <-> code points, for case changes beyond ASCII. Invalid bytes pass through as themselves.
std::u32string decodeUtf8(const std::string& s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (extra && i + size_t(extra) >= s.size()) extra = 0;  // truncated sequence
    char32_t cp = extra == 0 ? c : char32_t(c & (0x3F >> extra));
    for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + size_t(k)]) & 0x3F);
    out.push_back(cp);
    i += size_t(extra) + 1;
  }
  return out;
}

std::string encodeUtf8(const std::u32string& s) {
  std::string out;
  for (char32_t cp : s) {
    if (cp < 0x80) {
      out.push_back(char(cp));
    } else if (cp < 0x800) {
      out.push_back(char(0xC0 | (cp >> 6)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(char(0xE0 | (cp >> 12)));
      out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(char(0xF0 | (cp >> 18)));
      out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

// glibc's C.UTF-8 locale knows Unicode case mappings; it is built in, so no locale package is needed.
locale_t utf8Locale() {
  static locale_t locale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
    return l ? l : newlocale(LC_CTYPE_MASK, "C", locale_t(0));
  }();
  return locale;
}

enum class CaseChange { None, Lower, Upper };

std::string changeCase(const std::string& s, CaseChange change) {
  if (change == CaseChange::None) return s;
  std::u32string cps = decodeUtf8(s);
  for (char32_t& cp : cps)
    cp = char32_t(change == CaseChange::Lower ? towlower_l(wint_t(cp), utf8Locale())
                                              : towupper_l(wint_t(cp), utf8Locale()));
  return encodeUtf8(cps);
}

Expected<void> stringNormalizerKernel(KernelContext& ctx) {
  auto x = requireStrings(ctx, 0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  bool twoDims = in.rank() == 2;
  if (in.rank() != 1 && !(twoDims && in.dim(0) == 1))
    return ctx.error("input must be [C] or [1, C], got " + in.describe(), 0);
  std::string action = ctx.attrString("case_change_action", "NONE");
  CaseChange change = CaseChange::None;
  if (action == "LOWER")
    change = CaseChange::Lower;
  else if (action == "UPPER")
    change = CaseChange::Upper;
  else if (action != "NONE")
    return ctx.error("case_change_action must be LOWER, UPPER or NONE, got '" + action + "'");
  bool caseSensitive = ctx.attrInt("is_case_sensitive", 0) != 0;
  // Case-insensitive stopword matching compares lower-cased forms.
  auto key = [&](const std::string& s) { return caseSensitive ? s : changeCase(s, CaseChange::Lower); };
  std::unordered_set<std::string> stopwords;
  for (const auto& word : ctx.attrStrings("stopwords").value_or(std::vector<std::string>{}))
    stopwords.insert(key(word));
  std::vector<std::string> kept;
  const std::string* values = in.data<std::string>();
  for (int64_t i = 0; i < in.count(); ++i)
    if (!stopwords.count(key(values[i]))) kept.push_back(changeCase(values[i], change));
  if (kept.empty()) kept.push_back("");  // the spec's output for "everything removed" is one empty string
  Dims dims = twoDims ? Dims{1, int64_t(kept.size())} : Dims{int64_t(kept.size())};
  auto y = ctx.allocateOutput(0, DataType::String, dims);
  if (!y) return y.error();
  for (size_t i = 0; i < kept.size(); ++i) (*y)->data<std::string>()[i] = std::move(kept[i]);
  return {};
}

}  // namespace

void registerStringCpuKernels(KernelRegistry& r) {
  r.add(kernel("StringConcat", stringConcatKernel, 20));
  r.add(kernel("StringSplit", stringSplitKernel, 20));
  r.add(kernel("RegexFullMatch", regexFullMatchKernel, 20));
  r.add(kernel("StringNormalizer", stringNormalizerKernel, 10));
}

}  // namespace onyx::exec
