// ai.onnx.ml ops: ArrayFeatureExtractor, Binarizer, LabelEncoder, TreeEnsemble.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "exec/kernel_util.h"
#include "ir/tensor.h"

namespace onyx::exec {
namespace {

constexpr const char* kMlDomain = "ai.onnx.ml";

// ArrayFeatureExtractor: picks the given indices along the last axis.
Expected<void> arrayFeatureExtractorKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto indices = ctx.intsInput(1);
  if (!indices) return ctx.error("indices must be an integer tensor", 1);
  const TensorValue& in = **x;
  if (in.rank() < 1) return ctx.error("X must have at least one dimension", 0);
  int64_t width = in.dims().back(), rows = width ? in.count() / width : 0;
  for (int64_t i : *indices)
    if (i < 0 || i >= width)
      return ctx.error("index " + std::to_string(i) + " is out of range for " + in.describe(), 1);
  Dims outDims = in.dims();
  outDims.back() = int64_t(indices->size());
  if (in.rank() == 1) outDims.insert(outDims.begin(), 1);  // the spec's output for a vector is [1, k]
  auto y = ctx.allocateOutput(0, in.dtype(), outDims);
  if (!y) return y.error();
  bool ok = dispatchType<kAllTypes>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in.template data<T>();
    T* dst = (*y)->template data<T>();
    size_t k = indices->size();
    for (int64_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < k; ++j) dst[size_t(r) * k + j] = src[r * width + (*indices)[j]];
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

Expected<void> binarizerKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  double threshold = ctx.attrFloat("threshold", 0.0f);
  auto y = ctx.allocateOutput(0, (*x)->dtype(), (*x)->dims());
  if (!y) return y.error();
  bool ok = dispatchType<kNumbers>((*x)->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < (*x)->count(); ++i) {
      double v = double(ComputeType<T>((*x)->template data<T>()[i]));
      (*y)->template data<T>()[i] = fromCompute<T>(ComputeType<T>(v > threshold ? 1 : 0));
    }
  });
  return ok ? Expected<void>() : ctx.unsupportedType(0);
}

// LabelEncoder keys and values come from one of several attributes; a tensor attribute covers them all.
std::optional<TensorValue> listAttribute(KernelContext& ctx, const std::string& prefix) {
  if (const onyx::Tensor* t = ctx.attrTensor(prefix + "_tensor")) return TensorValue::fromConstant(*t);
  if (auto v = ctx.attrStrings(prefix + "_strings"))
    return TensorValue::fromStrings({int64_t(v->size())}, *v);
  if (auto v = ctx.attrInts(prefix + "_int64s"))
    return TensorValue::fromVector<int64_t>(DataType::Int64, {int64_t(v->size())}, *v);
  if (auto v = ctx.attrFloats(prefix + "_floats"))
    return TensorValue::fromVector<float>(DataType::Float, {int64_t(v->size())}, *v);
  return std::nullopt;
}

using Key = std::variant<int64_t, double, std::string>;

Key keyAt(const TensorValue& t, int64_t i) {
  if (t.dtype() == DataType::String) return t.data<std::string>()[i];
  if (t.dtype() == DataType::Float || t.dtype() == DataType::Double || t.dtype() == DataType::Float16)
    return t.doubleAt(i);
  return t.intAt(i);
}

// NaN keys match NaN inputs (the spec's rule), so doubles compare with NaN as the smallest value.
struct KeyLess {
  bool operator()(const Key& a, const Key& b) const {
    if (a.index() != b.index()) return a.index() < b.index();
    if (const double* da = std::get_if<double>(&a)) {
      double db = std::get<double>(b);
      if (std::isnan(*da) || std::isnan(db)) return std::isnan(*da) && !std::isnan(db);
      return *da < db;
    }
    return a < b;
  }
};

Expected<void> labelEncoderKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  auto keys = listAttribute(ctx, "keys");
  auto values = listAttribute(ctx, "values");
  if (!keys || !values) return ctx.error("needs keys_* and values_* attributes");
  if (keys->count() != values->count()) return ctx.error("keys and values must have the same length");
  DataType outType = values->dtype();
  TensorValue fallback;
  if (const onyx::Tensor* t = ctx.attrTensor("default_tensor")) {
    fallback = TensorValue::fromConstant(*t);
    if (fallback.count() != 1 || fallback.dtype() != outType)
      return ctx.error("default_tensor must hold one value of the values' type");
  } else if (outType == DataType::String) {
    fallback = TensorValue::fromStrings({}, {ctx.attrString("default_string", "_Unused")});
  } else if (outType == DataType::Int64) {
    fallback = TensorValue::scalar<int64_t>(DataType::Int64, ctx.attrInt("default_int64", -1));
  } else if (outType == DataType::Float) {
    fallback = TensorValue::scalar<float>(DataType::Float, ctx.attrFloat("default_float", -0.0f));
  } else {
    fallback = TensorValue::allocate(outType, {});
  }
  std::map<Key, int64_t, KeyLess> index;
  for (int64_t i = 0; i < keys->count(); ++i) index.emplace(keyAt(*keys, i), i);
  const TensorValue& in = **x;
  if ((in.dtype() == DataType::String) != (keys->dtype() == DataType::String))
    return ctx.error("input type " + in.describe() + " does not match the keys' type", 0);
  auto y = ctx.allocateOutput(0, outType, in.dims());
  if (!y) return y.error();
  bool ok = dispatchType<kAllTypes>(outType, [&](auto tag) {
    using T = decltype(tag);
    T* dst = (*y)->template data<T>();
    for (int64_t i = 0; i < in.count(); ++i) {
      auto hit = index.find(keyAt(in, i));
      dst[i] = hit == index.end() ? fallback.template data<T>()[0] : values->template data<T>()[hit->second];
    }
  });
  return ok ? Expected<void>() : ctx.error("values of type " + values->describe() + " are not supported");
}

// TreeEnsemble (opset 5): trees of comparisons whose leaves add weights to targets.
enum class SplitMode { Leq, Lt, Gte, Gt, Eq, Neq, Member };

struct TreeEnsembleModel {
  std::vector<int64_t> features, trueIds, falseIds, trueLeaf, falseLeaf, leafTargets, roots;
  std::vector<double> splits, leafWeights;
  std::vector<uint8_t> modes;
  std::vector<int64_t> missingTracksTrue;
  std::map<int64_t, std::set<double>> members;  // per MEMBER node
};

std::vector<double> tensorAsDoubles(const onyx::Tensor* t) {
  std::vector<double> out;
  if (!t) return out;
  TensorValue v = TensorValue::fromConstant(*t);
  for (int64_t i = 0; i < v.count(); ++i) out.push_back(v.doubleAt(i));
  return out;
}

Expected<void> treeEnsembleKernel(KernelContext& ctx) {
  auto x = ctx.requireTensor(0);
  if (!x) return x.error();
  const TensorValue& in = **x;
  if (in.rank() != 2) return ctx.error("X must be [N, features], got " + in.describe(), 0);
  TreeEnsembleModel m;
  auto ints = [&](const char* name) { return ctx.attrInts(name).value_or(std::vector<int64_t>{}); };
  m.features = ints("nodes_featureids");
  m.trueIds = ints("nodes_truenodeids");
  m.falseIds = ints("nodes_falsenodeids");
  m.trueLeaf = ints("nodes_trueleafs");
  m.falseLeaf = ints("nodes_falseleafs");
  m.leafTargets = ints("leaf_targetids");
  m.roots = ints("tree_roots");
  m.missingTracksTrue = ints("nodes_missing_value_tracks_true");
  m.splits = tensorAsDoubles(ctx.attrTensor("nodes_splits"));
  m.leafWeights = tensorAsDoubles(ctx.attrTensor("leaf_weights"));
  for (double v : tensorAsDoubles(ctx.attrTensor("nodes_modes"))) {
    // Checked before converting: a NaN or out-of-range mode was converted to uint8 (fuzz_run, UBSan), and an
    // unknown one silently never went true.
    if (!(v >= 0 && v <= double(SplitMode::Member)) || v != std::floor(v))
      return ctx.error("nodes_modes holds " + std::to_string(v) +
                       ", which is no split mode (0-6: BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ, "
                       "BRANCH_NEQ, BRANCH_MEMBER)");
    m.modes.push_back(uint8_t(v));
  }
  std::vector<double> memberValues = tensorAsDoubles(ctx.attrTensor("membership_values"));
  size_t nodes = m.features.size();
  if (m.trueIds.size() != nodes || m.falseIds.size() != nodes || m.trueLeaf.size() != nodes ||
      m.falseLeaf.size() != nodes || m.splits.size() != nodes || m.modes.size() != nodes)
    return ctx.error("the nodes_* attributes must all have one entry per node");
  if (!m.missingTracksTrue.empty() && m.missingTracksTrue.size() != nodes)
    return ctx.error("nodes_missing_value_tracks_true must be empty or have one entry per node");
  if (m.leafTargets.size() != m.leafWeights.size())
    return ctx.error("leaf_targetids and leaf_weights must have the same length");
  int64_t targets = ctx.attrInt("n_targets", 1);
  // MEMBER nodes take their sets from membership_values (NaN-separated) in depth-first, true-first order.
  size_t memberCursor = 0;
  std::string structureError;
  auto visit = [&](auto&& self, int64_t id, bool leaf, int depth) -> void {
    if (leaf || !structureError.empty()) return;
    if (id < 0 || size_t(id) >= nodes || depth > 10000) {
      structureError = "node id " + std::to_string(id) + " is out of range";
      return;
    }
    if (m.modes[size_t(id)] == uint8_t(SplitMode::Member) && !m.members.count(id)) {
      std::set<double>& set = m.members[id];
      while (memberCursor < memberValues.size() && !std::isnan(memberValues[memberCursor]))
        set.insert(memberValues[memberCursor++]);
      ++memberCursor;
    }
    self(self, m.trueIds[size_t(id)], m.trueLeaf[size_t(id)] != 0, depth + 1);
    self(self, m.falseIds[size_t(id)], m.falseLeaf[size_t(id)] != 0, depth + 1);
  };
  for (int64_t root : m.roots) visit(visit, root, false, 0);
  if (!structureError.empty()) return ctx.error(structureError);
  int64_t aggregate = ctx.attrInt("aggregate_function", 1), post = ctx.attrInt("post_transform", 0);
  if (aggregate < 0 || aggregate > 3) return ctx.error("aggregate_function must be 0..3");
  if (post < 0 || post > 3) return ctx.error("post_transform " + std::to_string(post) + " is not supported");
  int64_t rows = in.dim(0), featureCount = in.dim(1);
  for (int64_t f : m.features)
    if (f < 0 || f >= featureCount)
      return ctx.error("feature id " + std::to_string(f) + " is out of range", 0);
  for (int64_t t : m.leafTargets)
    if (t < 0 || t >= targets) return ctx.error("leaf target id " + std::to_string(t) + " is out of range");
  auto y = ctx.allocateOutput(0, in.dtype(), {rows, targets});
  if (!y) return y.error();
  auto goesTrue = [&](int64_t id, double v) {
    if (std::isnan(v) && !m.missingTracksTrue.empty() && m.missingTracksTrue[size_t(id)]) return true;
    double split = m.splits[size_t(id)];
    switch (SplitMode(m.modes[size_t(id)])) {
      case SplitMode::Leq:
        return v <= split;
      case SplitMode::Lt:
        return v < split;
      case SplitMode::Gte:
        return v >= split;
      case SplitMode::Gt:
        return v > split;
      case SplitMode::Eq:
        return v == split;
      case SplitMode::Neq:
        return v != split;
      case SplitMode::Member:
        return m.members[id].count(v) > 0;
    }
    return false;
  };
  std::vector<double> result(static_cast<size_t>(targets));
  for (int64_t r = 0; r < rows; ++r) {
    double start = aggregate == 2   ? std::numeric_limits<double>::max()
                   : aggregate == 3 ? std::numeric_limits<double>::lowest()
                                    : 0.0;
    std::fill(result.begin(), result.end(), start);
    for (int64_t root : m.roots) {
      int64_t id = root;
      // A root whose branches both lead to the same leaf is itself that leaf.
      bool leaf = m.trueLeaf[size_t(root)] && m.falseLeaf[size_t(root)] &&
                  m.trueIds[size_t(root)] == m.falseIds[size_t(root)];
      if (leaf) id = m.trueIds[size_t(root)];
      for (int steps = 0; !leaf; ++steps) {
        if (steps > int(nodes)) return ctx.error("the trees contain a cycle");
        bool branch = goesTrue(id, in.doubleAt(r * featureCount + m.features[size_t(id)]));
        leaf = branch ? m.trueLeaf[size_t(id)] != 0 : m.falseLeaf[size_t(id)] != 0;
        id = branch ? m.trueIds[size_t(id)] : m.falseIds[size_t(id)];
      }
      if (id < 0 || size_t(id) >= m.leafWeights.size()) return ctx.error("leaf id is out of range");
      double w = m.leafWeights[size_t(id)];
      double& slot = result[size_t(m.leafTargets[size_t(id)])];
      if (aggregate == 0)
        slot += w / double(m.roots.size());
      else if (aggregate == 1)
        slot += w;
      else if (aggregate == 2)
        slot = std::min(slot, w);
      else
        slot = std::max(slot, w);
    }
    if (post == 2)
      for (double& v : result) v = 1.0 / (1.0 + std::exp(-v));
    if ((post == 1 || post == 3) && !result.empty()) {  // n_targets 0: nothing to normalise
      double top = *std::max_element(result.begin(), result.end()), sum = 0;
      for (double& v : result) {
        v = post == 3 && v == 0 ? 0 : std::exp(v - top);
        sum += v;
      }
      for (double& v : result) v = sum > 0 ? v / sum : 0;
    }
    bool ok = dispatchType<kFloats>(in.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (int64_t t = 0; t < targets; ++t)
        (*y)->template data<T>()[r * targets + t] = fromCompute<T>(ComputeType<T>(result[size_t(t)]));
    });
    if (!ok) return ctx.unsupportedType(0);
  }
  return {};
}

KernelDef mlKernel(std::string op, KernelFunction f, int since) {
  KernelDef def = kernel(std::move(op), f, since);
  def.domain = kMlDomain;
  return def;
}

}  // namespace

void registerMlCpuKernels(KernelRegistry& r) {
  r.add(mlKernel("ArrayFeatureExtractor", arrayFeatureExtractorKernel, 1));
  r.add(mlKernel("Binarizer", binarizerKernel, 1));
  r.add(mlKernel("LabelEncoder", labelEncoderKernel, 2));
  r.add(mlKernel("TreeEnsemble", treeEnsembleKernel, 5));
}

}  // namespace onyx::exec
