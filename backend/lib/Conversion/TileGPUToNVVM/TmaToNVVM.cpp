//===- TmaToNVVM.cpp - tilegpu.tma_copy and tma_store: one thread's TMA boxes ---===//
//
// A ring stage filled by TMA: the issuing thread announces the stage's bytes on
// the stage's full mbarrier (`mbarrier.arrive.expect_tx`) and starts one
// `cp.async.bulk.tensor` per column block of the swizzled tile (a box of the
// swizzle's row width: the hardware writes the box in the same XOR pattern as
// SharedLayout.h addresses, so wgmma's descriptors read it unchanged). The
// copies' bytes complete the barrier's phase; no other thread spends an
// instruction or a register on addresses. The tensor map is a kernel argument,
// a device pointer to the 128 bytes the runtime encoded (docs/abi.md). An
// epilogue's tilegpu.tma_store moves a swizzled buffer the other way, in one
// bulk group that tilegpu.tma_store_wait waits for.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"
#include "SharedLayout.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Columns of one box: a swizzle row (or the whole tile when it is narrower); 0 when the tile
/// is no whole number of boxes.
int64_t boxColumns(const BufferShape &s) {
  int64_t cols = s.dims[1];
  int64_t perBlock = std::min<int64_t>(cols, s.rowBytes() / s.elem);
  return perBlock < 1 || cols % perBlock ? 0 : perBlock;
}

/// A builder inside `if (thread == issuer)`, with the rewriter as listener (MBarrierToNVVM.cpp
/// says why).
OpBuilder issuerOnly(ConversionPatternRewriter &rw, Location loc, int64_t issuer) {
  Value mine = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, threadId(rw, loc), cIndex(rw, loc, issuer));
  auto guard = scf::IfOp::create(rw, loc, mine, /*withElseRegion=*/false);
  return guard.getThenBodyBuilder(rw.getListener());
}

/// Each box of a tile at `tile` (a `!llvm.ptr<3>`) whose slice starts at `offsets`: its
/// shared-memory address and its coordinates, innermost first as the map's dimensions are (the
/// column block j starts j * perBlock columns and j whole column blocks of bytes further on).
void forEachBox(OpBuilder &in, Location loc, const BufferShape &s, int64_t perBlock, Value tile, ValueRange offsets,
                function_ref<void(Value smem, ArrayRef<Value> coords)> box) {
  if (offsets.empty()) return; // the ops' verifiers ask for two kept dimensions at least
  auto i32 = [&](Value index) { return arith::IndexCastOp::create(in, loc, in.getI32Type(), index).getResult(); };
  Value col0 = i32(offsets.back());
  SmallVector<Value> coords = {col0};
  for (Value o : llvm::reverse(offsets.drop_back())) coords.push_back(i32(o));
  for (int64_t j = 0; j < s.dims[1] / perBlock; ++j) {
    Value smem = j ? gep(in, loc, tile, cIndex(in, loc, j * s.dims[0] * perBlock * s.elem)) : tile;
    coords[0] = j ? arith::AddIOp::create(in, loc, col0, arith::ConstantIntOp::create(in, loc, j * perBlock, 32)).getResult()
                  : col0;
    box(smem, coords);
  }
}

struct TmaCopyPattern : OpConversionPattern<TmaCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaCopyOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferShape s = bufferShape(op.getBuffer().getType(), 2);
    int64_t perBlock = boxColumns(s);
    if (!perBlock) return rw.notifyMatchFailure(op, "a tile that is no whole number of boxes");
    int64_t bytes = s.dims[0] * s.dims[1] * s.elem;

    OpBuilder in = issuerOnly(rw, loc, op.getIssuer());
    Value bar = gep(in, loc, a.getBarriers(), arith::MulIOp::create(in, loc, a.getBarrierStage(), cIndex(in, loc, 8)));
    NVVM::MBarrierArriveExpectTxOp::create(in, loc, Type(), bar, arith::ConstantIntOp::create(in, loc, bytes, 32),
                                           NVVM::MemScopeKind::CTA, /*relaxed=*/false, Value());
    Value map = LLVM::AddrSpaceCastOp::create(in, loc, LLVM::LLVMPointerType::get(rw.getContext()), a.getMap());
    Value stage = gep(in, loc, a.getBuffer(), arith::MulIOp::create(in, loc, a.getStage(), cIndex(in, loc, s.stageBytes)));
    forEachBox(in, loc, s, perBlock, stage, a.getOffsets(), [&](Value dst, ArrayRef<Value> coords) {
      // The PTX 8.0 form names the destination in shared::cluster (address space 7): a CTA's
      // own shared memory is part of it.
      Value cdst = LLVM::AddrSpaceCastOp::create(in, loc, LLVM::LLVMPointerType::get(rw.getContext(), 7), dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(in, loc, cdst, map, coords, bar, ValueRange{}, Value(),
                                                             Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
                                                             NVVM::CTAGroupKindAttr(), Value());
    });
    rw.eraseOp(op);
    return success();
  }
};

/// The epilogue's converse: the issuing thread starts one `cp.async.bulk.tensor` per column
/// block from the swizzled buffer to the tensor and commits them as one bulk group.
struct TmaStorePattern : OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferShape s = bufferShape(op.getBuffer().getType(), 2);
    int64_t perBlock = boxColumns(s);
    if (!perBlock) return rw.notifyMatchFailure(op, "a tile that is no whole number of boxes");
    OpBuilder in = issuerOnly(rw, loc, op.getIssuer());
    Value map = LLVM::AddrSpaceCastOp::create(in, loc, LLVM::LLVMPointerType::get(rw.getContext()), a.getMap());
    forEachBox(in, loc, s, perBlock, a.getBuffer(), a.getOffsets(), [&](Value src, ArrayRef<Value> coords) {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(in, loc, map, src, coords, /*l2CacheHint=*/Value(),
                                                         NVVM::TMAStoreModeAttr::get(rw.getContext(), NVVM::TMAStoreMode::TILE),
                                                         /*predicate=*/Value());
    });
    NVVM::CpAsyncBulkCommitGroupOp::create(in, loc);
    rw.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitPattern : OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TmaStoreWaitOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    OpBuilder in = issuerOnly(rw, op.getLoc(), op.getIssuer());
    NVVM::CpAsyncBulkWaitGroupOp::create(in, op.getLoc(), uint32_t(op.getPending()), in.getUnitAttr());
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTmaPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<TmaCopyPattern, TmaStorePattern, TmaStoreWaitPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
