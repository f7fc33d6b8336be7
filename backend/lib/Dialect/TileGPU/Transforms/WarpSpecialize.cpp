//===- WarpSpecialize.cpp - tilegpu-pipeline: a producer warpgroup runs the copies ---===//
//
// Warp specialization (FlashAttention-3): a producer warpgroup of its own
// runs a loop's copies, and the consumers only wait for full stages and release
// them, so they run as far ahead as the ring lets them and spend no registers
// on addresses. The producer recomputes the loop's bounds and the copies'
// addresses from the kernel's arguments, which is why only a loop whose
// addresses come from them through pure scalar ops is specialized, and why
// everything after the split moves into the consumers' region.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

/// Clones into `b` the pure scalar ops of the function's body that `v` is computed
/// from (with `b` null: whether it could); function arguments are used as they are.
bool Pipeliner::cloneDefs(Value v, OpBuilder *b, IRMapping &map) {
  if (map.contains(v)) return true;
  if (auto arg = dyn_cast<BlockArgument>(v)) return arg.getOwner() == &f_.getBody().front();
  Operation *def = v.getDefiningOp();
  if (def->getBlock() != &f_.getBody().front() || def->getNumRegions() || !isMemoryEffectFree(def) ||
      llvm::any_of(def->getResultTypes(), [](Type t) { return isa<ShapedType, MemDescType>(t); }))
    return false;
  for (Value o : def->getOperands())
    if (!cloneDefs(o, b, map)) return false;
  if (b) b->clone(*def, map);
  else for (Value r : def->getResults()) map.map(r, r);
  return true;
}

namespace {

/// The values from outside `loop` that its copies' addresses are computed from (the loads'
/// operands and those of the in-loop ops they are computed by), the induction variable aside.
SmallVector<Value> copiesReadFromOutside(scf::ForOp loop, ArrayRef<Staged> loads,
                                         ArrayRef<SmallVector<Operation *>> slices) {
  SmallVector<Value> out;
  for (size_t i = 0; i < loads.size(); ++i) {
    SmallVector<Value> used(const_cast<tile::LoadOp &>(loads[i].load)->getOperands());
    for (Operation *op : slices[i]) used.append(op->getOperands().begin(), op->getOperands().end());
    for (Value v : used)
      if (v != loop.getInductionVar() && !loop->isAncestor(v.getParentBlock()->getParentOp())) out.push_back(v);
  }
  return out;
}

} // namespace

/// Whether a producer warpgroup can run the loop's copies by itself: the loop's
/// bounds and every value its copies' addresses are computed from (outside the
/// loop) come from the function's arguments through pure scalar ops.
bool Pipeliner::producerCanIssue(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<SmallVector<Operation *>> slices) {
  IRMapping dry;
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (!cloneDefs(v, nullptr, dry)) return false;
  for (Value v : copiesReadFromOutside(loop, loads, slices))
    if (!cloneDefs(v, nullptr, dry)) return false;
  return true;
}

/// The loop's copies move to a producer warpgroup (FlashAttention-3's warp
/// specialization): it runs the loop's iterations by itself, each waiting for
/// its stage's free barrier (the consumers' release of the use S iterations
/// before; a fresh barrier passes), copying into the stage and arriving on its
/// full barrier when the copies land. The consumers only wait for full
/// stages and release them, so they run as far ahead as the ring lets them,
/// and no copy is issued from their registers.
void Pipeliner::specialize(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<Value> bufs,
                           ArrayRef<SmallVector<Operation *>> slices, int64_t S, Value full, Value free, bool tma) {
  Location loc = loop.getLoc();
  int64_t consumers = 128;
  if (auto t = f_->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) consumers = t.getInt();
  const int64_t producers = 128;
  Block &body = f_.getBody().front();
  // After the allocations: the barriers' initialization (every thread), then the split.
  OpBuilder top(f_.getContext());
  Operation *first = &body.front();
  while (isa<LocalAllocOp>(first)) first = first->getNextNode();
  top.setInsertionPoint(first);
  // By TMA, one arrival (the issuer's expect_tx) per copy into a stage; by cp.async, each
  // producer thread's copies arrive.
  MBarrierInitOp::create(top, loc, full, int32_t(tma ? loads.size() : producers), tma);
  MBarrierInitOp::create(top, loc, free, int32_t(consumers));
  ws_ = WarpSpecializeOp::create(top, loc, top.getI32IntegerAttr(int32_t(consumers)),
                                 top.getI32IntegerAttr(int32_t(consumerRegs_)),
                                 top.getI32IntegerAttr(int32_t(producerRegs_)));
  ws_.getConsumer().emplaceBlock();
  ws_.getProducer().emplaceBlock();
  Builder attrs(f_.getContext());
  f_->setAttr(kConsumerThreadsAttr, attrs.getI32IntegerAttr(int32_t(consumers)));
  f_->setAttr(kLaunchThreadsAttr, attrs.getI32IntegerAttr(int32_t(consumers + producers)));

  // The producer: the same iterations, each into its stage once the stage is free.
  OpBuilder pb = OpBuilder::atBlockEnd(&ws_.getProducer().front());
  IRMapping pmap;
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()}) cloneDefs(v, &pb, pmap);
  for (Value v : copiesReadFromOutside(loop, loads, slices)) cloneDefs(v, &pb, pmap);
  Value lb = pmap.lookupOrDefault(loop.getLowerBound()), step = pmap.lookupOrDefault(loop.getStep());
  auto ploop = scf::ForOp::create(pb, loc, lb, pmap.lookupOrDefault(loop.getUpperBound()), step);
  OpBuilder in(ploop.getBody()->getTerminator());
  Value n = indexOf(in, loc, arith::DivSIOp::create(in, loc, arith::SubIOp::create(in, loc, ploop.getInductionVar(), lb), step));
  Value cS = constIndex(in, loc, S);
  Value stage = arith::RemUIOp::create(in, loc, n, cS);
  Value parity = arith::RemUIOp::create(in, loc, arith::DivUIOp::create(in, loc, n, cS), constIndex(in, loc, 2));
  MBarrierWaitOp::create(in, loc, free, stage, arith::XOrIOp::create(in, loc, parity, constIndex(in, loc, 1)));
  for (size_t i = 0; i < loads.size(); ++i) {
    IRMapping map = pmap;
    map.map(loop.getInductionVar(), ploop.getInductionVar());
    for (Operation *op : slices[i]) in.clone(*op, map);
    if (tma) {
      // The producer's first thread issues the stage's boxes: no address registers in the others.
      tile::LoadOp ld = loads[i].load;
      SmallVector<Value> offsets;
      for (Value v : ld.getOffsets()) offsets.push_back(map.lookupOrDefault(v));
      TmaCopyOp::create(in, loc, tmaMap(ld, cast<MemDescType>(bufs[i].getType())), offsets, bufs[i], stage, full, stage,
                        ld.getSqueezed(), uint64_t(consumers));
    } else {
      copyInto(in, loads[i].load, map, bufs[i], stage);
    }
  }
  // Its copies spread over the producer's own threads.
  ploop.getBody()->walk([&](AsyncCopyOp c) {
    c->setAttr(kThreadsAttr, attrs.getI64IntegerAttr(producers));
    c->setAttr(kThreadBaseAttr, attrs.getI64IntegerAttr(consumers));
  });
  if (!tma) MBarrierArriveOp::create(in, loc, full, stage, /*copies=*/true);

  // The consumers: wait for the stage, read it, release it.
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  Value iter = indexOf(b, loc, arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                                                                      loop.getLowerBound()), loop.getStep()));
  Value cS2 = constIndex(b, loc, S);
  Value cstage = arith::RemUIOp::create(b, loc, iter, cS2);
  MBarrierWaitOp::create(b, loc, full, cstage,
                         arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, iter, cS2), constIndex(b, loc, 2)));
  // cp.async lands through the generic proxy, TMA through the async one that wgmma reads by.
  if (!tma) FenceAsyncSharedOp::create(b, loc);
  for (size_t i = 0; i < loads.size(); ++i) readFromRing(loads[i], bufs[i], cstage);
  OpBuilder end(loop.getBody()->getTerminator());
  if (!asyncLoops_.contains(loop) && !llvm::is_contained(overlapLoops_, loop)) {
    MBarrierArriveOp::create(end, loc, free, cstage, /*copies=*/false);
    return;
  }
  // The iteration's wgmma group stays in flight (the `warpgroup_wait 1` that follows it,
  // keepOneGroupInFlight, retires the previous iteration's), or P·V of this iteration's V runs in
  // the next (overlapSoftmax): the previous iteration's stage is the one released.
  releasePrevious(end, loc, free, iter, S);
}

/// At the end of iteration `iter` (from 0), the release of the stage of iteration `iter` - 1.
void Pipeliner::releasePrevious(OpBuilder &b, Location loc, Value free, Value iter, int64_t S) {
  Value later = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, iter, constIndex(b, loc, 0));
  auto guard = scf::IfOp::create(b, loc, later, /*withElseRegion=*/false);
  OpBuilder rel = guard.getThenBodyBuilder();
  Value prev = arith::RemUIOp::create(rel, loc, arith::AddIOp::create(rel, loc, iter, constIndex(rel, loc, S - 1)),
                                      constIndex(rel, loc, S));
  MBarrierArriveOp::create(rel, loc, free, prev, /*copies=*/false);
}

/// Everything of the function after the split runs on the consumers.
void Pipeliner::moveIntoConsumers() {
  if (!ws_) return;
  Block &body = f_.getBody().front();
  Block &to = ws_.getConsumer().front();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(ws_->getIterator()), body.getTerminator()->getIterator())))
    op.moveBefore(&to, to.end());
}

} // namespace ph::tilegpu::pipeline
