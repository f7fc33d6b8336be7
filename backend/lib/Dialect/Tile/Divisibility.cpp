//===- Divisibility.cpp - What an index is known to be a multiple of -------===//
//
// Facts of the tile IR that a mask, a copy or a load's vector width can rely
// on: tile.mask_cols's canonicalization (a key block that always fits), cp.async's
// and TMA's 16-byte chunks, the vector width of a load.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/Tile/Divisibility.h"
#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace ph::tile {

int64_t divisibility(Value v) {
  constexpr int64_t kMax = 1024;
  auto pow2of = [](int64_t c) {
    if (c == 0) return kMax;
    int64_t p = 1;
    while (p < kMax && c % (p * 2) == 0) p *= 2;
    return p;
  };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto f = dyn_cast_or_null<FunctionOpInterface>(owner)) {
      auto a = f->getAttrOfType<DenseI64ArrayAttr>(kDivisibilityAttr);
      if (a && arg.getArgNumber() < a.size()) return pow2of(a[arg.getArgNumber()]);
      return 1;
    }
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner); loop && arg == loop.getInductionVar())
      return std::min(divisibility(loop.getLowerBound()), divisibility(loop.getStep()));
    return 1;
  }
  Operation *def = v.getDefiningOp();
  if (!def) return 1;
  IntegerAttr c;
  if (auto k = dyn_cast<arith::ConstantOp>(def))
    if ((c = dyn_cast<IntegerAttr>(k.getValue()))) return pow2of(c.getInt());
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastUIOp, UnrealizedConversionCastOp>(def) &&
      def->getNumOperands() == 1)
    return divisibility(def->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::min(divisibility(def->getOperand(0)), divisibility(def->getOperand(1)));
  if (isa<arith::MulIOp>(def))
    return std::min(kMax, divisibility(def->getOperand(0)) * divisibility(def->getOperand(1)));
  // Either value (tilegpu-prefetch-loads' next block: iv + step, or iv on the last iteration).
  if (auto sel = dyn_cast<arith::SelectOp>(def))
    return std::min(divisibility(sel.getTrueValue()), divisibility(sel.getFalseValue()));
  return 1;
}

} // namespace ph::tile
