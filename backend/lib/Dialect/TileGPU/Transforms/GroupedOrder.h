//===- GroupedOrder.h - A 2-D grid's tiles in groups of rows (Triton's GROUP_SIZE_M) -*- C++ -*-===//
//
// Private to the TileGPU transforms: tilegpu-rasterize renumbers a GEMM's CTAs with it, and
// tilegpu-persistent walks a persistent GEMM's tiles in the same order.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace ph::tilegpu {

/// The (row block, column block) of the `pid`-th tile of a `gx` x `gy` grid in the grouped order:
/// consecutive tiles walk `group` row blocks of one column before the next column (the last group
/// has the rows that are left), so a wave's A and B slices stay in L2. A bijection of the grid;
/// the values have `pid`'s type (index or an integer).
inline std::array<mlir::Value, 2> groupedOrder(mlir::OpBuilder &b, mlir::Location loc, mlir::Value pid, mlir::Value gx,
                                               mlir::Value gy, int64_t group) {
  namespace arith = mlir::arith;
  mlir::Value g = arith::ConstantOp::create(b, loc, b.getIntegerAttr(pid.getType(), group));
  mlir::Value perGroup = arith::MulIOp::create(b, loc, g, gy);
  mlir::Value first = arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, pid, perGroup), g);
  mlir::Value rows = arith::MinUIOp::create(b, loc, arith::SubIOp::create(b, loc, gx, first), g);
  mlir::Value inGroup = arith::RemUIOp::create(b, loc, pid, perGroup);
  return {arith::AddIOp::create(b, loc, first, arith::RemUIOp::create(b, loc, inGroup, rows)),
          arith::DivUIOp::create(b, loc, inGroup, rows)};
}

} // namespace ph::tilegpu
