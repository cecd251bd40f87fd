// The one list of op families. Adding a family means adding its register function here.
#include "ops/op_registry.h"

namespace onyx {

const OpRegistry& opRegistry() {
  static const OpRegistry registry = [] {
    OpRegistry built;
    registerMathOps(built);
    registerActivationOps(built);
    registerLogicOps(built);
    registerReductionOps(built);
    registerNnOps(built);
    registerTensorOps(built);
    registerControlFlowOps(built);
    registerSequenceOps(built);
    registerRnnOps(built);
    registerQuantizationOps(built);
    registerRandomOps(built);
    registerDetectionOps(built);
    registerMiscOps(built);
    return built;
  }();
  return registry;
}

}  // namespace onyx
