//===- Fp8.h - The fp8 storage types' conversions (the reference) -*- C++ -*-===//
//
// f8e4m3 (OCP FP8 E4M3, "FN": bias 7, no infinity, S.1111.111 is NaN, largest
// finite 448) and f8e5m2 (OCP FP8 E5M2: bias 15, IEEE-like with ±inf, largest
// finite 57344). The interpreter, the runtime's host tensors and `.npy` I/O use
// these; the targets emit the same rule in integer arithmetic
// (ph/Conversion/ConvertRules.h), and tests/unit/frontend/Fp8Test.cpp checks
// every bit pattern against an independent reference. docs/language.md, "fp8":
//   - widening (fp8 -> f32) is exact; f8e5m2's ±inf stay ±inf, NaN stays NaN;
//   - narrowing (f32 -> fp8) rounds to nearest, ties to even, and saturates: a
//     value beyond the largest finite value, ±inf included, gives ±448 (e4m3) or
//     ±57344 (e5m2); NaN gives 0x7F; ±0 and the sign of an underflow to 0 are kept.
//   - a double (the interpreter's values) is rounded to f32 first, as every
//     value that reaches a store on a target is an f32, f16 or bf16 already.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Types.h"

#include <cstdint>

namespace ph::fp8 {

/// The bits of `x` in `e` (F8E4M3 or F8E5M2), by the rule above.
uint8_t fromFloat(float x, Elem e);
/// The value of the bits `b` of `e`, exactly.
float toFloat(uint8_t b, Elem e);
/// The largest finite value of `e` (448 or 57344).
double maxFinite(Elem e);
/// `v` rounded to `e` and widened back (through f32, by the rule above).
double round(double v, Elem e);

} // namespace ph::fp8
