//===- PrefetchFragments.cpp - tilegpu-prefetch-fragments: ldmatrix a step ahead -===//
//
// After tilegpu-pipeline, an mma.sync K loop waits for its stage at the top of
// each iteration, then reads all of the stage's fragments, then issues all of
// its mma.sync: every iteration starts with the tensor cores idle behind a
// barrier and the ldmatrix latency. This pass splits the loop's dot into its
// 16-deep K steps and reads the fragments of step k + 1 before the mma.sync of
// step k; the fragments of the next iteration's first step are read at the end
// of the iteration, after the wait and barrier for the next stage (moved there
// from the top), and carried around the back edge, so the barrier runs while
// the last step's mma.sync are in flight (Triton's prefetch pass, CUTLASS's
// warp-level fragment double buffering).
//
// Ordering stays that of the pipeline: copies into a stage are issued at the
// top of an iteration, after every thread passed the barrier at the end of the
// previous one, which comes after each read of the stage being overwritten
// (read one iteration before, its first step's fragments two before).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "LoopFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPREFETCHFRAGMENTS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// mma.sync m16n8k16: the K step one instruction takes.
constexpr int64_t kStepK = 16;

/// A loop tilegpu-pipeline made: one wait and one barrier at the top, then the
/// two ring reads of one accumulating mma.sync dot.
struct Candidate {
  scf::ForOp loop;
  DotOp dot;
  LocalLoadOp a, b;
  AsyncWaitOp wait;
  BarrierOp barrier;
  arith::RemUIOp stage; // iteration % stages
};

bool isRingRead(Value v, scf::ForOp loop, LocalLoadOp &out) {
  auto ld = v.getDefiningOp<LocalLoadOp>();
  if (!ld || ld->getBlock() != loop.getBody() || !ld.getStage() || ld->hasAttr(kWindowAttr) || !v.hasOneUse())
    return false;
  out = ld;
  return true;
}

bool match(scf::ForOp loop, Candidate &c) {
  c.loop = loop;
  Block *body = loop.getBody();
  int dots = 0;
  for (Operation &op : *body) dots += isa<DotOp>(op);
  // One dot, its accumulator chained around the loop, on mma.sync.
  c.dot = chainedAccumulatorDot(loop);
  if (dots != 1 || !c.dot) return false;
  auto mma = dyn_cast<MmaEncodingAttr>(cast<RankedTensorType>(c.dot.getAcc().getType()).getEncoding());
  if (!mma || mma.getVersion() != 2) return false;
  if (!isRingRead(c.dot.getA(), loop, c.a) || !isRingRead(c.dot.getB(), loop, c.b)) return false;
  if (c.a.getStage() != c.b.getStage()) return false;
  c.stage = c.a.getStage().getDefiningOp<arith::RemUIOp>();
  if (!c.stage || c.stage->getBlock() != body || !c.stage.getRhs().getDefiningOp<arith::ConstantOp>()) return false;
  // The pipeline's one CTA barrier of the iteration, right after its wait, before the reads;
  // nothing else in the body synchronizes (a ring on mbarriers is not this shape).
  int barriers = 0, waits = 0;
  loop.getBody()->walk([&](Operation *op) {
    if (auto w = dyn_cast<BarrierOp>(op)) {
      ++barriers;
      c.barrier = w;
    }
    if (isa<AsyncWaitOp>(op)) ++waits;
    if (isa<MBarrierWaitOp, MBarrierArriveOp>(op)) barriers += 2;
  });
  if (barriers != 1 || waits != 1 || c.barrier->getBlock() != body) return false;
  c.wait = dyn_cast_or_null<AsyncWaitOp>(c.barrier->getPrevNode());
  if (!c.wait || !c.barrier->isBeforeInBlock(c.a) || !c.barrier->isBeforeInBlock(c.b)) return false;
  if (!c.a->isBeforeInBlock(c.dot) || !c.b->isBeforeInBlock(c.dot)) return false;
  // Whole K steps.
  auto aTy = cast<RankedTensorType>(c.a.getType());
  int64_t k = aTy.getDimSize(1);
  return k >= kStepK && k % kStepK == 0;
}

class Prefetcher {
public:
  explicit Prefetcher(Candidate c) : c_(c) {
    auto aTy = cast<RankedTensorType>(c.a.getType());
    steps_ = aTy.getDimSize(1) / kStepK;
    trans_ = c.dot.getTransB();
  }

  void run() {
    scf::ForOp loop = c_.loop;
    Location loc = loop.getLoc();
    // Before the loop: the first stage waited for and published, its first step read.
    OpBuilder pre(loop);
    AsyncWaitOp::create(pre, loc, int32_t(c_.wait.getPending()));
    BarrierOp::create(pre, loc);
    Value stage0 = arith::ConstantIndexOp::create(pre, loc, 0);
    Value a0 = read(pre, c_.a, stage0, 0), b0 = read(pre, c_.b, stage0, 0);
    IRRewriter rw(loop.getContext());
    auto grown = loop.replaceWithAdditionalYields(
        rw, ValueRange{a0, b0}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> carried) { return chain(carried[0], carried[1]); });
    (void)grown;
  }

private:
  /// Step `step` of the operand `ld` reads, from stage `stage` of its ring.
  Value read(OpBuilder &b, LocalLoadOp ld, Value stage, int64_t step) {
    auto t = cast<RankedTensorType>(ld.getType());
    bool isA = ld == c_.a;
    // K is A's dimension 1, B's 0 (B^T's 1).
    unsigned kDim = isA || trans_ ? 1 : 0;
    SmallVector<int64_t> shape(t.getShape()), window(2, 0);
    shape[kDim] = kStepK;
    window[kDim] = step * kStepK;
    auto st = RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
    auto r = LocalLoadOp::create(b, ld.getLoc(), st, ld.getBuffer(), stage);
    r->setAttr(kWindowAttr, b.getDenseI64ArrayAttr(window));
    return r.getResult();
  }

  /// The dot's K steps, each step's fragments read before the previous step's
  /// mma.sync; returns the next iteration's first fragments.
  SmallVector<Value> chain(Value a, Value b) {
    Location loc = c_.dot.getLoc();
    OpBuilder bld(c_.dot);
    Value stage = c_.a.getStage(), acc = c_.dot.getAcc(), nextA, nextB;
    for (int64_t s = 0; s < steps_; ++s) {
      Value na, nb;
      if (s + 1 < steps_) {
        na = read(bld, c_.a, stage, s + 1);
        nb = read(bld, c_.b, stage, s + 1);
      } else {
        // The next stage: its copies waited for and published while this step's
        // mma.sync are still to be issued; (iteration + 1) % stages.
        AsyncWaitOp::create(bld, loc, int32_t(c_.wait.getPending()));
        BarrierOp::create(bld, loc);
        Value one = arith::ConstantIndexOp::create(bld, loc, 1);
        Value next = arith::RemUIOp::create(bld, loc, arith::AddIOp::create(bld, loc, c_.stage.getLhs(), one),
                                            c_.stage.getRhs());
        nextA = na = read(bld, c_.a, next, 0);
        nextB = nb = read(bld, c_.b, next, 0);
      }
      auto d = DotOp::create(bld, loc, acc.getType(), a, b, acc, c_.dot.getTransBAttr());
      acc = d.getResult();
      a = na;
      b = nb;
    }
    c_.dot.getResult().replaceAllUsesWith(acc);
    c_.dot.erase();
    c_.a.erase();
    c_.b.erase();
    c_.barrier.erase();
    c_.wait.erase();
    return {nextA, nextB};
  }

  Candidate c_;
  int64_t steps_ = 1;
  bool trans_ = false;
};

struct PrefetchFragmentsPass : impl::TileGPUPrefetchFragmentsBase<PrefetchFragmentsPass> {
  using TileGPUPrefetchFragmentsBase::TileGPUPrefetchFragmentsBase;
  void runOnOperation() override {
    SmallVector<Candidate> found;
    getOperation().walk([&](scf::ForOp loop) {
      Candidate c;
      if (match(loop, c)) found.push_back(c);
    });
    for (Candidate &c : found) Prefetcher(c).run();
  }
};

} // namespace
} // namespace ph::tilegpu
