#pragma once
// Symbol bindings as users type them in the unknown-dim panel: `batch=1, seq=128` (spaces allowed, commas
// or semicolons between entries). An empty text is no bindings.
#include <string>
#include <string_view>

#include "ir/sym_expr.h"
#include "util/expected.h"

namespace onyx {

Expected<SymBindings> parseBindingsText(std::string_view text);
// The inverse, sorted by name: "batch=1, seq=128".
std::string bindingsText(const SymBindings& bindings);

}  // namespace onyx
