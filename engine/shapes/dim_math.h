#pragma once
// Arithmetic on dims. A result involving an unknown dim is unknown with that dim's origin, so a dim derived
// from an unknown one points to where the information was lost, not to each consumer.
#include <optional>
#include <span>
#include <vector>

#include "ir/dim.h"

namespace onyx {

Dim dimAdd(const Dim& a, const Dim& b);
Dim dimSub(const Dim& a, const Dim& b);
Dim dimMul(const Dim& a, const Dim& b);
Dim dimFloorDiv(const Dim& a, const Dim& b);
Dim dimCeilDiv(const Dim& a, const Dim& b);
Dim dimTruncDiv(const Dim& a, const Dim& b);
Dim dimFloorMod(const Dim& a, const Dim& b);
Dim dimTruncMod(const Dim& a, const Dim& b);
Dim dimMin(const Dim& a, const Dim& b);
Dim dimMax(const Dim& a, const Dim& b);
Dim dimProduct(std::span<const Dim> dims);

// The first unknown dim among `dims`, or null: what a derived unknown dim inherits.
const Dim* firstUnknown(std::span<const Dim> dims);

// True/false when `a == b` holds for every assignment of the symbols / for none; nullopt when undecidable
// or a dim is unknown.
std::optional<bool> dimsEqual(const Dim& a, const Dim& b);

// Static values of all dims, or nullopt.
std::optional<std::vector<int64_t>> staticValues(std::span<const Dim> dims);
std::vector<Dim> dimsFromInts(std::span<const int64_t> values);

}  // namespace onyx
