//===- OverlapSoftmax.cpp - tilegpu-pipeline: P·V of block j under the softmax of j + 1 ---===//
//
// Attention on wgmma waits for S = Q·Kᵀ before its softmax and for P·V before
// the next block, so a warpgroup's tensor cores idle through its own softmax
// (docs/tilegpu.md, "Attention on wgmma"). FlashAttention-3's intra-warpgroup
// pipelining moves P·V of block j into iteration j + 1, issued right after
// that iteration's S: the tensor cores run S_{j+1} and then P_j·V_j while the
// warpgroup waits for S_{j+1} only and runs its softmax under P_j·V_j. The
// loop then carries the rescaled accumulator without P_j·V_j, P_j and V_j's
// stage; iteration 0 is peeled (it has no P·V before it) and the last P·V
// follows the loop. The ring keeps V_j one iteration longer, so its copies run
// stages - 2 ahead, as a loop that keeps a GEMM's group in flight does.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

namespace {

/// The most 32-bit registers a thread the rotated loop's tiles may take (see overlapsSoftmax).
constexpr int64_t kOverlapRegisters = 192;

/// S and P·V of an attention loop, and the loop-carried value P·V is yielded as.
template <typename Dot>
struct SoftmaxDots {
  Dot s, pv;
  unsigned carried;
};

/// S and P·V of an attention loop: two dots in the loop's own block, the second
/// accumulating into what the loop carries (through the rescale, never itself)
/// and yielded as it, read by nothing else; the carried value read only after
/// the first dot, and only by ops the loop's block holds.
template <typename Dot>
std::optional<SoftmaxDots<Dot>> softmaxDots(scf::ForOp loop) {
  Dot s, pv;
  int count = 0;
  bool nested = false;
  loop.getBody()->walk([&](Dot d) {
    if (d->getBlock() != loop.getBody()) nested = true;
    (count++ == 0 ? s : pv) = d;
  });
  if (nested || count != 2) return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value r = pv.getResult();
  if (!r.hasOneUse() || *r.getUsers().begin() != yield) return std::nullopt;
  unsigned k = 0;
  while (yield.getOperand(k) != r) ++k;
  BlockArgument acc = loop.getRegionIterArg(k);
  if (pv.getAcc() == acc) return std::nullopt;
  // P·V must accumulate onto the carried value (the rescale of it): the rotated loop's wait for
  // P·V sits before the first reader of that value, and a loop that overwrote it would have none.
  bool fromAcc = false;
  SmallVector<Value> work = {pv.getAcc()};
  llvm::DenseSet<Value> seen;
  while (!work.empty() && !fromAcc) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    if (v == acc) fromAcc = true;
    else if (Operation *d = v.getDefiningOp(); d && d->getBlock() == loop.getBody())
      llvm::append_range(work, d->getOperands());
  }
  if (!fromAcc) return std::nullopt;
  if (llvm::is_contained(s->getOperands(), r)) return std::nullopt;
  for (OpOperand &use : acc.getUses()) {
    Operation *user = loop.getBody()->findAncestorOpInBlock(*use.getOwner());
    if (!user || user == yield || !s->isBeforeInBlock(user)) return std::nullopt;
  }
  return SoftmaxDots<Dot>{s, pv, k};
}

} // namespace

/// Whether the loop's P·V can move under the next block's softmax: asked for,
/// a ring of at least 3 stages of wgmma operands (V's stage is read one
/// iteration later: on mbarriers it is released at the end of that one), and
/// the loop's dots S and P·V.
bool Pipeliner::overlapsSoftmax(scf::ForOp loop, ArrayRef<Staged> loads, int64_t stages) const {
  if (!overlapSoftmax_ || stages < 3 || chainsAccumulator(loop)) return false;
  if (!llvm::all_of(loads, [](Staged s) { return s.wgmma(); })) return false;
  auto dots = softmaxDots<DotOp>(loop);
  if (!dots) return false;
  // P is computed in registers; V is a load of the ring.
  auto ring = [&](Value v) {
    return llvm::any_of(loads, [&](Staged s) { return s.replaced() == v; });
  };
  if (ring(dots->pv.getA()) || !ring(dots->pv.getB()) || !ring(dots->s.getB())) return false;
  // The rotated loop holds S_{j+1}, the accumulator and two P tiles (f16: one S's worth of
  // 32-bit registers) at once: where that passes 192 registers a thread, ptxas spills or
  // serializes the wgmmas (C7512: attn_w4 at D = 64 with 128 x 128 blocks, 320).
  auto elems = [](Value v) { return cast<RankedTensorType>(v.getType()).getNumElements(); };
  int64_t regs = (2 * elems(dots->s.getResult()) + elems(dots->pv.getResult())) / threads();
  return regs <= kOverlapRegisters;
}

/// The rotation, once the dots are warpgroup dots (see the file comment).
void Pipeliner::overlapSoftmax(scf::ForOp loop) {
  auto dots = softmaxDots<WarpgroupDotOp>(loop);
  if (!dots) return;
  WarpgroupDotOp s = dots->s, pv = dots->pv;
  unsigned k = dots->carried;
  if (!isa<RankedTensorType>(pv.getA().getType()) || !pv.getBStage() || s.getAsync() || pv.getAsync()) return;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  unsigned n = loop.getNumRegionIterArgs();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();

  // Under lb < ub: iteration 0 and the last P·V exist only where the loop runs.
  OpBuilder b(loop);
  auto lt = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value runs = arith::CmpIOp::create(b, loc, lt, lb, ub);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs, /*withElseRegion=*/true);
  OpBuilder els = OpBuilder::atBlockEnd(guard.elseBlock());
  scf::YieldOp::create(els, loc, loop.getInitArgs());
  OpBuilder in = OpBuilder::atBlockEnd(guard.thenBlock());

  // Iteration 0, without its P·V.
  IRMapping peel;
  peel.map(loop.getInductionVar(), lb);
  for (unsigned i = 0; i < n; ++i) peel.map(loop.getRegionIterArg(i), loop.getInitArgs()[i]);
  for (Operation &op : body->without_terminator())
    if (&op != pv.getOperation()) in.clone(op, peel);
  SmallVector<Value> inits;
  for (unsigned i = 0; i < n; ++i) inits.push_back(peel.lookupOrDefault(i == k ? pv.getAcc() : yield.getOperand(i)));
  inits.push_back(peel.lookupOrDefault(pv.getA()));
  inits.push_back(peel.lookupOrDefault(pv.getBStage()));

  // Iterations 1 ..: S_j, then P_{j-1}·V_{j-1} on the carried accumulator, both in flight;
  // S_j's wait lets P·V run under the softmax, whose rescale waits for it.
  Value next = arith::AddIOp::create(in, loc, lb, step);
  auto rotated = scf::ForOp::create(in, loc, next, ub, step, inits);
  rotated.setUnsignedCmp(loop.getUnsignedCmp());
  {
    Block *nb = rotated.getBody();
    OpBuilder bb = OpBuilder::atBlockBegin(nb);
    if (!nb->empty() && isa<scf::YieldOp>(nb->back())) bb.setInsertionPoint(&nb->back());
    IRMapping map;
    map.map(loop.getInductionVar(), rotated.getInductionVar());
    for (unsigned i = 0; i < n; ++i)
      if (i != k) map.map(loop.getRegionIterArg(i), rotated.getRegionIterArg(i));
    Value pPrev = rotated.getRegionIterArg(n), stagePrev = rotated.getRegionIterArg(n + 1);
    // What reads the carried accumulator (the rescale), moved after everything else of the
    // iteration where it is free of side effects, so that P_{j-1}·V_{j-1} is waited for last.
    BlockArgument acc = loop.getRegionIterArg(k);
    llvm::SetVector<Operation *> readers;
    for (Operation &op : body->without_terminator()) {
      if (&op == pv.getOperation()) continue;
      bool reads = false;
      op.walk([&](Operation *o) {
        for (Value v : o->getOperands())
          if (v == acc || (v.getDefiningOp() && readers.contains(body->findAncestorOpInBlock(*v.getDefiningOp())))) reads = true;
      });
      if (reads) readers.insert(&op);
    }
    bool sink = llvm::all_of(readers, [](Operation *op) { return isMemoryEffectFree(op); });
    Value accFull;
    bool waited = false;
    auto cloneOne = [&](Operation &op) {
      if (readers.contains(&op) && !waited) {
        // P_{j-1}'s registers stay the tensor cores' until the wait: it takes them too.
        auto w = WarpgroupWaitOp::create(bb, pv.getLoc(), ValueRange{accFull, pPrev}, 0);
        map.map(acc, w.getResult(0));
        waited = true;
      }
      Operation *c = bb.clone(op, map);
      if (&op != s.getOperation()) return;
      auto sj = cast<WarpgroupDotOp>(c);
      sj.setAsync(true);
      accFull = WarpgroupDotOp::create(bb, pv.getLoc(), pv.getType(), pPrev, Value(), pv.getB(), stagePrev,
                                       rotated.getRegionIterArg(k), pv.getTransB(), /*async=*/true)
                    .getResult();
      auto w = WarpgroupWaitOp::create(bb, s.getLoc(), ValueRange{sj.getResult()}, 1);
      map.map(s.getResult(), w.getResult(0));
    };
    // On mbarriers, the release of the previous iteration's stage (V_{j-1}'s) follows the wait
    // for P_{j-1}·V_{j-1}, which the sunk readers would otherwise put after it.
    auto releases = [](Operation &op) {
      bool r = false;
      op.walk([&](MBarrierArriveOp a) { r |= !a.getCopies(); });
      return r;
    };
    for (Operation &op : body->without_terminator())
      if (&op != pv.getOperation() && !(sink && readers.contains(&op)) && !releases(op)) cloneOne(op);
    if (sink)
      for (Operation *op : readers) cloneOne(*op);
    // softmaxDots saw P·V read the carried value, so its wait is in place; never leave it out.
    if (!waited) WarpgroupWaitOp::create(bb, pv.getLoc(), ValueRange{accFull, pPrev}, 0);
    for (Operation &op : body->without_terminator())
      if (releases(op)) cloneOne(op);
    SmallVector<Value> yields;
    for (unsigned i = 0; i < n; ++i) yields.push_back(map.lookupOrDefault(i == k ? pv.getAcc() : yield.getOperand(i)));
    yields.push_back(map.lookupOrDefault(pv.getA()));
    yields.push_back(map.lookupOrDefault(pv.getBStage()));
    if (!nb->empty() && isa<scf::YieldOp>(nb->back())) nb->back().erase();
    OpBuilder end = OpBuilder::atBlockEnd(nb);
    scf::YieldOp::create(end, loc, yields);
  }

  // The last block's P·V.
  SmallVector<Value> results(rotated.getResults().take_front(n));
  results[k] = WarpgroupDotOp::create(in, pv.getLoc(), pv.getType(), rotated.getResult(n), Value(), pv.getB(),
                                      rotated.getResult(n + 1), rotated.getResult(k), pv.getTransB(), /*async=*/false)
                   .getResult();
  scf::YieldOp::create(in, loc, results);
  loop->replaceAllUsesWith(guard.getResults());
  loop.erase();
}

} // namespace ph::tilegpu::pipeline
