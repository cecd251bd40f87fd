#pragma once
// Element conversions for the narrow types the executor stores one byte per element: the float8 family
// (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0), float4e2m1 and the 4- and 2-bit integers (int4/int2 stored
// sign-extended, uint4/uint2 zero-extended). Used by Cast, CastLike and the quantization kernels.
#include <cstdint>
#include <string_view>

#include "ir/data_type.h"

namespace onyx::exec {

// How a value between two float8e8m0 powers of two is rounded (Cast's round_mode attribute).
enum class E8M0Rounding { Up, Down, Nearest };

// E8M0Rounding for "up", "down" or "nearest"; false for anything else.
bool parseE8M0Rounding(std::string_view text, E8M0Rounding& out);

// True for the float8 family, float4e2m1, int4/uint4 and int2/uint2.
bool isNarrowType(DataType dtype);

// The value of one stored element (NaN and infinities where the type has them).
double narrowToDouble(DataType dtype, uint8_t stored);

// The stored element for `value`. Floats round to nearest even; with `saturate`, values beyond the
// largest finite one (infinities included) become it, otherwise they become infinity or NaN as the type
// allows (float4e2m1 always saturates). Integers truncate toward zero and keep the low bits (wrap).
uint8_t doubleToNarrow(DataType dtype, double value, bool saturate, E8M0Rounding rounding = E8M0Rounding::Up);

}  // namespace onyx::exec
