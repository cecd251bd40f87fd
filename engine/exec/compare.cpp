#include "exec/compare.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "ir/model.h"

namespace onyx::exec {

namespace {

Comparison compareTensors(const TensorValue& a, const TensorValue& e, const Tolerance& tol) {
  Comparison c;
  if (a.dtype() != e.dtype() || a.dims() != e.dims()) {
    c.ok = false;
    c.reason = "got " + a.describe() + ", expected " + e.describe();
    return c;
  }
  bool exact = !isFloatingPoint(e.dtype());
  for (int64_t i = 0; i < e.count(); ++i) {
    bool same;
    if (e.dtype() == DataType::String) {
      same = a.data<std::string>()[i] == e.data<std::string>()[i];
      if (!same && c.mismatches == 0)
        c.reason = fmt::format("element {}: \"{}\" vs expected \"{}\"", i, a.data<std::string>()[i],
                               e.data<std::string>()[i]);
    } else if (exact) {
      same = a.intAt(i) == e.intAt(i);
      if (!same && c.mismatches == 0)
        c.reason = fmt::format("element {}: {} vs expected {}", i, a.intAt(i), e.intAt(i));
    } else {
      double x = a.doubleAt(i), y = e.doubleAt(i);
      if (std::isnan(x) || std::isnan(y)) {
        same = std::isnan(x) && std::isnan(y);
      } else if (std::isinf(y) || std::isinf(x)) {
        same = x == y;
      } else {
        double err = std::abs(x - y);
        c.maxAbsError = std::max(c.maxAbsError, err);
        if (y != 0) c.maxRelError = std::max(c.maxRelError, err / std::abs(y));
        same = err <= tol.atol + tol.rtol * std::abs(y);
      }
      if (!same && c.mismatches == 0) c.reason = fmt::format("element {}: {} vs expected {}", i, x, y);
    }
    if (!same) {
      c.ok = false;
      ++c.mismatches;
    }
  }
  if (!c.ok)
    c.reason = fmt::format("{} of {} elements differ; first at {}", c.mismatches, e.count(), c.reason);
  return c;
}

}  // namespace

Comparison compareValues(const RunValue& actual, const RunValue& expected, const Tolerance& tolerance) {
  Comparison c;
  if (auto* e = std::get_if<TensorValue>(&expected)) {
    auto* a = std::get_if<TensorValue>(&actual);
    if (!a) return {false, "got " + describeValue(actual) + ", expected " + e->describe()};
    return compareTensors(*a, *e, tolerance);
  }
  if (auto* e = std::get_if<SequenceValue>(&expected)) {
    auto* a = std::get_if<SequenceValue>(&actual);
    if (!a) return {false, "got " + describeValue(actual) + ", expected a sequence"};
    if (a->tensors.size() != e->tensors.size())
      return {false,
              fmt::format("sequence has {} tensors, expected {}", a->tensors.size(), e->tensors.size())};
    for (size_t i = 0; i < e->tensors.size(); ++i) {
      Comparison item = compareTensors(a->tensors[i], e->tensors[i], tolerance);
      c.maxAbsError = std::max(c.maxAbsError, item.maxAbsError);
      c.maxRelError = std::max(c.maxRelError, item.maxRelError);
      if (!item.ok)
        return {false, fmt::format("sequence item {}: {}", i, item.reason), c.maxAbsError, c.maxRelError, 1};
    }
    return c;
  }
  if (std::holds_alternative<EmptyOptional>(expected)) {
    if (!std::holds_alternative<EmptyOptional>(actual))
      return {false, "got " + describeValue(actual) + ", expected an empty optional"};
    return c;
  }
  if (!std::holds_alternative<std::monostate>(actual))
    return {false, "got " + describeValue(actual) + ", expected nothing"};
  return c;
}

Comparison compareDetectionsAsSets(const std::vector<RunValue>& actual, const std::vector<RunValue>& expected,
                                   const Tolerance& tolerance) {
  if (actual.size() != expected.size()) return {false, "output count differs"};
  int64_t rows = -1;
  std::vector<std::vector<double>> a, e;
  std::vector<double> scale;  // per row element: the largest magnitude in its output
  for (size_t k = 0; k < expected.size(); ++k) {
    auto* at = std::get_if<TensorValue>(&actual[k]);
    auto* et = std::get_if<TensorValue>(&expected[k]);
    if (!at || !et || at->dims() != et->dims() || at->dtype() != et->dtype() || et->rank() == 0)
      return {false, fmt::format("output {}: shapes or types differ", k)};
    if (rows < 0) {
      rows = et->dim(0);
      a.assign(size_t(rows), {});
      e.assign(size_t(rows), {});
    } else if (et->dim(0) != rows) {
      return {false, "outputs do not share a leading detection dim"};
    }
    int64_t width = rows ? et->count() / rows : 0;
    double largest = 0;
    for (int64_t i = 0; i < et->count(); ++i) largest = std::max(largest, std::abs(et->doubleAt(i)));
    for (int64_t j = 0; j < width; ++j) scale.push_back(largest);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < width; ++j) {
        a[size_t(r)].push_back(at->doubleAt(r * width + j));
        e[size_t(r)].push_back(et->doubleAt(r * width + j));
      }
  }
  Comparison c;
  std::vector<bool> used(size_t(std::max<int64_t>(rows, 0)), false);
  for (int64_t r = 0; r < rows; ++r) {
    bool found = false;
    for (int64_t q = 0; q < rows && !found; ++q) {
      if (used[size_t(q)]) continue;
      bool match = true;
      double worst = 0;
      for (size_t j = 0; j < e[size_t(r)].size() && match; ++j) {
        double err = std::abs(a[size_t(q)][j] - e[size_t(r)][j]);
        worst = std::max(worst, err);
        match = err <= tolerance.atol + tolerance.rtol * std::max(std::abs(e[size_t(r)][j]), scale[j]);
      }
      if (match) {
        used[size_t(q)] = true;
        found = true;
        c.maxAbsError = std::max(c.maxAbsError, worst);
      }
    }
    if (!found) {
      c.ok = false;
      ++c.mismatches;
      if (c.reason.empty()) c.reason = fmt::format("expected detection {} has no match within tolerance", r);
    }
  }
  return c;
}

Expected<RunValue> toRunValue(const TestValue& value, const Type& declared) {
  switch (value.kind) {
    case TestValue::Kind::Tensor:
      return RunValue(TensorValue::fromConstant(value.tensor));
    case TestValue::Kind::Sequence: {
      SequenceValue seq;
      if (declared.kind() == Type::Kind::Sequence) seq.elemType = declared.element().elemType();
      for (const TestValue& item : value.elements) {
        if (item.kind != TestValue::Kind::Tensor)
          return makeError("sequences of non-tensors are not supported", value.name);
        seq.tensors.push_back(TensorValue::fromConstant(item.tensor));
        seq.elemType = item.tensor.dtype();
      }
      return RunValue(std::move(seq));
    }
    case TestValue::Kind::Optional: {
      if (value.elements.empty()) return RunValue(EmptyOptional{declared});
      return toRunValue(value.elements[0],
                        declared.kind() == Type::Kind::Optional ? declared.element() : Type());
    }
    case TestValue::Kind::Map:
      break;
  }
  return makeError("map values are not supported by the executor", value.name);
}

Expected<TestDataSet> loadTestDataSet(const Model& model, const std::filesystem::path& folder) {
  TestDataSet set;
  const Graph& graph = model.graph();
  std::vector<const onyx::Value*> inputs;
  for (const onyx::Value* v : graph.inputs())
    if (!v->isInitializer()) inputs.push_back(v);
  for (size_t k = 0;; ++k) {
    auto path = folder / ("input_" + std::to_string(k) + ".pb");
    if (!std::filesystem::exists(path)) break;
    if (k >= inputs.size()) return makeError("more input files than model inputs", path.string());
    // The file is blamed, and the input named, rather than the tensor's own (often empty) name.
    std::string name = inputs[k]->name();
    auto inFile = [&](const Error& error) {
      return makeError(error.message + " (model input " + std::to_string(k) + " '" + name + "')", path.string());
    };
    auto loaded = loadTestValueFile(path, inputs[k]->type());
    if (!loaded) return inFile(loaded.error());
    auto value = toRunValue(*loaded, inputs[k]->type());
    if (!value) return inFile(value.error());
    set.inputs.push_back({name, std::move(*value)});
  }
  for (size_t k = 0;; ++k) {
    auto path = folder / ("output_" + std::to_string(k) + ".pb");
    if (!std::filesystem::exists(path)) break;
    Type declared = k < graph.outputs().size() ? graph.outputs()[k]->type() : Type();
    auto inFile = [&](const Error& error) {
      return makeError(error.message + " (expected output " + std::to_string(k) + ")", path.string());
    };
    auto loaded = loadTestValueFile(path, declared);
    if (!loaded) return inFile(loaded.error());
    auto value = toRunValue(*loaded, declared);
    if (!value) return inFile(value.error());
    set.outputs.push_back(std::move(*value));
  }
  return set;
}

}  // namespace onyx::exec
