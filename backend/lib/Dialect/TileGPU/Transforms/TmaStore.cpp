//===- TmaStore.cpp - tilegpu-tma-store: an epilogue through shared memory and TMA ---===//
//
// A wgmma kernel's epilogue writes its output tile from the accumulator's
// registers. Stored directly, each warp writes 16-byte pieces of eight rows; through
// a swizzled shared buffer, one thread hands the whole tile to TMA in 128-byte rows
// and the CTA's threads are free as soon as their registers are in shared memory
// (FlashAttention-3's and CUTLASS's epilogue). The buffer's bytes are those of the
// K loop's rings where the kernel is not persistent: a kernel that fills shared
// memory with its rings keeps its CTAs an SM.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "Pipeliner.h"
#include "SharedPlan.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUTMASTORE
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The stores this pass takes: a register tile of a wgmma kernel into a slice TMA can
/// address, of a tensor nothing else in the kernel reads or writes (the membar analysis
/// does not see TMA's writes), outside warp-specialized regions (whose barriers count
/// other threads).
bool takes(tile::StoreOp st, func::FuncOp f) {
  auto rt = dyn_cast<RankedTensorType>(st.getValue().getType());
  if (!rt || !rt.getEncoding() || !isa<MmaEncodingAttr>(rt.getEncoding())) return false;
  if (rt.getElementTypeBitWidth() != 16 && rt.getElementTypeBitWidth() != 32) return false;
  if (!pipeline::tmaCanMove(st.getPtr(), st.getLens(), st.getSqueezed(), st.getExtents().back(), rt, f)) return false;
  if (!llvm::hasSingleElement(st.getPtr().getUses())) return false;
  // A ring's TMA copy of the same tensor has replaced its tile.load already.
  unsigned tensor = cast<BlockArgument>(st.getPtr()).getArgNumber();
  if (auto maps = f->getAttrOfType<ArrayAttr>(kTmaAttr))
    for (Attribute m : maps)
      if (auto t = cast<DictionaryAttr>(m).getAs<IntegerAttr>("tensor"); t && t.getInt() == int64_t(tensor)) return false;
  for (Operation *p = st->getParentOp(); p && p != f; p = p->getParentOp())
    if (!isa<scf::ForOp, scf::IfOp>(p)) return false;
  // The swizzles TMA and the buffer share: rows of 32, 64 or 128 bytes, or whole 128-byte
  // column blocks (a 96-byte row would need a swizzle that does not exist).
  int64_t rowBytes = rt.getShape().back() * ((rt.getElementTypeBitWidth() + 7) / 8);
  return rowBytes == 32 || rowBytes == 64 || rowBytes % 128 == 0;
}

/// Rewrites `st`; false (nothing changed) when its buffer would pass `limit` bytes of shared
/// memory (0: no limit).
bool rewrite(tile::StoreOp st, func::FuncOp f, int64_t limit) {
  auto rt = cast<RankedTensorType>(st.getValue().getType());
  MemDescType bufTy = pipeline::bufferType(rt, /*stages=*/1, /*wgmma=*/true);
  int64_t bytes = bufTy.getStageBytes(unsigned(rt.getRank()));
  if (limit > 0 && plannedSharedBytes(f, /*reuse=*/false, st, bytes, /*align=*/1024) > limit) return false;

  Location loc = st.getLoc();
  OpBuilder top(f.getBody());
  auto buf = LocalAllocOp::create(top, loc, bufTy, IntegerAttr());
  buf->setAttr(kAfterDeadAttr, top.getUnitAttr());

  OpBuilder b(st);
  // In a loop, the last iteration's store may still read the buffer.
  bool inLoop = st->getParentOfType<scf::ForOp>() != nullptr;
  if (inLoop) TmaStoreWaitOp::create(b, loc, /*pending=*/0, /*issuer=*/0);
  // Every thread past its reads of the buffers whose bytes this one takes (wgmma's of the
  // rings included: each warpgroup waited for its own before it made the tile).
  BarrierOp::create(b, loc);
  LocalStoreOp::create(b, loc, st.getValue(), buf, Value());
  FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  unsigned tensor = cast<BlockArgument>(st.getPtr()).getArgNumber();
  Value map = pipeline::tmaMapArgument(f, pipeline::tmaMapEntry(tensor, st.getLens(), st.getSqueezed(), rt, bufTy), loc);
  TmaStoreOp::create(b, loc, map, st.getOffsets(), buf.getResult(), b.getDenseBoolArrayAttr(st.getSqueezed()),
                     b.getI64IntegerAttr(0));
  st.erase();
  return true;
}

struct TmaStorePass : impl::TileGPUTmaStoreBase<TmaStorePass> {
  using TileGPUTmaStoreBase::TileGPUTmaStoreBase;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      auto policy = f->getAttrOfType<StringAttr>(kPolicyAttr);
      if (!policy || policy.getValue() != "wgmma") return;
      bool specialized = false;
      f.walk([&](Operation *op) { specialized |= isa<WarpSpecializeOp, WarpgroupTurnOp>(op); });
      if (specialized) return;
      SmallVector<tile::StoreOp> stores;
      f.walk([&](tile::StoreOp st) {
        if (takes(st, f)) stores.push_back(st);
      });
      bool any = false;
      for (tile::StoreOp st : stores) any |= rewrite(st, f, sharedPerBlock);
      if (!any) return;
      // The CTA's shared memory outlives the stores' reads of it.
      f.walk([&](func::ReturnOp r) {
        OpBuilder rb(r);
        TmaStoreWaitOp::create(rb, r.getLoc(), /*pending=*/0, /*issuer=*/0);
      });
    });
  }
};

} // namespace
} // namespace ph::tilegpu
