#include "exec/cpu_backend.h"

#include "exec/cpu/cpu_isa.h"

namespace onyx::exec {

const std::vector<std::pair<int, int>>& PreparedNode::inPlace() const {
  static const std::vector<std::pair<int, int>> none;
  return none;
}

const std::vector<int>& PreparedNode::hostInputs() const {
  static const std::vector<int> none;
  return none;
}

namespace {

class CpuPreparedNode final : public PreparedNode {
 public:
  CpuPreparedNode(const KernelDef& def, std::unique_ptr<Kernel> kernel)
      : def_(def), kernel_(std::move(kernel)) {}
  Expected<void> run(KernelContext& context) override {
    return kernel_ ? kernel_->run(context) : def_.function(context);
  }
  std::string_view variant() const override { return def_.variant; }
  int64_t flops(const KernelContext& context) const override { return def_.flops ? def_.flops(context) : 0; }
  const std::vector<std::pair<int, int>>& inPlace() const override { return def_.inPlace; }
  bool setEpilogue(const std::vector<EpilogueOp>& ops) override { return kernel_ && kernel_->setEpilogue(ops); }
  bool canFuseEpilogue(const KernelContext& context) const override {
    return kernel_ && kernel_->canFuseEpilogue(context);
  }
  bool acceptsChannelsLast(size_t input) const override { return kernel_ && kernel_->acceptsChannelsLast(input); }
  bool producesChannelsLast() const override { return kernel_ && kernel_->producesChannelsLast(); }
  bool readsChannelsLastOnlyToKeepIt() const override {
    return kernel_ && kernel_->readsChannelsLastOnlyToKeepIt();
  }
  bool acceptsBlocked16(size_t input) const override { return kernel_ && kernel_->acceptsBlocked16(input); }
  std::string_view algorithm() const override { return kernel_ ? kernel_->algorithm() : std::string_view(); }
  std::string_view implementation() const override {
    if (kernel_ && !kernel_->implementation().empty()) return kernel_->implementation();
    return def_.isaDispatched ? cpuIsaName(cpuIsa()) : std::string_view();
  }

 private:
  const KernelDef& def_;
  std::unique_ptr<Kernel> kernel_;
};

}  // namespace

CpuBackend::CpuBackend(ThreadPool& pool, std::string variant) : pool_(pool), variant_(std::move(variant)) {}

bool CpuBackend::supports(const Node& node, int opset) const {
  return cpuKernels().find(node, opset, variant_) != nullptr;
}

Expected<std::unique_ptr<PreparedNode>> CpuBackend::prepare(
    const Node& node, int opset, const NodeShapes&, const std::vector<const onyx::Tensor*>& constants) {
  const KernelDef* def = cpuKernels().find(node, opset, variant_);
  if (!def) {
    return makeError("no CPU kernel for " + node.opType() + " at opset " + std::to_string(opset) +
                         "; the op is not supported yet",
                     node.describe());
  }
  std::unique_ptr<Kernel> kernel;
  if (def->factory) {
    PrepareContext context{node, opset, pool_, constants};
    auto made = def->factory(context);
    if (!made) return made.error();
    kernel = std::move(*made);
  }
  return std::unique_ptr<PreparedNode>(std::make_unique<CpuPreparedNode>(*def, std::move(kernel)));
}

}  // namespace onyx::exec
