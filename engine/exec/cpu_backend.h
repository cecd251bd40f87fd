#pragma once
// The CPU backend: runs every node that has a CPU kernel (the reference kernels, or the best optimized
// variant per node), on host memory. It is the executor's usual fallback: registered as "cpu"
// (exec/builtin_backends.cpp).
#include <string>

#include "exec/backend.h"

namespace onyx::exec {

class CpuBackend final : public Backend {
 public:
  // `variant`: only kernels of that variant (tests pin "reference"); empty: the best kernel per node.
  explicit CpuBackend(ThreadPool& pool, std::string variant = {});
  std::string_view name() const override { return "cpu"; }
  bool usesHostMemory() const override { return true; }
  bool supports(const Node& node, int opset) const override;
  Expected<std::unique_ptr<PreparedNode>> prepare(const Node& node, int opset, const NodeShapes& shapes,
                                                  const std::vector<const onyx::Tensor*>& constants) override;

 private:
  ThreadPool& pool_;
  std::string variant_;
};

}  // namespace onyx::exec
