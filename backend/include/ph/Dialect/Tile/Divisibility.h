//===- Divisibility.h - What an index is known to be a multiple of ---------===//
#pragma once

#include "mlir/IR/Value.h"

#include <cstdint>

namespace ph::tile {

/// The power of two (up to 1024) an integer or index value is known to be a multiple of, from
/// constants, `tile.divisibility` arguments (`@aligned`), loop variables (their lower bound and
/// step), and the adds, subtracts, multiplies, casts and selects between them; 1 when nothing
/// is known.
int64_t divisibility(mlir::Value v);

} // namespace ph::tile
