#pragma once
// Pass classes, declared here so the registry and tests can name them; each is defined in its own file.
#include "passes/pass.h"

namespace onyx::passes {

}  // namespace onyx::passes
