// ai.onnx.preview.training Gradient: the partial derivatives of the tensor named `y` with respect to the
// tensors named in `xs`, with y's own gradient all ones (the derivative of the sum of y's elements). The
// node's inputs are the values of xs then zs; the kernel finds the nodes of its graph that compute y from
// them (and from constants), runs them forward, then backward (reverse mode). Element-wise arithmetic and
// activations with broadcasting, and 2-D MatMul, are differentiable here; any other node on the way is an
// error naming it. Computed in double, written in each x's type.
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "exec/kernel_util.h"

namespace onyx::exec {
namespace {

struct Array {
  Dims dims;
  std::vector<double> v;
  static Array filled(Dims dims, double value) {
    return {dims, std::vector<double>(size_t(elementCount(dims)), value)};
  }
};

Array toArray(const TensorValue& t) {
  Array a{t.dims(), std::vector<double>(size_t(t.count()))};
  for (int64_t i = 0; i < t.count(); ++i) a.v[size_t(i)] = t.doubleAt(i);
  return a;
}

Array map(const Array& a, const std::function<double(double)>& f) {
  Array r{a.dims, a.v};
  for (double& x : r.v) x = f(x);
  return r;
}

// f over the broadcast of a and b; nullopt when they cannot broadcast.
std::optional<Array> zip(const Array& a, const Array& b, const std::function<double(double, double)>& f) {
  auto dims = broadcastShapes({&a.dims, &b.dims});
  if (!dims) return std::nullopt;
  Array r = Array::filled(*dims, 0.0);
  std::array<std::vector<int64_t>, 2> strides = {broadcastStrides(a.dims, *dims),
                                                 broadcastStrides(b.dims, *dims)};
  forEachBroadcast(*dims, strides, [&](int64_t out, const std::array<int64_t, 2>& in) {
    r.v[size_t(out)] = f(a.v[size_t(in[0])], b.v[size_t(in[1])]);
  });
  return r;
}

// A gradient of the broadcast output summed back onto an operand of `dims`.
Array unbroadcast(const Array& g, const Dims& dims) {
  if (g.dims == dims) return g;
  Array r = Array::filled(dims, 0.0);
  std::array<std::vector<int64_t>, 1> strides = {broadcastStrides(dims, g.dims)};
  forEachBroadcast(g.dims, strides, [&](int64_t out, const std::array<int64_t, 1>& in) {
    r.v[size_t(in[0])] += g.v[size_t(out)];
  });
  return r;
}

// a [m, k] times b [k, n], either read transposed.
Array matmul(const Array& a, bool transA, const Array& b, bool transB) {
  const int64_t m = a.dims[transA ? 1 : 0], k = a.dims[transA ? 0 : 1], n = b.dims[transB ? 0 : 1];
  Array r = Array::filled({m, n}, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const double x = transA ? a.v[size_t(p * m + i)] : a.v[size_t(i * k + p)];
      for (int64_t j = 0; j < n; ++j)
        r.v[size_t(i * n + j)] += x * (transB ? b.v[size_t(j * k + p)] : b.v[size_t(p * n + j)]);
    }
  return r;
}

const std::set<std::string>& differentiable() {
  static const std::set<std::string> ops = {"Add",     "Sub",  "Mul", "Div", "Neg",  "Identity", "Relu",
                                            "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "MatMul"};
  return ops;
}

class Differentiation {
 public:
  explicit Differentiation(KernelContext& ctx) : ctx_(ctx) {}

  Expected<void> run() {
    const Node& self = ctx_.node();
    auto xs = ctx_.attrStrings("xs");
    if (!xs || xs->empty())
      return ctx_.error("needs the attribute xs: the names of the tensors to differentiate by");
    const std::vector<std::string> zs = ctx_.attrStrings("zs").value_or(std::vector<std::string>{});
    const std::string y = ctx_.attrString("y");
    if (y.empty()) return ctx_.error("needs the attribute y: the name of the tensor to differentiate");
    if (ctx_.inputCount() != xs->size() + zs.size())
      return ctx_.error("takes one input per name in xs and zs (" + std::to_string(xs->size() + zs.size()) +
                        "), got " + std::to_string(ctx_.inputCount()));
    for (size_t i = 0; i < ctx_.inputCount(); ++i) {
      auto t = ctx_.requireTensor(i);
      if (!t) return t.error();
      // A name listed twice would take the other input's values, and its gradient the other's size.
      const std::string& name = i < xs->size() ? (*xs)[i] : zs[i - xs->size()];
      if (!values_.emplace(name, toArray(**t)).second)
        return ctx_.error("names '" + name + "' twice in xs and zs; list each tensor once");
    }
    graph_ = self.graph();
    if (auto e = forward(y, self); !e) return e;
    gradients_[y] = Array::filled(values_[y].dims, 1.0);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      if (auto e = backward(**it); !e) return e;
    for (size_t i = 0; i < xs->size(); ++i) {
      const TensorValue& x = ctx_.input(i);
      auto out = ctx_.allocateOutput(i, x.dtype(), x.dims());
      if (!out) return out.error();
      auto g = gradients_.find((*xs)[i]);  // y does not depend on x: zeros
      const Array grad = g != gradients_.end() ? g->second : Array::filled(x.dims(), 0.0);
      bool ok = dispatchType<kFloats>(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        for (int64_t e = 0; e < x.count(); ++e)
          (*out)->template data<T>()[e] = fromCompute<T>(ComputeType<T>(grad.v[size_t(e)]));
      });
      if (!ok) return ctx_.unsupportedType(int(i));
    }
    return {};
  }

 private:
  // Computes `name` and what it needs, leaves first; `order_` lists the nodes run.
  Expected<void> forward(const std::string& name, const Node& self) {
    if (values_.count(name)) return {};
    const Value* value = graph_->resolve(name);
    if (!value) return ctx_.error("y depends on '" + name + "', which the graph does not define");
    if (const onyx::Tensor* init = value->initializer()) {
      values_[name] = toArray(TensorValue::fromConstant(*init));
      return {};
    }
    const Node* producer = value->producer();
    if (!producer)
      return ctx_.error("y depends on '" + name +
                        "', which is neither in xs or zs nor a constant: add it to zs");
    if (producer == &self) return ctx_.error("y is computed from this Gradient's own output '" + name + "'");
    if (!visiting_.insert(producer).second)
      return ctx_.error("the nodes computing y form a cycle through " + producer->describe());
    if (producer->opType() == "Constant" && producer->domain().empty()) {
      const Attribute* v = producer->attribute("value");
      if (!v || !v->getTensor())
        return ctx_.error("can only read a Constant's 'value' attribute, not " + producer->describe());
      values_[name] = toArray(TensorValue::fromConstant(*v->getTensor()));
      return {};
    }
    if (!producer->domain().empty() || !differentiable().count(producer->opType()))
      return ctx_.error(
          "cannot differentiate through " + producer->describe() +
          "; Gradient supports Add, Sub, Mul, Div, Neg, Identity, Relu, Sigmoid, Tanh, Exp, Log, "
          "Sqrt and 2-D MatMul");
    std::vector<const Array*> in;
    for (const Value* input : producer->inputs()) {
      if (!input)
        return ctx_.error("cannot differentiate " + producer->describe() + " with an omitted input");
      if (auto e = forward(input->name(), self); !e) return e;
      in.push_back(&values_[input->name()]);
    }
    auto out = evaluate(*producer, in);
    if (!out) return out.error();
    values_[producer->output(0)->name()] = std::move(*out);
    order_.push_back(producer);
    return {};
  }

  Expected<Array> evaluate(const Node& node, const std::vector<const Array*>& in) {
    const std::string& op = node.opType();
    auto binary = [&](const std::function<double(double, double)>& f) -> Expected<Array> {
      auto r = zip(*in[0], *in[1], f);
      if (!r)
        return makeError("shapes " + describeTensor(DataType::Double, in[0]->dims) + " and " +
                             describeTensor(DataType::Double, in[1]->dims) + " cannot broadcast",
                         node.describe());
      return *r;
    };
    if (in.size() != (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "MatMul" ? 2u : 1u))
      return makeError("unexpected input count " + std::to_string(in.size()), node.describe());
    if (op == "Add") return binary([](double a, double b) { return a + b; });
    if (op == "Sub") return binary([](double a, double b) { return a - b; });
    if (op == "Mul") return binary([](double a, double b) { return a * b; });
    if (op == "Div") return binary([](double a, double b) { return a / b; });
    if (op == "MatMul") {
      if (in[0]->dims.size() != 2 || in[1]->dims.size() != 2 || in[0]->dims[1] != in[1]->dims[0])
        return makeError("Gradient differentiates MatMul of two matrices [m, k] x [k, n] only; got " +
                             describeTensor(DataType::Double, in[0]->dims) + " and " +
                             describeTensor(DataType::Double, in[1]->dims),
                         node.describe());
      return matmul(*in[0], false, *in[1], false);
    }
    if (op == "Neg") return map(*in[0], [](double x) { return -x; });
    if (op == "Identity") return *in[0];
    if (op == "Relu") return map(*in[0], [](double x) { return x > 0 ? x : 0.0; });
    if (op == "Sigmoid") return map(*in[0], [](double x) { return 1 / (1 + std::exp(-x)); });
    if (op == "Tanh") return map(*in[0], [](double x) { return std::tanh(x); });
    if (op == "Exp") return map(*in[0], [](double x) { return std::exp(x); });
    if (op == "Log") return map(*in[0], [](double x) { return std::log(x); });
    return map(*in[0], [](double x) { return std::sqrt(x); });  // Sqrt
  }

  // Adds the node's inputs' shares of its output's gradient.
  Expected<void> backward(const Node& node) {
    auto g = gradients_.find(node.output(0)->name());
    if (g == gradients_.end()) return {};  // y does not depend on this node
    const Array gy = g->second;
    const std::string& op = node.opType();
    const Array& a = values_[node.input(0)->name()];
    const Array& y = values_[node.output(0)->name()];
    auto add = [&](size_t input, const Array& share) {
      const std::string& name = node.input(input)->name();
      auto [it, fresh] = gradients_.try_emplace(name, share);
      if (!fresh)
        for (size_t i = 0; i < share.v.size(); ++i) it->second.v[i] += share.v[i];
    };
    auto times = [](const Array& p, const Array& q, const std::function<double(double, double)>& f) {
      return *zip(p, q, f);  // shapes that broadcast forward broadcast here too
    };
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
      const Array& b = values_[node.input(1)->name()];
      if (op == "Add" || op == "Sub") {
        add(0, unbroadcast(gy, a.dims));
        add(1, unbroadcast(op == "Add" ? gy : map(gy, [](double x) { return -x; }), b.dims));
      } else if (op == "Mul") {
        add(0, unbroadcast(times(gy, b, [](double p, double q) { return p * q; }), a.dims));
        add(1, unbroadcast(times(gy, a, [](double p, double q) { return p * q; }), b.dims));
      } else {
        add(0, unbroadcast(times(gy, b, [](double p, double q) { return p / q; }), a.dims));
        // d(a / b)/db = -a / b^2 = -y / b
        Array yOverB = times(y, b, [](double p, double q) { return p / q; });
        add(1, unbroadcast(times(gy, yOverB, [](double p, double q) { return -p * q; }), b.dims));
      }
    } else if (op == "MatMul") {
      const Array& b = values_[node.input(1)->name()];
      add(0, matmul(gy, false, b, true));
      add(1, matmul(a, true, gy, false));
    } else {
      std::function<double(double, double, double)> local;  // (x, y, dy) -> dx
      if (op == "Neg") local = [](double, double, double d) { return -d; };
      if (op == "Identity") local = [](double, double, double d) { return d; };
      if (op == "Relu") local = [](double x, double, double d) { return x > 0 ? d : 0.0; };
      if (op == "Sigmoid") local = [](double, double s, double d) { return d * s * (1 - s); };
      if (op == "Tanh") local = [](double, double t, double d) { return d * (1 - t * t); };
      if (op == "Exp") local = [](double, double e, double d) { return d * e; };
      if (op == "Log") local = [](double x, double, double d) { return d / x; };
      if (op == "Sqrt") local = [](double, double r, double d) { return d * 0.5 / r; };
      Array share{a.dims, std::vector<double>(a.v.size())};
      for (size_t i = 0; i < a.v.size(); ++i) share.v[i] = local(a.v[i], y.v[i], gy.v[i]);
      add(0, share);
    }
    return {};
  }

  KernelContext& ctx_;
  const Graph* graph_ = nullptr;
  std::map<std::string, Array> values_, gradients_;
  std::set<const Node*> visiting_;
  std::vector<const Node*> order_;  // nodes run forward, each after its inputs' producers
};

Expected<void> gradientKernel(KernelContext& ctx) {
  return Differentiation(ctx).run();
}

}  // namespace

void registerGradientCpuKernels(KernelRegistry& r) {
  KernelDef def = kernel("Gradient", gradientKernel, 1);
  def.domain = "ai.onnx.preview.training";
  r.add(std::move(def));
}

}  // namespace onyx::exec
