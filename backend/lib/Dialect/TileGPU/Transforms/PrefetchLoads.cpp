//===- PrefetchLoads.cpp - tilegpu-prefetch-loads: the next block in flight -----===//
//
// A memory-bound row loop (softmax's and the norms' statistics, cross-entropy's
// logsumexp) loads a block, reduces it across lanes and warps, and only then
// loads the next: ptxas does not move a load across the back edge, so each
// thread has one block of loads in flight and the memory system waits out
// every reduction's shuffles and barriers. Reading the next block at the top
// of the iteration, into registers the loop carries, keeps two in flight
// (register double-buffering, as hand-written CUDA reduction kernels do).
//
// The next block's address is the same pure ops of the induction variable,
// which stands at `select(iv + step < ub, iv + step, iv)`: the last iteration
// re-reads its own block (a hit in L1) instead of reading past the end, which
// a dimension known to stay inside (`@aligned`, unmasked) would not catch. The
// first block is read before the loop under `scf.if (lb < ub)`, so a loop that
// does not run reads nothing.
//
// Sound when nothing in the loop writes memory a prefetched read might see:
// no tile.store in the body (tensors may alias), no TileGPU op (rings and
// barriers are tilegpu-pipeline's), no nested loop, and no dot but an FMA dot
// (pure arithmetic) in a loop of vector dots (flash-decoding with one query,
// whose K and V blocks tilegpu-pipeline leaves to this pass) or with fma-dots.
// There the carried blocks' conversions, where tilegpu-through-shared stores
// them to shared memory, move to the top of the body, before the next reads.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/Tile/TileDialect.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "LoopFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPREFETCHLOADS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Whether the loop's body may have its loads read an iteration early.
bool eligible(scf::ForOp loop, bool fmaDots) {
  bool ok = true;
  loop.getBody()->walk([&](Operation *op) {
    // A layout conversion goes through shared memory only; every other TileGPU op belongs to
    // a ring, a dot or a barrier protocol this pass does not reason about.
    if (auto d = dyn_cast<DotOp>(op); fmaDots && d && isFmaDot(d)) return WalkResult::advance();
    if (isa<tile::StoreOp, tile::DotOp, scf::ForOp, scf::WhileOp>(op) ||
        (isa_and_nonnull<TileGPUDialect>(op->getDialect()) && !isa<ConvertLayoutOp>(op)))
      ok = false;
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  return ok;
}

/// Collects, in body order, the ops of `loop`'s body that `v` is computed from
/// (pure, without regions, from the induction variable and values defined outside);
/// false when `v` depends on anything else (an iter_arg, a load, an impure op).
bool sliceOf(Value v, scf::ForOp loop, llvm::SetVector<Operation *> &slice, int depth = 0) {
  if (v == loop.getInductionVar()) return true;
  if (auto arg = dyn_cast<BlockArgument>(v)) return !loop->isAncestor(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (!loop->isProperAncestor(def)) return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isPure(def) || depth > 16) return false;
  if (slice.contains(def)) return true;
  for (Value o : def->getOperands())
    if (!sliceOf(o, loop, slice, depth + 1)) return false;
  slice.insert(def);
  return true;
}

/// `ops` (a slice, in body order) and then `ld` cloned at the builder, with `iv` standing
/// for the loop's induction variable; returns the clone's result.
Value cloneAt(OpBuilder &b, ArrayRef<Operation *> ops, tile::LoadOp ld, Value loopIv, Value iv) {
  IRMapping map;
  map.map(loopIv, iv);
  for (Operation *op : ops) b.clone(*op, map);
  return b.clone(*ld.getOperation(), map)->getResult(0);
}

} // namespace

SmallVector<tile::LoadOp> prefetchableLoads(scf::ForOp loop, int64_t maxRegs, bool fmaDots,
                                           llvm::SetVector<Operation *> *sliceOut) {
  SmallVector<tile::LoadOp> loads;
  if (!eligible(loop, fmaDots)) return loads;
  llvm::SetVector<Operation *> slice;
  int64_t regs = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto ld = dyn_cast<tile::LoadOp>(&op);
    if (!ld) continue;
    auto t = dyn_cast<RankedTensorType>(ld.getType());
    std::optional<int64_t> r = t ? registersPerThread(t) : std::nullopt;
    if (!r || regs + *r > maxRegs) continue;
    llvm::SetVector<Operation *> mine = slice;
    bool ok = true;
    for (Value v : ld->getOperands()) ok = ok && sliceOf(v, loop, mine);
    if (!ok) continue;
    slice = std::move(mine);
    loads.push_back(ld);
    regs += *r;
  }
  if (sliceOut) *sliceOut = std::move(slice);
  return loads;
}

namespace {

void prefetch(scf::ForOp loop, int64_t maxRegs, bool fmaDots) {
  // A loop of vector FMA dots that tilegpu-pipeline left to registers streams its operands,
  // within the registers the pipeline counted them in.
  if (auto budget = loop->getAttrOfType<IntegerAttr>(kVectorDotRegsAttr)) {
    loop->removeAttr(kVectorDotRegsAttr);
    fmaDots = true;
    maxRegs = std::max(maxRegs, budget.getInt());
  }
  llvm::SetVector<Operation *> slice;
  SmallVector<tile::LoadOp> loads = prefetchableLoads(loop, maxRegs, fmaDots, &slice);
  if (loads.empty()) return;
  // The slice in body order, so each clone finds its operands' clones.
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  auto lt = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value runs = arith::CmpIOp::create(b, loc, lt, lb, ub);
  SmallVector<Type> types;
  for (tile::LoadOp ld : loads) types.push_back(ld.getType());
  auto first = scf::IfOp::create(b, loc, types, runs, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    for (Region *r : {&first.getThenRegion(), &first.getElseRegion()})
      if (r->front().mightHaveTerminator()) r->front().getTerminator()->erase();
    b.setInsertionPointToStart(&first.getThenRegion().front());
    SmallVector<Value> vals;
    for (tile::LoadOp ld : loads) vals.push_back(cloneAt(b, ordered, ld, loop.getInductionVar(), lb));
    scf::YieldOp::create(b, loc, vals);
    b.setInsertionPointToStart(&first.getElseRegion().front());
    SmallVector<Value> zeros;
    for (Type t : types) {
      auto rt = cast<RankedTensorType>(t);
      zeros.push_back(
          arith::ConstantOp::create(b, loc, rt, SplatElementsAttr::get(rt, b.getZeroAttr(rt.getElementType()))));
    }
    scf::YieldOp::create(b, loc, zeros);
  }
  IRRewriter rw(loop.getContext());
  rw.setInsertionPoint(loop);
  Block *body = loop.getBody();
  Value iv = loop.getInductionVar();
  auto grown = loop.replaceWithAdditionalYields(
      rw, first.getResults(), /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &yb, Location, ArrayRef<BlockArgument> carried) {
        // The next block's reads open the iteration; this block's come from the carried tiles.
        OpBuilder::InsertionGuard g(yb);
        yb.setInsertionPointToStart(body);
        Value next = arith::AddIOp::create(yb, loc, iv, step);
        Value inside = arith::CmpIOp::create(yb, loc, lt, next, ub);
        Value at = arith::SelectOp::create(yb, loc, inside, next, iv);
        SmallVector<Value> ahead;
        for (auto [ld, arg] : llvm::zip(loads, carried)) {
          ahead.push_back(cloneAt(yb, ordered, ld, iv, at));
          ld.getResult().replaceAllUsesWith(arg);
          ld.erase();
        }
        return ahead;
      });
  // An FMA dot's operand goes to shared memory at its layout conversion (tilegpu-through-shared):
  // the carried block's conversions open the iteration, before the next block's reads, so its
  // registers are free before those reads land in others (the legacy SIMT emitter's order: store
  // the block, then read the next one).
  if (fmaDots) {
    auto newLoop = cast<scf::ForOp>(*grown);
    Block *nb = newLoop.getBody();
    Operation *front = &nb->front();
    unsigned n = unsigned(loads.size());
    for (BlockArgument arg : nb->getArguments().take_back(n)) {
      Value v = arg;
      while (v.hasOneUse()) {
        Operation *u = *v.getUsers().begin();
        if (!isa<tile::ConvertOp, ConvertLayoutOp>(u) || u->getBlock() != nb) break;
        u->moveBefore(front);
        v = u->getResult(0);
      }
    }
  }
  // The slice's originals that only the moved loads used (the block's offset casts).
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty()) op->erase();
}

struct PrefetchLoadsPass : impl::TileGPUPrefetchLoadsBase<PrefetchLoadsPass> {
  using TileGPUPrefetchLoadsBase::TileGPUPrefetchLoadsBase;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp l) { loops.push_back(l); });
    for (scf::ForOp l : loops) prefetch(l, maxRegs, fmaDots);
  }
};

} // namespace
} // namespace ph::tilegpu
