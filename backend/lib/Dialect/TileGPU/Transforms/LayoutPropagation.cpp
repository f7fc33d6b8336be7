//===- LayoutPropagation.cpp - tilegpu-assign-layouts: anchors and their spread ---===//
//
// Layouts are decided from a few anchors (dot results, reduced rows and
// columns, loads whose users agree) and spread through everything that shares
// a layout with them, to a fixpoint, before any type changes. Doing it as one
// dataflow over the unchanged IR lets every value see every anchor: a value
// placed early by a poor default would cost a conversion through shared memory
// for each user that wanted another.
//
//===----------------------------------------------------------------------===//
#include "Assigner.h"

#include "ph/Dialect/TileGPU/Layouts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu::assign {

Attribute Assigner::dotLayoutBehind(Value v) const {
  tile::DotOp d = dotBehind(v);
  return d ? get(d.getResult()) : Attribute();
}

void Assigner::propagate() {
  if (mma_) f_.walk([&](tile::DotOp d) { set(d.getResult(), mma_); });
  // SIMT: dot results anchor in fmaBlocked; reduced rows anchor their tile in
  // one warp per row group (an [R, 1] statistic made first must not pick a
  // layout that splits the rows over warps), the dot's own layout where the
  // tile is computed from a dot result that keeps its rows in one warp.
  if (!mma_) {
    f_.walk([&](tile::DotOp d) {
      auto rt = cast<RankedTensorType>(d.getResult().getType());
      if (rt.getRank() == 2)
        set(d.getResult(), fmaBlocked(ctx_, rt.getDimSize(0), rt.getDimSize(1), threads_, rowsReducedFrom(d.getResult())));
    });
    bool hasArgMax = false;
    f_.walk([&](tile::RowArgMaxOp) { hasArgMax = true; });
    f_.walk([&](Operation *op) {
      if (!isa<tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp>(op)) return;
      auto t = cast<RankedTensorType>(op->getOperand(0).getType());
      if (t.getRank() != 2) return;
      auto [narrow, div] = loadsBehindReduction(op->getOperand(0));
      // rowargmax's (value, column) pairs meet only over lanes (ReduceToNVVM).
      bool split = splitRowWarps_ && !hasArgMax;
      Attribute a = narrow && rowLoadVectors_
                        ? rowBlocked(ctx_, t.getShape(), narrow, threads_, div, split)
                        : rowBlocked(ctx_, t.getShape(), t.getElementType(), threads_, 16, split);
      if (auto fromDot = dyn_cast_or_null<BlockedEncodingAttr>(dotLayoutBehind(op->getOperand(0)));
          fromDot && fromDot.getWarpsPerCTA()[1] == 1)
        a = fromDot;
      set(op->getOperand(0), a);
    });
  }
  // A reduced column anchors its tile and its [1, C] result in colBlocked under
  // every policy (a dot result keeps its layout and is converted to it).
  f_.walk([&](Operation *op) {
    if (!isa<tile::ColMaxOp, tile::ColSumOp>(op)) return;
    auto t = cast<RankedTensorType>(op->getOperand(0).getType());
    Attribute l = colBlocked(ctx_, t.getShape(), t.getElementType(), threads_);
    set(op->getResult(0), l);
    set(op->getOperand(0), l);
  });
  spread();
  // A load whose users all want one register layout takes it directly (a bias
  // row read in the accumulator's layout); loads feeding dots stay coalesced. A
  // yield wants what its loop carries or its `if` gives, and has no say while that
  // has no layout yet (tilegpu-reuse-row-loads' carried block); to a fixpoint, as a
  // load's layout spreads to what another load feeds.
  for (bool again = true; again;) {
    again = false;
    f_.walk([&](tile::LoadOp ld) {
      if (get(ld.getResult())) return;
      Attribute want;
      bool agree = true;
      for (OpOperand &use : ld.getResult().getUses()) {
        Operation *u = use.getOwner();
        Attribute a;
        if (auto y = dyn_cast<scf::YieldOp>(u)) {
          if (auto loop = dyn_cast<scf::ForOp>(y->getParentOp()))
            a = get(loop.getRegionIterArgs()[use.getOperandNumber()]);
          else if (auto ifOp = dyn_cast<scf::IfOp>(y->getParentOp()))
            a = get(ifOp.getResult(use.getOperandNumber()));
          if (!a) continue;
        } else if (sharesLayout(u)) {
          a = get(u->getResult(0));
        }
        if (!a || (want && a != want)) agree = false;
        want = a;
      }
      if (agree && want) {
        set(ld.getResult(), want);
        again = true;
      }
    });
    if (again) spread();
  }
  // A load nothing anchors is coalesced and vectorised for its own type, and what is
  // computed from it takes that layout too, one load at a time in program order: a
  // kernel without a dot or a reduction (SwiGLU: f16 loads, f32 arithmetic) then runs
  // in its first load's layout instead of converting between the f16 loads' and
  // the f32 arithmetic's defaults through shared memory three times). The layout's
  // vectors are as wide as the load's alignment allows: where rows may start anywhere
  // (SwiGLU's `[N, C]` for any C), one element per lane and pass, so that a warp's
  // scalar loads read consecutive elements (8-element runs per lane read 16 bytes apart
  // cost 8 times the load instructions per byte: 1,221 against the legacy emitter's
  // 1,977 GB/s on the H200).
  SmallVector<tile::LoadOp> loads;
  f_.walk([&](tile::LoadOp ld) { loads.push_back(ld); });
  for (tile::LoadOp ld : loads) {
    auto rt = dyn_cast<RankedTensorType>(ld.getResult().getType());
    if (!rt || rt.getRank() == 0 || get(ld.getResult())) continue;
    set(ld.getResult(), defaultBlocked(ctx_, rt.getShape(), rt.getElementType(), threads_, loadLastDimDivisibility(ld)));
    spread();
  }
  // Everything else: coalesced and vectorised over the kernel's threads.
  auto others = [&](Value v) {
    if (auto rt = dyn_cast<RankedTensorType>(v.getType()); rt && !get(v) && rt.getRank() > 0)
      set(v, defaultBlocked(ctx_, rt.getShape(), rt.getElementType(), threads_));
  };
  f_.walk([&](Operation *op) {
    for (Value r : op->getResults()) others(r);
    for (Region &reg : op->getRegions())
      for (Block &b : reg)
        for (Value a : b.getArguments()) others(a);
  });
}

void Assigner::spread() {
  do {
    changed_ = false;
    f_.walk([&](Operation *op) {
      // scf.if: a result takes the layout of what a branch yields (the other branch converts).
      if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && ifOp.getNumResults() > 0) {
        for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
          Attribute a = get(ifOp.getResult(i));
          if (!a) a = get(ifOp.thenYield().getOperand(i));
          if (!a) a = get(ifOp.elseYield().getOperand(i));
          if (a) set(ifOp.getResult(i), a);
        }
      }
      if (sharesLayout(op)) {
        Attribute a;
        for (Value v : op->getOperands())
          if (!a) a = get(v);
        if (!a) a = get(op->getResult(0));
        if (!a) return;
        // Forward to the result; back to operands that may take any layout.
        set(op->getResult(0), a);
        for (Value v : op->getOperands())
          if (isa<RankedTensorType>(v.getType()) && isLayoutFree(v.getDefiningOp()) && !v.getDefiningOp<tile::LoadOp>())
            set(v, a);
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
          Value group[] = {loop.getInitArgs()[i], loop.getRegionIterArgs()[i], yield.getOperand(i), loop.getResult(i)};
          Attribute a;
          for (Value v : group)
            if (!a) a = get(v);
          if (!a) continue;
          for (Value v : {group[1], group[3]}) set(v, a);
          if (isLayoutFree(group[0].getDefiningOp()) && !group[0].getDefiningOp<tile::LoadOp>()) set(group[0], a);
        }
      }
    });
  } while (changed_);
}

} // namespace ph::tilegpu::assign
