//===- PingPong.cpp - tilegpu-pingpong: two warpgroups take turns at wgmma ---===//
//
// Attention on wgmma waits for each dot before its softmax, so a warpgroup
// leaves the tensor cores idle through its own softmax. With two warpgroups
// in a CTA that idle time is the other's to fill, but nothing makes it: both
// meet at the iteration's barrier, issue their S = Q K^T together and run
// their softmaxes together (docs/tilegpu.md, "Attention on wgmma": the
// barrier is the first stall). FlashAttention-3 orders them on two named
// barriers: warpgroup 0 issues, passes the turn, and runs its softmax while
// warpgroup 1's dot runs. Only the order of issue changes, not what is
// computed; each dot still completes before its result is read.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/Tile/TileDialect.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPINGPONG
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The loop's waited-for warpgroup dots, if it takes turns: at least two of
/// them, all in the loop's own block (a dot under an `scf.if` would make the
/// warpgroups' turns depend on a condition), none async (a GEMM's K loop keeps
/// its group in flight across iterations: its warpgroups have nothing to
/// overlap).
SmallVector<WarpgroupDotOp> turnsOf(scf::ForOp loop) {
  SmallVector<WarpgroupDotOp> dots;
  bool nested = false;
  loop.getBody()->walk([&](WarpgroupDotOp d) {
    if (d->getBlock() != loop.getBody() || d.getAsync()) nested = true;
    else dots.push_back(d);
  });
  if (nested || dots.size() < 2) return {};
  return dots;
}

void takeTurns(scf::ForOp loop, ArrayRef<WarpgroupDotOp> dots, int32_t barrier) {
  auto turn = [&](OpBuilder &b, Location loc, StringRef kind) {
    WarpgroupTurnOp::create(b, loc, b.getStringAttr(kind), b.getI32IntegerAttr(barrier));
  };
  OpBuilder before(loop);
  turn(before, loop.getLoc(), "init");
  OpBuilder after(loop->getContext());
  after.setInsertionPointAfter(loop);
  turn(after, loop.getLoc(), "fini");
  for (WarpgroupDotOp d : dots) {
    OpBuilder b(d);
    turn(b, d.getLoc(), "wait");
    d.setAsync(true);
    b.setInsertionPointAfter(d);
    turn(b, d.getLoc(), "pass");
    auto wait = WarpgroupWaitOp::create(b, d.getLoc(), ValueRange{d.getResult()}, 0);
    d.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
  }
}

void pingPong(func::FuncOp f, int32_t barrier) {
  auto threads = f->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr);
  if (!threads || threads.getInt() != 256) return;
  // Loops the whole CTA runs (or all its consumers): in the kernel's body or
  // a warp-specialized kernel's consumer region, not inside another loop.
  SmallVector<scf::ForOp> loops;
  auto collect = [&](Block &b) {
    for (auto loop : b.getOps<scf::ForOp>()) loops.push_back(loop);
  };
  collect(f.getBody().front());
  f.walk([&](WarpSpecializeOp ws) { collect(ws.getConsumer().front()); });
  for (scf::ForOp loop : loops)
    if (SmallVector<WarpgroupDotOp> dots = turnsOf(loop); !dots.empty()) takeTurns(loop, dots, barrier);
}

struct PingPongPass : impl::TileGPUPingPongBase<PingPongPass> {
  using TileGPUPingPongBase::TileGPUPingPongBase;
  void runOnOperation() override {
    if (barrier < 1 || barrier > 14) {
      getOperation().emitError() << "tilegpu-pingpong needs barrier in [1, 14], not " << static_cast<int32_t>(barrier);
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp f) { pingPong(f, barrier); });
  }
};

} // namespace
} // namespace ph::tilegpu
