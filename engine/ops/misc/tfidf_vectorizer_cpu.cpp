// TfIdfVectorizer: counts the pool's n-grams (contiguous or with skips) in each row of tokens and weights the
// counts (TF, IDF or TFIDF).
#include <algorithm>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

// Tokens are compared as strings or integers; an n-gram is a short vector of either.
using Token = std::variant<int64_t, std::string>;
using Ngram = std::vector<Token>;

Expected<void> tfIdfVectorizerKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  DataType dtype = in.dtype();
  if (dtype != DataType::String && dtype != DataType::Int32 && dtype != DataType::Int64)
    return ctx.unsupportedType(0);
  if (in.rank() > 2) return ctx.error("input must be [C] or [N, C], got " + in.describe(), 0);
  int64_t minGram = ctx.attrInt("min_gram_length", 1), maxGram = ctx.attrInt("max_gram_length", 1);
  int64_t maxSkip = ctx.attrInt("max_skip_count", 0);
  std::string mode = ctx.attrString("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return ctx.error("mode must be TF, IDF or TFIDF, got '" + mode + "'");
  if (minGram < 1 || maxGram < minGram) return ctx.error("needs 1 <= min_gram_length <= max_gram_length");
  std::vector<int64_t> counts = ctx.attrInts("ngram_counts").value_or(std::vector<int64_t>{});
  std::vector<int64_t> indexes = ctx.attrInts("ngram_indexes").value_or(std::vector<int64_t>{});
  std::vector<float> weights = ctx.attrFloats("weights").value_or(std::vector<float>{});
  auto poolInts = ctx.attrInts("pool_int64s");
  auto poolStrings = ctx.attrStrings("pool_strings");
  std::vector<Token> pool;
  if (poolInts)
    for (int64_t v : *poolInts) pool.emplace_back(v);
  else if (poolStrings)
    for (const auto& v : *poolStrings) pool.emplace_back(v);
  else
    return ctx.error("needs pool_int64s or pool_strings");
  if ((dtype == DataType::String) != bool(poolStrings))
    return ctx.error("input type does not match the pool (pool_strings for strings, pool_int64s for ints)",
                     0);
  if (indexes.empty()) return ctx.error("needs ngram_indexes");
  const int64_t largest = *std::max_element(indexes.begin(), indexes.end());
  if (largest == INT64_MAX) return ctx.error("ngram_indexes entries must be below 2^63 - 1");  // the width overflows
  int64_t width = largest + 1;
  if (!weights.empty() && int64_t(weights.size()) < width)
    return ctx.error("weights must have one entry per output column");

  // n-gram -> output column. The pool lists the 1-grams, then the 2-grams... starting at ngram_counts[k];
  // n-grams are numbered across all sizes in that order, and ngram_indexes maps that number to a column.
  std::map<Ngram, int64_t> columns;
  int64_t ordinal = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    int64_t size = int64_t(k) + 1;
    int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : int64_t(pool.size());
    if (begin < 0 || end > int64_t(pool.size()) || end < begin) return ctx.error("ngram_counts out of range");
    for (int64_t at = begin; at + size <= end; at += size, ++ordinal) {
      if (size < minGram || size > maxGram) continue;
      if (ordinal >= int64_t(indexes.size())) return ctx.error("ngram_indexes has too few entries");
      int64_t column = indexes[size_t(ordinal)];
      if (column < 0) return ctx.error("ngram_indexes entries must be non-negative");
      columns[Ngram(pool.begin() + at, pool.begin() + at + size)] = column;
    }
  }

  int64_t rows = in.rank() == 2 ? in.dim(0) : 1;
  int64_t rowLength = in.rank() == 0 ? 1 : in.dims().back();
  Dims outDims = in.rank() == 2 ? Dims{rows, width} : Dims{width};
  auto y = ctx.allocateOutput(0, DataType::Float, outDims);
  if (!y) return y.error();
  float* out = (*y)->data<float>();
  auto token = [&](int64_t i) -> Token {
    if (dtype == DataType::String) return in.data<std::string>()[i];
    return in.intAt(i);
  };
  std::vector<int64_t> frequency(static_cast<size_t>(rows * width), 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t* freq = frequency.data() + row * width;
    for (int64_t skip = 0; skip <= maxSkip; ++skip) {
      int64_t step = skip + 1;
      // 1-grams do not depend on the skip: count them in the first pass only.
      int64_t smallest = skip == 0 ? minGram : std::max<int64_t>(minGram, 2);
      for (int64_t start = 0; start < rowLength; ++start) {
        Ngram gram;
        for (int64_t n = 1; n <= maxGram; ++n) {
          int64_t at = start + (n - 1) * step;
          if (at >= rowLength) break;
          gram.push_back(token(row * rowLength + at));
          if (n < smallest) continue;
          auto hit = columns.find(gram);
          if (hit != columns.end()) ++freq[hit->second];
        }
      }
    }
  }
  for (int64_t i = 0; i < rows * width; ++i) {
    int64_t f = frequency[size_t(i)];
    float w = weights.empty() ? 1.0f : weights[size_t(i % width)];
    if (mode == "TF")
      out[i] = float(f);
    else if (mode == "IDF")
      out[i] = f > 0 ? w : 0.0f;
    else
      out[i] = w * float(f);
  }
  return {};
}

}  // namespace

void registerTfIdfVectorizerCpuKernels(KernelRegistry& r) {
  r.add(kernel("TfIdfVectorizer", tfIdfVectorizerKernel, 9));
}

}  // namespace onyx::exec
