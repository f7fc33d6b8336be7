//===- LayoutSharing.cpp - tilegpu-assign-layouts: which values share a layout ---===//
//
// A layout chosen for one value binds the values the lowering reads register
// by register with it: an elementwise op's operands, a reduction's input, an
// insert's destination. These walks follow those ties to find what a value is
// computed from (a dot, the loads behind a row reduction) or what it feeds (a
// reduced row), which is how the policy and the propagation choose an anchor
// for a tile nothing else places.
//
//===----------------------------------------------------------------------===//
#include "Assigner.h"

#include "ph/Dialect/TileGPU/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu::assign {

bool isElementwise(Operation *op) {
  if (op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType())) return false;
  if (isa<arith::ConstantOp>(op)) return false;
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// Ops whose tile result may take whatever layout its users want.
bool isLayoutFree(Operation *op) {
  return op && (isa<arith::ConstantOp, tile::SplatOp, tile::LoadOp, tile::BroadcastOp, tile::ConvertOp, tile::IotaOp>(op) ||
                isElementwise(op));
}

/// Ops whose result and tile operands share one layout (the lowering works register by register;
/// tile.insert's dest and result must have one type, and its part goes through shared memory).
bool sharesLayout(Operation *op) {
  return isElementwise(op) ||
         isa<tile::BroadcastOp, tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp, tile::ConvertOp, tile::MaskColsOp, tile::CausalMaskOp,
             tile::ColMaxOp, tile::ColSumOp, tile::InsertOp>(op);
}

/// The dot whose result `v` is computed from in registers (through ops that
/// keep the layout), or null: attention's P, which feeds P·V, or its scores.
tile::DotOp dotBehind(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    Operation *def = x.getDefiningOp();
    if (!def) continue;
    if (auto d = dyn_cast<tile::DotOp>(def)) return d;
    if (sharesLayout(def))
      for (Value o : def->getOperands()) work.push_back(o);
  }
  return {};
}

bool fromDotResult(Value v) { return bool(dotBehind(v)); }

/// The loads of `v`'s shape that `v` is computed from through ops that share one layout, and no
/// dot: a memory-bound row reduction's (softmax's X, a norm's rows). Their narrowest element
/// sets the reduced tile's vectors (16 bytes of f16 are 8 elements, where f32 arithmetic alone
/// would give 4), their alignment caps them (loadLastDimDivisibility: rows that may start
/// anywhere read one element per lane and pass, consecutive across the warp, instead of 4-element
/// runs read as 4 scalar loads 8 bytes apart). Null element type: no such load.
std::pair<Type, int64_t> loadsBehindReduction(Value v) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  Type narrow;
  int64_t div = 16;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    // Through a loop's carried value (a per-element sum reduced after the loop: layer_norm.ph,
    // cross-entropy's picked logit) to what the body yields and what it starts from.
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()); loop && arg.getArgNumber() > 0) {
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[i]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(i));
      }
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(x).getResultNumber();
      work.push_back(loop.getRegionIterArgs()[i]);
      continue;
    }
    if (isa<tile::DotOp>(def)) return {Type(), 16};
    auto rt = dyn_cast<RankedTensorType>(x.getType());
    if (auto ld = dyn_cast<tile::LoadOp>(def)) {
      if (!rt || rt.getShape() != shape) continue;
      if (!narrow || elemBytes(rt.getElementType()) < elemBytes(narrow)) narrow = rt.getElementType();
      div = std::min(div, loadLastDimDivisibility(ld));
      continue;
    }
    if (sharesLayout(def))
      for (Value o : def->getOperands()) work.push_back(o);
  }
  return {narrow, div};
}

/// Whether rows of `v`, or of a tile computed from it through ops that share
/// one layout, are reduced (attention's scores).
bool rowsReducedFrom(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    for (Operation *u : x.getUsers()) {
      if (isa<tile::RowMaxOp, tile::RowSumOp>(u)) return true;
      if (sharesLayout(u)) work.push_back(u->getResult(0));
    }
  }
  return false;
}

} // namespace ph::tilegpu::assign
