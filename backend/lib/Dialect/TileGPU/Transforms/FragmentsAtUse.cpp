//===- FragmentsAtUse.cpp - tilegpu-fragments-at-use: ldmatrix where the dot runs -===//
//
// tilegpu-pipeline puts a ring's reads (`local_load` into a dot operand layout)
// right after the wait for the stage, at the top of the iteration. Attention's
// key loop has two dots there, S = Q K^T and P V, with the whole softmax between
// them, so V's fragments were read at the top and held through the softmax: 32
// registers a thread at D = 64, BC = 32 (168 against the legacy emitter's 117),
// and at BR = 128, D = 128 the kernel spilled. Each read now sits just before
// its dot, where the legacy emitter read it.
//
// A read moves down only past ops that neither synchronize nor write shared
// memory (anything of this dialect but reads, dots and layout conversions,
// and any op whose regions hold one): the barrier or mbarrier after a read is
// what lets another thread overwrite the stage.
//
// An operand read once before a loop (Q) stays in registers across the loop
// when they are few; one of more than `max-hoisted-regs` registers a thread
// (Q at BR = 128, D = 128: 64) is read again in each iteration, before its
// dot, as the legacy emitter does, when nothing in the loop writes its buffer.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUFRAGMENTSATUSE
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Whether a shared-memory read may move from before `op` to after it.
bool passable(Operation *op) {
  bool ok = true;
  op->walk([&](Operation *in) {
    if (isa<TileGPUDialect>(in->getDialect()) && !isa<LocalLoadOp, DotOp, ConvertLayoutOp>(in)) ok = false;
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  return ok;
}

/// A read into an mma.sync operand layout with one use, a dot, and no window.
DotOp operandRead(LocalLoadOp ld) {
  auto rt = cast<RankedTensorType>(ld.getType());
  auto enc = dyn_cast_or_null<DotOperandEncodingAttr>(rt.getEncoding());
  if (!enc || ld->hasAttr(kWindowAttr) || !ld.getResult().hasOneUse()) return {};
  auto m = dyn_cast<MmaEncodingAttr>(enc.getParent());
  if (!m || m.getVersion() != 2) return {};
  return dyn_cast<DotOp>(*ld.getResult().getUsers().begin());
}

/// Moves `ld` down to just before `dot` (in its block) when nothing between forbids it.
void sink(LocalLoadOp ld, DotOp dot) {
  if (dot->getBlock() != ld->getBlock() || !ld->isBeforeInBlock(dot)) return;
  for (Operation *op = ld->getNextNode(); op != dot.getOperation(); op = op->getNextNode())
    if (!passable(op)) return;
  // The read's own operands (the stage index) must be defined before the dot: they are,
  // being defined before the read.
  ld->moveBefore(dot);
}

/// Whether some op in `loop` writes `buffer` (a copy or store into it).
bool writtenIn(scf::ForOp loop, Value buffer) {
  bool written = false;
  loop->walk([&](Operation *op) {
    if (auto c = dyn_cast<AsyncCopyOp>(op); c && c.getBuffer() == buffer) written = true;
    if (auto s = dyn_cast<LocalStoreOp>(op); s && s.getBuffer() == buffer) written = true;
  });
  return written;
}

struct FragmentsAtUsePass : impl::TileGPUFragmentsAtUseBase<FragmentsAtUsePass> {
  using TileGPUFragmentsAtUseBase::TileGPUFragmentsAtUseBase;
  void runOnOperation() override {
    SmallVector<std::pair<LocalLoadOp, DotOp>> reads;
    getOperation().walk([&](LocalLoadOp ld) {
      if (DotOp dot = operandRead(ld)) reads.push_back({ld, dot});
    });
    for (auto [ld, dot] : reads) {
      if (dot->getBlock() == ld->getBlock()) {
        sink(ld, dot);
        continue;
      }
      // Read before a loop, used inside it.
      auto loop = dyn_cast_or_null<scf::ForOp>(ld->getBlock()->findAncestorOpInBlock(*dot));
      if (!loop || dot->getParentOp() != loop || ld.getStage()) continue;
      if (registersPerThread(cast<RankedTensorType>(ld.getType())).value_or(0) <= maxHoistedRegs) continue;
      if (writtenIn(loop, ld.getBuffer())) continue;
      OpBuilder b(dot);
      Operation *again = b.clone(*ld);
      dot->replaceUsesOfWith(ld.getResult(), again->getResult(0));
      ld->erase();
    }
  }
};

} // namespace
} // namespace ph::tilegpu
