// The random family: random generators (shape functions only: no kernels). Its one registration function: the
// schema table, then each op's CPU kernels (reference before its fast variants: among kernels of equal
// priority the first registered runs) and its Vulkan kernels.
#include "ops/op_family.h"

namespace onyx {
void registerRandomSchemas(OpRegistry& registry);  // random_shapes.cpp
}  // namespace onyx

namespace onyx::ops::random {

void registerFamily(const Registrar& registrar) {
  registrar.add(registerRandomSchemas);
}

}  // namespace onyx::ops::random
