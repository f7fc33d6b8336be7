//===- ReuseRowLoads.cpp - tilegpu-reuse-row-loads: one read of a fitting row ---===//
//
// A row softmax or norm as people write it: a first loop over the columns in
// blocks of BC gathers each row's statistics, a second loop over the same
// blocks reads them again and writes the result. Counted in DRAM bytes the
// second read is free (the block is still in L2), but it is a second trip
// through the memory system for every element. When the row fits one block
// (C <= BC, which the autotuner picks for short rows), the block the second
// loop reads is the one the first loop read last: the first loop yields its
// load, and the second loop runs, under a uniform `scf.if` on the trip count,
// as a copy that uses that tile instead of loading it. The general loop stays
// in the else branch, where the carried tile is dead (no registers held).
//
// Sound when nothing can have written the tensor in between: no tile.store in
// the first loop, between the loops, or before the load in the second loop's
// body; the two loads read the same pointer, with offsets and extents that are
// the same values (outside both loops) or the same pure ops of them, the first
// loop's induction variable standing for the second's.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUREUSEROWLOADS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

bool writes(Operation *op) {
  bool any = false;
  op->walk([&](tile::StoreOp) { any = true; });
  return any;
}

/// Whether `a` (computed in l1's body, or before it) and `b` (in l2's, or before it) are the
/// same value, l1's induction variable standing for l2's: one value, or the same pure op of
/// such values.
bool same(Value a, Value b, scf::ForOp l1, scf::ForOp l2, int depth = 0) {
  if (a == b) return true;
  if (a == l1.getInductionVar() && b == l2.getInductionVar()) return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || depth > 8 || x->getName() != y->getName() || x->getAttrDictionary() != y->getAttrDictionary() ||
      x->getNumOperands() != y->getNumOperands() || x->getNumRegions() || y->getNumRegions() || !isPure(x) ||
      cast<OpResult>(a).getResultNumber() != cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [p, q] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!same(p, q, l1, l2, depth + 1)) return false;
  return true;
}

/// l1's load (directly in its body) that reads what `ld` reads, or null.
tile::LoadOp matching(tile::LoadOp ld, scf::ForOp l1, scf::ForOp l2) {
  for (Operation &op : l1.getBody()->without_terminator()) {
    auto cand = dyn_cast<tile::LoadOp>(&op);
    if (!cand || cand.getType() != ld.getType() || cand.getPtr() != ld.getPtr() ||
        cand->getAttrDictionary() != ld->getAttrDictionary() || cand.getOffsets().size() != ld.getOffsets().size())
      continue;
    bool ok = true;
    for (auto [p, q] : llvm::zip(cand.getOffsets(), ld.getOffsets())) ok = ok && same(p, q, l1, l2);
    for (auto [p, q] : llvm::zip(cand.getExtents(), ld.getExtents())) ok = ok && same(p, q, l1, l2);
    if (ok) return cand;
  }
  return {};
}

/// Rewrites the pair (l1, l2) when l2 re-reads a block l1 read; true when it did.
bool reuse(scf::ForOp l1, scf::ForOp l2, DenseSet<Operation *> &erased) {
  // The bounds are often made twice (each `range(0, extent(X, 1), BC)` its own ops).
  if (!same(l1.getLowerBound(), l2.getLowerBound(), l1, l2) || !same(l1.getUpperBound(), l2.getUpperBound(), l1, l2) ||
      !same(l1.getStep(), l2.getStep(), l1, l2) || writes(l1))
    return false;
  for (Operation *op = l1->getNextNode(); op != l2; op = op->getNextNode())
    if (writes(op)) return false;
  SmallVector<std::pair<tile::LoadOp, tile::LoadOp>> pairs; // (l1's, l2's)
  for (Operation &op : l2.getBody()->without_terminator()) {
    if (writes(&op)) break;
    if (auto ld = dyn_cast<tile::LoadOp>(&op))
      if (tile::LoadOp first = matching(ld, l1, l2)) pairs.push_back({first, ld});
  }
  if (pairs.empty()) return false;
  Location loc = l2.getLoc();
  OpBuilder b(l1);
  // l1 also yields each matched load (its last iteration's block).
  SmallVector<Value> inits;
  for (auto &[first, second] : pairs) {
    auto t = cast<RankedTensorType>(first.getType());
    inits.push_back(arith::ConstantOp::create(b, loc, t, SplatElementsAttr::get(t, b.getZeroAttr(t.getElementType()))));
  }
  IRRewriter rw(l1.getContext());
  rw.setInsertionPoint(l1);
  erased.insert(l1.getOperation()); // replaced by the grown loop
  auto grown = l1.replaceWithAdditionalYields(rw, inits, /*replaceInitOperandUsesInLoop=*/false,
                                              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                                                SmallVector<Value> ys;
                                                for (auto &[first, second] : pairs) ys.push_back(first.getResult());
                                                return ys;
                                              });
  if (failed(grown)) return false;
  auto nl1 = cast<scf::ForOp>(grown->getOperation());
  unsigned firstNew = nl1.getNumResults() - unsigned(pairs.size());
  // One block: upper - lower <= step (when the loop runs at all, which is all that matters).
  b.setInsertionPoint(l2);
  Value span = arith::SubIOp::create(b, loc, l2.getUpperBound(), l2.getLowerBound());
  Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, span, l2.getStep());
  auto ifOp = scf::IfOp::create(b, loc, l2.getResultTypes(), one, /*withElseRegion=*/true);
  l2->replaceAllUsesWith(ifOp.getResults());
  {
    OpBuilder::InsertionGuard g(b);
    Block *thenB = &ifOp.getThenRegion().front();
    if (thenB->mightHaveTerminator()) thenB->getTerminator()->erase();
    b.setInsertionPointToEnd(thenB);
    IRMapping map;
    Operation *copy = b.clone(*l2, map);
    for (auto [i, p] : llvm::enumerate(pairs)) {
      Operation *cloned = map.lookup(p.second.getResult()).getDefiningOp();
      cloned->getResult(0).replaceAllUsesWith(nl1.getResult(firstNew + unsigned(i)));
      cloned->erase();
    }
    scf::YieldOp::create(b, loc, copy->getResults());
    Block *elseB = &ifOp.getElseRegion().front();
    if (elseB->mightHaveTerminator()) elseB->getTerminator()->erase();
    l2->moveBefore(elseB, elseB->end());
    b.setInsertionPointToEnd(elseB);
    scf::YieldOp::create(b, loc, l2->getResults());
  }
  return true;
}

struct ReuseRowLoadsPass : impl::TileGPUReuseRowLoadsBase<ReuseRowLoadsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      bool hasDot = false;
      f.walk([&](tile::DotOp) { hasDot = true; });
      if (hasDot) return;
      // Pairs of loops in one block, the first before the second; a loop is rewritten
      // at most once as either (its copies are not looked at again).
      SmallVector<scf::ForOp> loops;
      f.walk([&](scf::ForOp l) { loops.push_back(l); });
      DenseSet<Operation *> done, erased;
      for (scf::ForOp l2 : loops) {
        if (done.count(l2) || erased.count(l2)) continue;
        for (Operation *op = l2->getPrevNode(); op; op = op->getPrevNode()) {
          auto l1 = dyn_cast<scf::ForOp>(op);
          if (!l1 || done.count(l1)) continue;
          if (reuse(l1, l2, erased)) {
            done.insert(l2);
            break;
          }
        }
      }
    });
  }
};

} // namespace
} // namespace ph::tilegpu
