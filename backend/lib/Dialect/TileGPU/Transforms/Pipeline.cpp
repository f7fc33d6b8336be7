//===- Pipeline.cpp - tilegpu-pipeline: dot operands by cp.async, N ahead ---===//
//
// The tensor cores read their operands from registers that ldmatrix fills
// from shared memory, so a dot operand loaded from global memory goes there
// first. In a loop the copy for iteration i + stages - 1 is issued while
// iteration i computes (CUTLASS's multistage mainloop): the copy engine and
// the tensor cores overlap, and one barrier per iteration both publishes the
// copy that completed and retires the buffer read one iteration before.
//
// This file holds the pass, the walk that picks the loads to stage, and a
// loop's prologue and steady state; Pipeliner.h names the files that hold
// the rest (the ring's pieces, its depth, TMA, the producer warpgroup, wgmma).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "CopyChunks.h"
#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu::pipeline {

/// One buffer: copy, wait for it, publish it, read it. In a loop, a barrier
/// first retires the previous iteration's reads of the same buffer.
void Pipeliner::stageOnce(Staged s, bool inLoop) {
  Value buf = alloc(s, 1);
  OpBuilder b(s.load);
  Location loc = s.load.getLoc();
  if (inLoop) BarrierOp::create(b, loc);
  IRMapping none;
  copyInto(b, s.load, none, buf, Value());
  auto commit = AsyncCommitGroupOp::create(b, loc);
  auto copy = dyn_cast_or_null<AsyncCopyOp>(commit->getPrevNode());
  auto wait = AsyncWaitOp::create(b, loc, 0);
  FenceAsyncSharedOp fence;
  if (forWgmma(s.convert.getType())) fence = FenceAsyncSharedOp::create(b, loc);
  auto barrier = BarrierOp::create(b, loc);
  auto read = LocalLoadOp::create(b, loc, s.convert.getType(), buf, Value());
  s.convert.getResult().replaceAllUsesWith(read.getResult());
  s.convert.erase();
  s.load.erase();
  // Outside a loop, or directly in a persistent kernel's tile loop (where the barrier before the
  // copy retires the previous tile's reads, which may follow the key loop).
  auto parent = dyn_cast_or_null<scf::ForOp>(wait->getParentOp());
  if (!inLoop || (parent && parent->hasAttr(kTileLoopAttr))) onceWaits_.push_back({copy, wait, fence, barrier, read});
}

/// In a persistent kernel's tile loop, an operand staged once before the ring's loop (Q) is copied
/// for the next tile as soon as this tile's loop is done with it (after the barrier that ends the
/// loop), so that it lands under this tile's epilogue; only the CTA's first tile copies its own.
/// Not where Q is read after the loop, or its address needs more than arithmetic of the tile id.
void Pipeliner::prefetchOnceAcrossTiles(scf::ForOp loop, scf::ForOp tileLoop, Operation *drain) {
  Location loc = loop.getLoc();
  Value t = tileLoop.getInductionVar();
  for (OnceWait &w : onceWaits_) {
    if (!w.copy || w.copy->getBlock() != tileLoop.getBody() || !w.copy->isBeforeInBlock(loop)) continue;
    bool inLoop = llvm::all_of(w.read->getUsers(), [&](Operation *u) { return loop->isProperAncestor(u); });
    SmallVector<Operation *> slice;
    if (!inLoop || !sliceInTile(w.copy, {}, tileLoop, slice)) continue;
    OpBuilder after(drain->getBlock(), std::next(Block::iterator(drain)));
    Value next = arith::AddIOp::create(after, loc, t, tileLoop.getStep());
    Value exists = arith::CmpIOp::create(after, loc, arith::CmpIPredicate::slt, next, tileLoop.getUpperBound());
    auto guard = scf::IfOp::create(after, loc, exists, /*withElseRegion=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    IRMapping map;
    map.map(t, next);
    for (Operation *op : slice) in.clone(*op, map);
    in.clone(*w.copy, map);
    AsyncCommitGroupOp::create(after, loc);
    OpBuilder at(w.copy);
    Value firstTile = arith::CmpIOp::create(at, loc, arith::CmpIPredicate::eq, t, tileLoop.getLowerBound());
    auto own = scf::IfOp::create(at, loc, firstTile, /*withElseRegion=*/false);
    w.copy->moveBefore(own.thenBlock()->getTerminator());
    w.copy = {};
  }
}

/// Attention's Q is copied once before its key loop; waiting for it there keeps the ring's first
/// K and V boxes from being issued until Q has landed, so a CTA pays two memory latencies before
/// its first dot. Where the ring's prologue issues no cp.async group (TMA, or cp.async completing
/// on mbarriers), the wait for Q, the fence and barrier that publish it and its read move past the
/// prologue: Q and the first stages are in flight together. The wait still covers every group
/// committed before it, and nothing before the loop reads Q.
void Pipeliner::waitAfterPrologue(scf::ForOp loop) {
  Block *block = loop->getBlock();
  for (OnceWait &w : onceWaits_) {
    if (!w.wait || w.wait->getBlock() != block || !w.wait->isBeforeInBlock(loop)) continue;
    bool readLater = llvm::all_of(w.read->getUsers(), [&](Operation *u) {
      Operation *at = block->findAncestorOpInBlock(*u);
      return at && (at == loop.getOperation() || loop->isBeforeInBlock(at));
    });
    if (!readLater) continue;
    w.wait->moveBefore(loop);
    if (w.fence) w.fence->moveBefore(loop);
    w.barrier->moveBefore(loop);
    w.read->moveBefore(loop);
    w.wait = {};
  }
}

void Pipeliner::pipelineLoop(scf::ForOp loop, SmallVector<Staged> loads) {
  Location loc = loop.getLoc();
  int64_t S = stagesFor(loads, loop);
  bool async = S >= 3 && chainsAccumulator(loop) &&
               llvm::all_of(loads, [](Staged &s) { return s.wgmma(); });
  if (async) asyncLoops_.insert(loop);
  // Attention's P·V read a ring stage one iteration later, like a group left in flight.
  bool overlap = !async && overlapsSoftmax(loop, loads, S);
  if (overlap) overlapLoops_.push_back(loop);
  // Overlapped, a stage is released one iteration late (V_j is read by P_j·V_j in iteration j + 1).
  bool mb = byMBarriers(loop, async, S);
  // TMA fills a wgmma ring (one thread, a full mbarrier per stage) where the loop keeps one
  // wgmma group in flight, whose CTA barrier per iteration stays and retires the stage being
  // refilled, and on mbarriers, whose free barriers release the stages (attention's K and V).
  bool tma = tma_ && (async || mb) && llvm::all_of(loads, [&](Staged &s) { return s.wgmma() && tmaCanCopy(s.load, f_); });
  // How many iterations ahead the copies run: with one wgmma group left in
  // flight, the buffer read two iterations before is the one free. On
  // mbarriers too: a stage is refilled once every thread has released it two
  // iterations before, so one warp may run an iteration ahead of another
  // (with a stage read one iteration before, every iteration would wait for
  // the slowest warp, as a CTA barrier does).
  int64_t D = async || mb || overlap ? S - 2 : S - 1;
  int64_t threads = this->threads();
  bool wgmma = llvm::any_of(loads, [](Staged &s) { return s.wgmma(); });
  Value full, free;
  if (mb) {
    full = allocBarriers(loc, S);
    free = allocBarriers(loc, S);
  }
  else if (tma) full = allocBarriers(loc, S);
  SmallVector<Value> bufs;
  SmallVector<SmallVector<Operation *>> slices;
  for (Staged &s : loads) {
    bufs.push_back(alloc(s, S));
    SmallVector<Operation *> slice;
    sliceInLoop(s.load, loop, slice);
    slices.push_back(std::move(slice));
  }
  if ((mb || tma) && warpSpecialize_ && wgmma && !ws_ && loop->getParentOp() == f_.getOperation() &&
      producerCanIssue(loop, loads, slices)) {
    if (tma && !mb) free = allocBarriers(loc, S);
    specialize(loop, loads, bufs, slices, S, full, free, tma);
    return;
  }
  Value iv = loop.getInductionVar();
  Type ivType = iv.getType();
  auto ivConst = [&](OpBuilder &b, int64_t v) -> Value {
    if (ivType.isIndex()) return constIndex(b, loc, v);
    return arith::ConstantOp::create(b, loc, ivType, b.getIntegerAttr(ivType, v));
  };
  Value cS;
  // The parity of the phase that the n-th use of a stage completes: (n / S) % 2.
  auto parityOf = [&](OpBuilder &b, Value n) {
    return arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, n, cS), constIndex(b, loc, 2)).getResult();
  };
  // In a persistent kernel's loop over its tiles (tilegpu-persistent), the ring lives across tiles:
  // its mbarriers are set up once, before the tile loop, its stages and phases count the CTA's
  // iterations over all its tiles, and the last iterations of a tile issue the next tile's first
  // stages (through copies of the tile's own address arithmetic for the next tile id), so that
  // only the CTA's first tile runs the prologue. Where the loop runs fewer iterations than the
  // copies run ahead, or an address needs more than arithmetic of the tile id, every tile runs
  // the prologue (after the barrier that ends the previous tile, every stage is free).
  scf::ForOp tileLoop = mb || tma ? tileLoopAround(loop) : scf::ForOp();
  SmallVector<SmallVector<Operation *>> outer(loads.size());
  bool crossable = bool(tileLoop);
  for (size_t i = 0; tileLoop && i < loads.size(); ++i)
    crossable = crossable && sliceInTile(loads[i].load, slices[i], tileLoop, outer[i]);
  // Issue the copies of one iteration (the n-th, null in the prologue, whose stages are free),
  // into stage `stage`, with the ring's address arithmetic through `seed`.
  auto issueInto = [&](OpBuilder &in, const IRMapping &seed, Value stage, Value n) {
    // On mbarriers: wait until every thread released the stage's previous use
    // (the phase before this use's; a fresh barrier counts it complete).
    if (mb && n)
      MBarrierWaitOp::create(in, loc, free, stage,
                             arith::XOrIOp::create(in, loc, parityOf(in, n), constIndex(in, loc, 1)));
    for (size_t i = 0; i < loads.size(); ++i) {
      IRMapping map = seed;
      for (Operation *op : slices[i]) in.clone(*op, map);
      if (tma) {
        SmallVector<Value> offsets;
        for (Value v : loads[i].load.getOffsets()) offsets.push_back(map.lookupOrDefault(v));
        TmaCopyOp::create(in, loc, tmaMap(loads[i].load, cast<MemDescType>(bufs[i].getType())), offsets, bufs[i],
                          stage, full, stage, loads[i].load.getSqueezed(), /*issuer=*/uint64_t(0));
      } else {
        copyInto(in, loads[i].load, map, bufs[i], stage);
      }
    }
    if (mb && !tma)
      MBarrierArriveOp::create(in, loc, full, stage, /*copies=*/true);
  };
  // Issue the copies of the iteration whose induction variable is `at`, if it exists.
  auto issue = [&](OpBuilder &b, Value at, Value stage, Value n) {
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    IRMapping seed;
    seed.map(iv, at);
    issueInto(in, seed, stage, n);
    if (!mb && !tma) AsyncCommitGroupOp::create(b, loc);
  };

  // Prologue: iterations 0 .. D-1.
  OpBuilder pre(loop);
  cS = constIndex(pre, loc, S);
  // By TMA, one arrival (the issuer's, with the stage's bytes expected) per copy into a stage;
  // by cp.async, every thread's copies arrive.
  {
    OpBuilder init = tileLoop ? OpBuilder(tileLoop) : OpBuilder(loop);
    if (tma) MBarrierInitOp::create(init, loc, full, int32_t(loads.size()), /*tma=*/true);
    else if (mb) MBarrierInitOp::create(init, loc, full, int32_t(threads));
    if (mb) MBarrierInitOp::create(init, loc, free, int32_t(threads));
  }
  // Across tiles: the iterations before this tile's (its number among the CTA's tiles times the
  // loop's iterations, the same in every tile), and whether the last iterations issue the next
  // tile's first ones.
  Value before, trips, crossOk;
  OpBuilder prologue = pre;
  if (tileLoop) {
    Value tIdx = indexOf(pre, loc, tileLoop.getInductionVar());
    Value nth = arith::DivUIOp::create(
        pre, loc, arith::SubIOp::create(pre, loc, tIdx, indexOf(pre, loc, tileLoop.getLowerBound())),
        indexOf(pre, loc, tileLoop.getStep()));
    Value span = arith::MaxSIOp::create(pre, loc,
                                        arith::SubIOp::create(pre, loc, indexOf(pre, loc, loop.getUpperBound()),
                                                              indexOf(pre, loc, loop.getLowerBound())),
                                        constIndex(pre, loc, 0));
    trips = arith::CeilDivUIOp::create(pre, loc, span, indexOf(pre, loc, loop.getStep()));
    before = arith::MulIOp::create(pre, loc, nth, trips);
    crossOk = crossable ? arith::CmpIOp::create(pre, loc, arith::CmpIPredicate::uge, trips, constIndex(pre, loc, D))
                              .getResult()
                        : arith::ConstantIntOp::create(pre, loc, pre.getI1Type(), 0).getResult();
    Value firstTile = arith::CmpIOp::create(pre, loc, arith::CmpIPredicate::eq, tileLoop.getInductionVar(),
                                            tileLoop.getLowerBound());
    Value notCross = arith::XOrIOp::create(pre, loc, crossOk, arith::ConstantIntOp::create(pre, loc, pre.getI1Type(), 1));
    auto g = scf::IfOp::create(pre, loc, arith::OrIOp::create(pre, loc, firstTile, notCross), /*withElseRegion=*/false);
    prologue = g.getThenBodyBuilder();
  }
  for (int64_t s = 0; s < D; ++s) {
    Value at = arith::AddIOp::create(prologue, loc, loop.getLowerBound(),
                                     arith::MulIOp::create(prologue, loc, loop.getStep(), ivConst(prologue, s)));
    if (!tileLoop) {
      issue(prologue, at, constIndex(prologue, loc, s), Value());
      continue;
    }
    // In a tile after the CTA's first, the ring's counts go on from the tiles before: the s-th
    // iteration is the ring's (before + s)-th use, into that use's stage, after its free phase
    // (which the barrier that ended the previous tile has long completed).
    Value n = arith::AddIOp::create(prologue, loc, before, constIndex(prologue, loc, s));
    issue(prologue, at, arith::RemUIOp::create(prologue, loc, n, cS), n);
  }
  if ((mb || tma) && waitAfterPrologue_) waitAfterPrologue(loop);
  // Each iteration: wait for its stage, publish it, issue D ahead, read.
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  // The iteration's number is never negative (scf.for's step is positive): unsigned division
  // and remainder, which a ring of 2 or 4 stages turns into a shift and a mask, where the
  // signed forms add the fix-ups for negative numbers to every iteration.
  Value iter = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
  Value localIdx = indexOf(b, loc, iter);
  Value iterIdx = tileLoop ? arith::AddIOp::create(b, loc, before, localIdx).getResult() : localIdx;
  Value stage = arith::RemUIOp::create(b, loc, iterIdx, cS);
  if (mb) {
    MBarrierWaitOp::create(b, loc, full, stage, parityOf(b, iterIdx));
    // cp.async lands through the generic proxy, TMA through the async one that wgmma reads by.
    if (wgmma && !tma) FenceAsyncSharedOp::create(b, loc);
  } else if (tma) {
    // TMA writes through the async proxy that wgmma reads by: no fence. The barrier after the
    // wait retires, in every warpgroup, the wgmma group that read the stage refilled below.
    MBarrierWaitOp::create(b, loc, full, stage, parityOf(b, iterIdx));
    BarrierOp::create(b, loc);
  } else {
    AsyncWaitOp::create(b, loc, int32_t(D - 1));
    if (wgmma) FenceAsyncSharedOp::create(b, loc);
    BarrierOp::create(b, loc);
  }
  Value ahead = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), ivConst(b, D)));
  Value aheadIter = arith::AddIOp::create(b, loc, iterIdx, constIndex(b, loc, D));
  Value aheadStage = arith::RemUIOp::create(b, loc, aheadIter, cS);
  issue(b, ahead, aheadStage, aheadIter);
  if (tileLoop && crossable) {
    // Past this tile's last iteration: the next tile's iteration (local + D - trips), if there is
    // a next tile. It exists in that tile: D <= trips.
    Value localAhead = arith::AddIOp::create(b, loc, localIdx, constIndex(b, loc, D));
    Value next = arith::AddIOp::create(b, loc, tileLoop.getInductionVar(), tileLoop.getStep());
    Value cond = arith::AndIOp::create(
        b, loc, crossOk,
        arith::AndIOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, localAhead, trips),
                              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, next, tileLoop.getUpperBound())));
    auto guard = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    IRMapping seed;
    seed.map(tileLoop.getInductionVar(), next);
    for (auto &ops : outer)
      for (Operation *op : ops)
        if (!seed.contains(op->getResult(0))) in.clone(*op, seed);
    Value nextIter = arith::SubIOp::create(in, loc, localAhead, trips);
    Value nextIv = ivType.isIndex() ? nextIter : arith::IndexCastOp::create(in, loc, ivType, nextIter).getResult();
    seed.map(iv, arith::AddIOp::create(in, loc, loop.getLowerBound(), arith::MulIOp::create(in, loc, loop.getStep(), nextIv)));
    issueInto(in, seed, aheadStage, aheadIter);
  }
  // The stage's reads are done (nothing of it is left in flight): release it. Overlapped, the
  // previous iteration's (its V was read by the P·V waited for in this one; tilegpu-pipeline's
  // rotation keeps the release after that wait).
  if (mb) {
    OpBuilder end(loop.getBody()->getTerminator());
    if (overlap)
      releasePrevious(end, loc, free, iterIdx, S);
    else
      MBarrierArriveOp::create(end, loc, free, stage, /*copies=*/false);
  }
  for (size_t i = 0; i < loads.size(); ++i) readFromRing(loads[i], bufs[i], stage);
  // Drain: the empty groups of the last iterations, and shared memory free for what follows.
  OpBuilder post(loop->getBlock(), std::next(Block::iterator(loop)));
  if (!mb && !tma) AsyncWaitOp::create(post, loc, 0);
  auto drain = BarrierOp::create(post, loc);
  if (tileLoop && crossable) prefetchOnceAcrossTiles(loop, tileLoop, drain);
}

void Pipeliner::run() {
  llvm::MapVector<Operation *, SmallVector<Staged>> byLoop;
  SmallVector<Staged> single;
  f_.walk([&](tile::LoadOp ld) {
    ConvertLayoutOp cvt;
    if (ld.getResult().hasOneUse()) cvt = dyn_cast<ConvertLayoutOp>(*ld.getResult().getUsers().begin());
    bool operand = cvt && isa<DotOperandEncodingAttr>(layoutOf(cvt.getType())) && cvt->getBlock() == ld->getBlock();
    // The SIMT policy's dot operands: in a loop, copied ahead into a ring that
    // the FMA dot reads (tilegpu-through-shared); outside one, stored once.
    bool fma = fmaRings_ && !operand && feedsOnlyFmaDots(ld.getResult());
    // A loop of vector FMA dots whose blocks tilegpu-prefetch-loads carries keeps no ring.
    if (fma && vectorDotRegs_ > 0)
      if (auto loop = dyn_cast<scf::ForOp>(ld->getParentOp()); loop && streamsByRegisters(loop)) return;
    if (!operand && !fma) return;
    if (fma) cvt = {};
    if (!(operand && forWgmma(cvt.getType())) && !copiesInChunks(ld)) return;
    auto loop = dyn_cast<scf::ForOp>(ld->getParentOp());
    // A persistent kernel's loop over its tiles gets no ring: Q is staged once a tile, and
    // copied for the next tile under this one's epilogue (prefetchOnceAcrossTiles).
    if (loop && loop->hasAttr(kTileLoopAttr)) loop = {};
    SmallVector<Operation *> slice;
    if (loop && stages_ >= 2 && sliceInLoop(ld, loop, slice))
      byLoop[loop].push_back({ld, cvt});
    else if (operand)
      single.push_back({ld, cvt});
  });
  for (Staged &s : single)
    onceBytes_ += bufferType(s.load, 1, s.wgmma()).getStageBytes(unsigned(s.load.getType().getRank()));
  for (Staged s : single) stageOnce(s, s.load->getParentOfType<scf::ForOp>() != nullptr);
  for (auto &[loop, loads] : byLoop) pipelineLoop(cast<scf::ForOp>(loop), loads);
  toWarpgroupDots();
  for (scf::ForOp loop : overlapLoops_) overlapSoftmax(loop);
  moveIntoConsumers();
}

} // namespace ph::tilegpu::pipeline

namespace ph::tilegpu {
namespace {

using pipeline::Pipeliner;

struct PipelinePass : impl::TileGPUPipelineBase<PipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;
  void runOnOperation() override {
    if (stages < 1) {
      getOperation().emitError() << "tilegpu-pipeline needs stages >= 1, not " << int64_t(stages);
      return signalPassFailure();
    }
    // The budget goes on the loop as tilegpu.vector_dot_regs, which the verifier keeps to a
    // thread's registers; 0 or less leaves every such loop its ring.
    if (vectorDotRegs > 255) {
      getOperation().emitError() << "tilegpu-pipeline needs vector-dot-regs <= 255 (32-bit registers a thread), not "
                                 << int64_t(vectorDotRegs);
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp f) { Pipeliner(f, fmaRings, vectorDotsByRegisters ? int64_t(vectorDotRegs) : 0, stages, wgmmaStages, ringBytes, mbarriers, warpSpecialize, consumerRegs, producerRegs, chainedStages, sharedPerSM, sharedPerBlock, tma, overlapSoftmax, onceAfterPrologue).run(); });
  }
};

} // namespace
} // namespace ph::tilegpu
