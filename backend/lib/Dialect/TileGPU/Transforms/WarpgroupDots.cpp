//===- WarpgroupDots.cpp - tilegpu-pipeline: dots on wgmma, one left in flight ---===//
//
// Once its operands lie in wgmma's swizzled buffers, a dot becomes a
// warpgroup dot that reads them in place. In a K loop that chains its
// accumulator the dot is left in flight for an iteration, so the tensor cores
// overlap the next iteration's issue; that is why such a loop's copies run one
// stage less ahead (asyncLoops_, decided in Pipeline.cpp) and why the loop goes
// under a guard that keeps ptxas from serializing every wgmma.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

/// A dot whose operands now lie in wgmma's buffers reads them there.
void Pipeliner::toWarpgroupDots() {
  SmallVector<DotOp> dots;
  f_.walk([&](DotOp d) {
    if (forWgmma(d.getA().getType()) && forWgmma(d.getB().getType())) dots.push_back(d);
  });
  for (DotOp d : dots) {
    // A is read in place when it was loaded into shared memory, else (P of
    // P·V, computed in registers) taken from its registers.
    auto la = d.getA().getDefiningOp<LocalLoadOp>(), lb = d.getB().getDefiningOp<LocalLoadOp>();
    if (!lb) {
      d.emitError() << "a wgmma B operand that is not in shared memory";
      continue;
    }
    OpBuilder b(d);
    Value a = la ? Value(la.getBuffer()) : Value(d.getA());
    Value aStage = la ? la.getStage() : Value();
    auto w = WarpgroupDotOp::create(b, d.getLoc(), d.getType(), a, aStage, lb.getBuffer(), lb.getStage(), d.getAcc(),
                                    d.getTransB(), /*async=*/false);
    d.getResult().replaceAllUsesWith(w.getResult());
    d.erase();
    for (LocalLoadOp l : {la, lb})
      if (l && l->use_empty()) l.erase();
    keepOneGroupInFlight(w);
  }
}

/// In a loop of `asyncLoops_` that carries the accumulator from one
/// warpgroup_dot to the next and reads it nowhere else, the dot is left in
/// flight: `warpgroup_wait 1` after it retires the previous iteration's
/// group (whose buffer the next copies overwrite), and `warpgroup_wait 0` on
/// the loop's result retires the last before anything reads it. The loop
/// and that wait go under `scf.if (lb < ub)`: otherwise the path that skips
/// the loop, where the accumulator is its initial value, joins the wait's
/// path before the wait, and ptxas then serializes every wgmma of the kernel
/// (C7515: "non wgmma instructions defining accumulator registers ... between
/// start and end of the pipeline stage").
void Pipeliner::keepOneGroupInFlight(WarpgroupDotOp dot) {
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  if (!loop || !asyncLoops_.contains(loop)) return;
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  if (!arg || arg.getOwner() != loop.getBody() || arg == loop.getInductionVar() || !arg.hasOneUse()) return;
  unsigned idx = arg.getArgNumber() - loop.getNumInductionVars();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (!dot.getResult().hasOneUse() || *dot.getResult().getUsers().begin() != yield ||
      yield.getOperand(idx) != dot.getResult())
    return;
  dot.setAsync(true);
  OpBuilder b(dot->getContext());
  b.setInsertionPointAfter(dot);
  WarpgroupWaitOp::create(b, dot.getLoc(), ValueRange{}, 1);

  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs, /*withElseRegion=*/true);
  loop->replaceAllUsesWith(guard.getResults());
  loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
  OpBuilder in = OpBuilder::atBlockEnd(guard.thenBlock());
  SmallVector<Value> results(loop.getResults());
  results[idx] = WarpgroupWaitOp::create(in, dot.getLoc(), ValueRange{results[idx]}, 0).getResult(0);
  scf::YieldOp::create(in, loc, results);
  OpBuilder skip = OpBuilder::atBlockEnd(guard.elseBlock());
  scf::YieldOp::create(skip, loc, loop.getInitArgs());
}

} // namespace ph::tilegpu::pipeline
