//===- PipelineRings.cpp - tilegpu-pipeline: what a ring is made of ----------===//
//
// Every ring tilegpu-pipeline builds, whichever way it is filled (cp.async by
// every thread, TMA, a producer warpgroup) and synchronized (CTA barriers,
// mbarriers), is made of the same pieces: the loads that qualify, a buffer laid
// out for its reader (rows padded for ldmatrix, the swizzle wgmma's descriptors
// name), the in-loop ops an address is computed by (cloned for the iteration
// the copy runs ahead for), the copy into a stage and the read that replaces
// the load. Kept here so that each way of building a ring reads as its steps.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"
#include "LoopFacts.h"

#include "ph/Dialect/TileGPU/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

/// An operand of a wgmma dot: read by the tensor cores from shared memory.
bool forWgmma(Type t) {
  auto op = dyn_cast_or_null<DotOperandEncodingAttr>(layoutOf(t));
  auto m = op ? dyn_cast<MmaEncodingAttr>(op.getParent()) : MmaEncodingAttr();
  return m && m.getVersion() == 3;
}

bool Staged::wgmma() { return convert && forWgmma(convert.getType()); }

/// Whether every use of `v` is, through layout conversions and widenings of its
/// elements, an operand of a dot in a blocked layout (the SIMT policy's FMA dot,
/// which reads its operands from shared memory and widens them as it reads).
bool feedsOnlyFmaDots(Value v) {
  if (v.use_empty()) return false;
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    if (isa<ConvertLayoutOp>(u)) {
      if (!feedsOnlyFmaDots(u->getResult(0))) return false;
      continue;
    }
    if (auto c = dyn_cast<tile::ConvertOp>(u)) {
      auto from = dyn_cast<FloatType>(getElementTypeOrSelf(c.getSource().getType()));
      auto to = dyn_cast<FloatType>(getElementTypeOrSelf(c.getType()));
      if (!from || !to || from.getWidth() >= to.getWidth() || !feedsOnlyFmaDots(c.getResult())) return false;
      continue;
    }
    auto d = dyn_cast<DotOp>(u);
    if (!d || use.getOperandNumber() > 1 || !isFmaDot(d)) return false;
  }
  return true;
}

/// For ldmatrix, rows padded by 16 bytes: its eight 16-byte row reads then
/// hit eight distinct groups of four banks whatever the row length. For
/// wgmma, the swizzle its descriptors name: 16-byte chunks of row r XORed
/// by (r / perPhase) % maxPhase within rows of 32, 64 or 128 bytes.
MemDescType bufferType(RankedTensorType t, int64_t stages, bool wgmma) {
  MLIRContext *ctx = t.getContext();
  unsigned elem = (t.getElementTypeBitWidth() + 7) / 8;
  unsigned pad = 16 / elem;
  SmallVector<unsigned> order;
  for (int d = int(t.getRank()) - 1; d >= 0; --d) order.push_back(unsigned(d));
  auto enc = SharedEncodingAttr::get(ctx, /*vec=*/pad, /*perPhase=*/1, /*maxPhase=*/1, pad, order);
  if (wgmma) {
    unsigned width = std::min<unsigned>(128, unsigned(t.getShape().back()) * elem);
    enc = SharedEncodingAttr::get(ctx, /*vec=*/16 / elem, /*perPhase=*/128 / width, /*maxPhase=*/width / 16, 0, order);
  }
  SmallVector<int64_t> shape;
  if (stages > 1) shape.push_back(stages);
  shape.append(t.getShape().begin(), t.getShape().end());
  return MemDescType::get(ctx, shape, t.getElementType(), enc);
}

MemDescType bufferType(tile::LoadOp ld, int64_t stages, bool wgmma) {
  return bufferType(cast<RankedTensorType>(ld.getResult().getType()), stages, wgmma);
}

/// The ops inside `loop`'s body that the load's operands are computed from, in
/// program order; false when one of them is not pure or reads an iter_arg.
bool sliceInLoop(tile::LoadOp ld, scf::ForOp loop, SmallVectorImpl<Operation *> &slice) {
  SetVector<Operation *> ops;
  SmallVector<Value> work(ld->getOperands().begin(), ld->getOperands().end());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar()) return false;
      if (loop->isProperAncestor(arg.getOwner()->getParentOp())) return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isProperAncestor(def)) continue;
    if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def)) return false;
    ops.insert(def);
    for (Value o : def->getOperands()) work.push_back(o);
  }
  slice.assign(ops.begin(), ops.end());
  llvm::sort(slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

bool sliceInTile(Operation *ld, ArrayRef<Operation *> inLoop, scf::ForOp tileLoop,
                 SmallVectorImpl<Operation *> &slice) {
  SetVector<Operation *> ops;
  SmallVector<Value> work(ld->getOperands().begin(), ld->getOperands().end());
  for (Operation *op : inLoop) work.append(op->getOperands().begin(), op->getOperands().end());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != tileLoop.getBody()) continue;
    if (def->getNumRegions() || !isMemoryEffectFree(def) || def->getNumResults() != 1) return false;
    ops.insert(def);
    for (Value o : def->getOperands()) work.push_back(o);
  }
  slice.assign(ops.begin(), ops.end());
  llvm::sort(slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

Value indexOf(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex()) return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value constIndex(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

void copyInto(OpBuilder &b, tile::LoadOp ld, IRMapping &map, Value buffer, Value stage) {
  auto mapAll = [&](ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs) out.push_back(map.lookupOrDefault(v));
    return out;
  };
  AsyncCopyOp::create(b, ld.getLoc(), map.lookupOrDefault(ld.getPtr()), mapAll(ld.getOffsets()), mapAll(ld.getExtents()),
                      buffer, stage, ld.getLensAttr(), ld.getMaskedAttr(), ld.getSqueezedAttr());
}

/// The load (and its conversion) become a read of `stage` of the ring, where the load's
/// value was used (the SIMT policy's FMA dots read the ring in place instead: through-shared).
void readFromRing(Staged s, Value buf, Value stage) {
  Value old = s.replaced();
  OpBuilder at(old.getDefiningOp());
  auto read = LocalLoadOp::create(at, s.load.getLoc(), old.getType(), buf, stage);
  old.replaceAllUsesWith(read.getResult());
  if (s.convert) s.convert.erase();
  s.load.erase();
}

} // namespace ph::tilegpu::pipeline
