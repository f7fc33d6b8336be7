//===- SharedToNVVM.cpp - Shared buffers, cp.async, ldmatrix, barriers --------===//
//
// A buffer is its byte offset in the CTA's dynamic shared memory (given by
// tilegpu-allocate-shared), as an `!llvm.ptr<3>`. Async copies spread the
// slice's 16-byte chunks over the CTA's threads (nvvm.cp.async, zero-filling
// what lies past a masked extent through its source size); reads into a dot
// operand layout are nvvm.ldmatrix (.trans for a B operand stored [K, N]);
// other reads and writes go register by register.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"
#include "SharedLayout.h"
#include "CodegenShared.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct LocalAllocPattern : OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalAllocOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    if (!op.getOffset()) return rw.notifyMatchFailure(op, "run tilegpu-allocate-shared first");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value smem = gpu::DynamicSharedMemoryOp::create(
        rw, loc, MemRefType::get({ShapedType::kDynamic}, rw.getI8Type(), MemRefLayoutAttrInterface(), wg));
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(rw, loc, smem);
    Value i64 = arith::IndexCastOp::create(rw, loc, rw.getI64Type(), addr);
    Value base = LLVM::IntToPtrOp::create(rw, loc, LLVM::LLVMPointerType::get(ctx, 3), i64);
    rw.replaceOp(op, gep(rw, loc, base, cIndex(rw, loc, *op.getOffset())));
    return success();
  }
};

int64_t ctaThreads(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto a = p->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) return a.getInt();
  return 128;
}

/// An unmasked 2-D copy whose row of chunks divides the threads: each thread's chunks lie
/// `threads / rowChunks` rows apart, at the same column. The first chunk's addresses are
/// computed in full, every next one is the last plus a step (a loop-invariant number of
/// global elements, a constant number of shared bytes), which keeps one pointer per
/// operand live where per-chunk addressing kept one 64-bit base per chunk and a multiply
/// by the row pitch (measured on gemm_relu_f16_w8's PTX: docs/tilegpu.md).
LogicalResult copyByRows(AsyncCopyOp op, AsyncCopyOp::Adaptor a, ConversionPatternRewriter &rw,
                         ArrayRef<int64_t> tile, const BufferShape &bs, int64_t vec, int64_t chunks, int64_t threads,
                         Value tid, llvm::function_ref<Value(Value)> lookup, NVVM::LoadCacheModifierKindAttr mod) {
  if (tile.size() != 2 || llvm::any_of(op.getMasked(), [](bool m) { return m; })) return failure();
  int64_t rowChunks = tile[1] / vec;
  if (threads % rowChunks || chunks % threads) return failure();
  int64_t rows = threads / rowChunks;
  if (bs.swizzled() && rows % (bs.perPhase * bs.maxPhase)) return failure();
  Location loc = op.getLoc();
  SmallVector<Value> idx = {arith::DivUIOp::create(rw, loc, tid, cIndex(rw, loc, rowChunks)),
                            arith::MulIOp::create(rw, loc, arith::RemUIOp::create(rw, loc, tid, cIndex(rw, loc, rowChunks)),
                                                  cIndex(rw, loc, vec))};
  Value inBounds, src;
  simt::emitGlobalAddress(rw, loc, op, idx, lookup, inBounds, src);
  Value dst = gep(rw, loc, a.getBuffer(), byteOffset(rw, loc, bs, idx, a.getStage()));
  // The tensor's elements between consecutive rows of the tile: the extents after its first kept dimension.
  auto squeezed = op.getSqueezed();
  size_t d0 = 0;
  while (squeezed[d0]) ++d0;
  Value pitch = cIndex(rw, loc, rows);
  for (size_t e = d0 + 1; e < squeezed.size(); ++e) pitch = arith::MulIOp::create(rw, loc, pitch, lookup(op.getExtents()[e]));
  Value step = arith::IndexCastOp::create(rw, loc, rw.getI64Type(), pitch);
  Type elem = cast<tile::PtrType>(op.getPtr().getType()).getElementType();
  int64_t dstStep = rows * (bs.swizzled() ? bs.rowBytes() : bs.pitch * bs.elem);
  for (int64_t j = 0; j < chunks / threads; ++j) {
    if (j) src = LLVM::GEPOp::create(rw, loc, src.getType(), elem, src, ValueRange{step});
    Value d = j ? gep(rw, loc, dst, cIndex(rw, loc, j * dstStep)) : dst;
    NVVM::CpAsyncOp::create(rw, loc, d, src, rw.getI32IntegerAttr(16), mod, Value());
  }
  return success();
}

struct AsyncCopyPattern : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncCopyOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    SmallVector<int64_t> tile;
    for (size_t d = 0; d < op.getLens().size(); ++d)
      if (!op.getSqueezed()[d]) tile.push_back(op.getLens()[d]);
    BufferShape bs = bufferShape(op.getBuffer().getType(), tile.size());
    Type elem = op.getBuffer().getType().getElementType();
    int64_t vec = 16 / bs.elem;
    size_t lastD = op.getLens().size() - 1;
    int64_t div = lastDimDivisibility(op);
    if (op.getSqueezed()[lastD] || tile.back() % vec || div % vec || (bs.pitch * bs.elem) % 16)
      return rw.notifyMatchFailure(op, "an async copy whose rows are not whole aligned 16-byte chunks");
    DenseMap<Value, Value> m;
    for (auto [o, n] : llvm::zip(op->getOperands(), a.getOperands())) m[o] = n;
    auto lookup = [&](Value v) { return m.lookup(v) ? m.lookup(v) : v; };
    int64_t chunks = 1;
    for (int64_t d : tile) chunks *= d;
    chunks /= vec;
    // A producer warpgroup's copy (tilegpu-pipeline warp-specialize) spreads its chunks over its own threads.
    int64_t threads = ctaThreads(op);
    Value tid = threadId(rw, loc);
    if (auto t = op->getAttrOfType<IntegerAttr>(kThreadsAttr)) threads = t.getInt();
    if (auto base = op->getAttrOfType<IntegerAttr>(kThreadBaseAttr))
      tid = arith::SubIOp::create(rw, loc, tid, cIndex(rw, loc, base.getInt()));
    auto mod = NVVM::LoadCacheModifierKindAttr::get(op.getContext(), NVVM::LoadCacheModifierKind::CG);
    if (succeeded(copyByRows(op, a, rw, tile, bs, vec, chunks, threads, tid, lookup, mod))) {
      rw.eraseOp(op);
      return success();
    }
    for (int64_t c0 = 0; c0 < chunks; c0 += threads) {
      Value c = arith::AddIOp::create(rw, loc, tid, cIndex(rw, loc, c0));
      // Chunk c: row-major over the tile with the last dimension in vectors.
      SmallVector<Value> idx(tile.size());
      Value rest = c;
      for (int d = int(tile.size()) - 1; d >= 0; --d) {
        int64_t n = d == int(tile.size()) - 1 ? tile[d] / vec : tile[d];
        idx[d] = arith::RemUIOp::create(rw, loc, rest, cIndex(rw, loc, n));
        rest = arith::DivUIOp::create(rw, loc, rest, cIndex(rw, loc, n));
      }
      idx.back() = arith::MulIOp::create(rw, loc, idx.back(), cIndex(rw, loc, vec));
      auto body = [&](OpBuilder &b) {
        Value inBounds, src;
        simt::emitGlobalAddress(b, loc, op, idx, lookup, inBounds, src);
        Value dst = gep(b, loc, a.getBuffer(), byteOffset(b, loc, bs, idx, a.getStage()));
        Value size;
        if (inBounds) {
          // Past a masked extent: copy nothing, zero-fill the 16 bytes.
          size = arith::SelectOp::create(b, loc, inBounds, arith::ConstantIntOp::create(b, loc, 16, 32),
                                         arith::ConstantIntOp::create(b, loc, 0, 32));
        }
        NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(16), mod, size);
      };
      if (chunks % threads && c0 + threads > chunks) {
        Value live = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, c, cIndex(rw, loc, chunks));
        auto guard = scf::IfOp::create(rw, loc, live, false);
        // With the rewriter as listener: the conversion must know the ops made in the
        // branch, or a conversion that fails later rolls the `if` back and leaks them.
        OpBuilder in = guard.getThenBodyBuilder(rw.getListener());
        body(in);
      } else {
        body(rw);
      }
    }
    (void)elem;
    rw.eraseOp(op);
    return success();
  }
};

struct CommitPattern : OpConversionPattern<AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct WaitPattern : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncWaitOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, rw.getI32IntegerAttr(int32_t(op.getPending())));
    return success();
  }
};

struct BarrierPattern : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    // In a warp-specialized kernel every CTA barrier is the consumers' (the producer
    // warpgroup meets them only on mbarriers): named barrier 1 over their threads.
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (auto c = p->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr)) {
        Location loc = op.getLoc();
        Value id = arith::ConstantIntOp::create(rw, loc, 1, 32);
        Value n = arith::ConstantIntOp::create(rw, loc, c.getInt(), 32);
        NVVM::BarrierOp::create(rw, loc, TypeRange{}, id, n, NVVM::BarrierReductionAttr(), Value());
        rw.eraseOp(op);
        return success();
      }
    rw.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

/// ldmatrix of the mma.sync operand fragments a warp needs, in the dot
/// operand layout's register order.
LogicalResult loadOperand(LocalLoadOp op, Value buf, Value stage, ConversionPatternRewriter &rw, Value &result,
                          const TypeConverter *tc) {
  Location loc = op.getLoc();
  auto rt = cast<RankedTensorType>(op.getType());
  auto enc = cast<DotOperandEncodingAttr>(rt.getEncoding());
  Type elem = rt.getElementType();
  if (!elem.isF16() && !elem.isBF16()) return rw.notifyMatchFailure(op, "ldmatrix of a tile that is not 16-bit");
  RegisterLayout rl = layoutOfType(rt);
  BufferShape bs = bufferShape(op.getBuffer().getType(), 2);
  if ((bs.pitch * bs.elem) % 16) return rw.notifyMatchFailure(op, "ldmatrix rows must be 16-byte aligned");
  // m16n8k16 reads K 16 deep: a narrower operand would wrap onto its own first columns.
  unsigned kDim = enc.getOpIdx() == 0 || enc.getTrans() ? 1 : 0;
  if (rt.getDimSize(kDim) % 16) return rw.notifyMatchFailure(op, "a dot operand whose K is not a multiple of 16");
  auto m = cast<MmaEncodingAttr>(enc.getParent());
  int64_t wm = m.getWarpsPerCTA()[0], wn = m.getWarpsPerCTA()[1];
  Value tid = threadId(rw, loc);
  Value lane = arith::RemUIOp::create(rw, loc, tid, cIndex(rw, loc, 32));
  Value warp = arith::DivUIOp::create(rw, loc, tid, cIndex(rw, loc, 32));
  Value wRow = arith::DivUIOp::create(rw, loc, warp, cIndex(rw, loc, wn));
  Value wCol = arith::RemUIOp::create(rw, loc, warp, cIndex(rw, loc, wn));
  Value l8 = arith::RemUIOp::create(rw, loc, lane, cIndex(rw, loc, 8));
  Value grp = arith::DivUIOp::create(rw, loc, lane, cIndex(rw, loc, 8)); // which 8x8 matrix the lane addresses
  auto i32 = rw.getI32Type();
  auto vec2 = VectorType::get({2}, elem);
  auto layoutRow = NVVM::MMALayout::row, layoutCol = NVVM::MMALayout::col;
  auto shape = NVVM::LdStMatrixShapeAttr::get(op.getContext(), 8, 8);
  SmallVector<Value> regs(rl.numRegs());
  // Four 8x8 matrices per ldmatrix.x4 (two per .x2, for a B operand's odd last 8-column block:
  // lanes 0-15 give its addresses, the same as .x4's first two matrices); matrix q's two
  // elements go to the register slots `slots[q]`.
  // A window (one K step of a stage: tilegpu-prefetch-fragments) shifts every address.
  auto window = op->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr);
  // A padded layout is linear: the thread's part of the address is computed once per
  // (row, col) base and each matrix's constant offset stays a trailing constant GEP, so
  // that LLVM folds it into ldmatrix's immediate instead of keeping a 64-bit base
  // register per matrix (`or disjoint` of the constants blocks that folding otherwise).
  auto ldsm = [&](Value row, int64_t dRow, Value col, int64_t dCol, bool trans,
                  ArrayRef<std::pair<int64_t, int64_t>> slots) {
    int64_t num = int64_t(slots.size());
    if (window) dRow += window[0], dCol += window[1];
    Value ptr;
    if (!bs.swizzled()) {
      ptr = gep(rw, loc, gep(rw, loc, buf, byteOffset(rw, loc, bs, {row, col}, stage)),
                cIndex(rw, loc, (dRow * bs.pitch + dCol) * bs.elem));
    } else {
      if (dRow) row = arith::AddIOp::create(rw, loc, row, cIndex(rw, loc, dRow));
      if (dCol) col = arith::AddIOp::create(rw, loc, col, cIndex(rw, loc, dCol));
      ptr = gep(rw, loc, buf, byteOffset(rw, loc, bs, {row, col}, stage));
    }
    auto st = LLVM::LLVMStructType::getLiteral(op.getContext(), SmallVector<Type>(num, i32));
    Value res = NVVM::LdMatrixOp::create(rw, loc, st, ptr, num, trans ? layoutCol : layoutRow, shape,
                                         NVVM::LdStMatrixEltType::B16);
    for (int64_t q = 0; q < num; ++q) {
      Value w = LLVM::ExtractValueOp::create(rw, loc, res, q);
      Value v = LLVM::BitcastOp::create(rw, loc, vec2, w);
      for (int64_t h = 0; h < 2; ++h)
        regs[slots[q].first + h * slots[q].second] =
            LLVM::ExtractElementOp::create(rw, loc, v, arith::ConstantIntOp::create(rw, loc, h, 32));
    }
  };
  SmallVector<int64_t> rep(2), e(2);
  if (enc.getOpIdx() == 0) {
    // A [M, K]: matrices (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) = a0a1, a2a3, a4a5, a6a7.
    Value rowInBlock = arith::AddIOp::create(rw, loc, l8, arith::MulIOp::create(rw, loc, arith::RemUIOp::create(rw, loc, grp, cIndex(rw, loc, 2)), cIndex(rw, loc, 8)));
    Value colInBlock = arith::MulIOp::create(rw, loc, arith::DivUIOp::create(rw, loc, grp, cIndex(rw, loc, 2)), cIndex(rw, loc, 8));
    Value warpRow0 = arith::AddIOp::create(rw, loc, arith::MulIOp::create(rw, loc, wRow, cIndex(rw, loc, 16)), rowInBlock);
    for (int64_t rm = 0; rm < rl.reps[0]; ++rm)
      for (int64_t rk = 0; rk < rl.reps[1]; ++rk) {
        rep = {rm, rk};
        // Register slots (e0 row half, e1 in {0,1,8,9}) = e0 * 4 + e1.
        int64_t b0 = rl.compose(rep, {0, 0});
        ldsm(warpRow0, rm * 16 * wm, colInBlock, rk * 16, false,
             {{b0 + 0, 1}, {b0 + 4, 1}, {b0 + 2, 1}, {b0 + 6, 1}});
      }
  } else if (!enc.getTrans()) {
    // B [K, N] row-major, read transposed: matrices (k 0-7, n-block j), (k 8-15, j), (k 0-7, j+1), (k 8-15, j+1).
    Value kRow = arith::AddIOp::create(rw, loc, l8, arith::MulIOp::create(rw, loc, arith::RemUIOp::create(rw, loc, grp, cIndex(rw, loc, 2)), cIndex(rw, loc, 8)));
    Value second = arith::DivUIOp::create(rw, loc, grp, cIndex(rw, loc, 2)); // 0: block j, 1: block j+1
    Value nCol0 = arith::MulIOp::create(rw, loc, wCol, cIndex(rw, loc, 8));
    Value nCol = arith::AddIOp::create(rw, loc, nCol0, arith::MulIOp::create(rw, loc, second, cIndex(rw, loc, 8 * wn)));
    for (int64_t rk = 0; rk < rl.reps[0]; ++rk)
      for (int64_t rn = 0; rn < rl.reps[1]; rn += 2) {
        int64_t s0 = rl.compose({rk, rn}, {0, 0});
        if (rn + 1 == rl.reps[1]) { // the odd last block: its two k halves
          ldsm(kRow, rk * 16, nCol, rn * 8 * wn, true, {{s0 + 0, 1}, {s0 + 2, 1}});
          continue;
        }
        int64_t s1 = rl.compose({rk, rn + 1}, {0, 0});
        ldsm(kRow, rk * 16, nCol, rn * 8 * wn, true, {{s0 + 0, 1}, {s0 + 2, 1}, {s1 + 0, 1}, {s1 + 2, 1}});
      }
  } else {
    // B^T [N, K] row-major: matrices (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15 = block j+1, k 0-7), (j+1, k 8-15).
    Value second = arith::DivUIOp::create(rw, loc, grp, cIndex(rw, loc, 2));
    Value kHalf = arith::MulIOp::create(rw, loc, arith::RemUIOp::create(rw, loc, grp, cIndex(rw, loc, 2)), cIndex(rw, loc, 8));
    Value nRow = arith::AddIOp::create(rw, loc, arith::AddIOp::create(rw, loc, arith::MulIOp::create(rw, loc, wCol, cIndex(rw, loc, 8)), l8),
                                       arith::MulIOp::create(rw, loc, second, cIndex(rw, loc, 8 * wn)));
    for (int64_t rn = 0; rn < rl.reps[0]; rn += 2)
      for (int64_t rk = 0; rk < rl.reps[1]; ++rk) {
        int64_t s0 = rl.compose({rn, rk}, {0, 0});
        if (rn + 1 == rl.reps[0]) { // the odd last block: its two k halves
          ldsm(nRow, rn * 8 * wn, kHalf, rk * 16, false, {{s0 + 0, 1}, {s0 + 2, 1}});
          continue;
        }
        int64_t s1 = rl.compose({rn + 1, rk}, {0, 0});
        ldsm(nRow, rn * 8 * wn, kHalf, rk * 16, false, {{s0 + 0, 1}, {s0 + 2, 1}, {s1 + 0, 1}, {s1 + 2, 1}});
      }
  }
  (void)wm;
  result = pack(rw, loc, tc->convertType(rt), regs);
  return success();
}

/// The buffer index of a tile element at `idx`: itself, or inside the op's
/// `tilegpu.window` (tilegpu-through-shared's parts of tiles), the window's
/// offset plus the element's position along each dimension the part keeps.
SmallVector<Value> bufferIndex(OpBuilder &b, Location loc, Operation *op, ArrayRef<Value> idx) {
  auto w = op->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr);
  if (!w) return SmallVector<Value>(idx);
  auto sq = op->getAttrOfType<DenseBoolArrayAttr>(kSqueezedAttr);
  SmallVector<Value> out;
  unsigned k = 0;
  for (int64_t d = 0; d < w.size(); ++d) {
    if (sq && sq[d]) out.push_back(cIndex(b, loc, w[d]));
    else out.push_back(w[d] ? arith::AddIOp::create(b, loc, idx[k++], cIndex(b, loc, w[d])).getResult() : idx[k++]);
  }
  return out;
}

/// The buffer's rank as the op addresses it: the window's, else the tile's.
unsigned addressRank(Operation *op, RankedTensorType t) {
  auto w = op->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr);
  return w ? unsigned(w.size()) : unsigned(t.getRank());
}

struct LocalLoadPattern : OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalLoadOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(op.getType());
    Value result;
    if (isa<DotOperandEncodingAttr>(rt.getEncoding())) {
      // The K steps of a ring stage (tilegpu-prefetch-fragments); tilegpu-through-shared's
      // parts of tiles are not read by ldmatrix.
      if (op->hasAttr(kWindowAttr) && (!op.getStage() || op->hasAttr(kSqueezedAttr)))
        return rw.notifyMatchFailure(op, "ldmatrix of a window outside a ring stage");
      if (failed(loadOperand(op, a.getBuffer(), a.getStage(), rw, result, getTypeConverter()))) return failure();
      rw.replaceOp(op, result);
      return success();
    }
    Location loc = op.getLoc();
    RegisterLayout rl = layoutOfType(rt);
    BufferShape bs = bufferShape(op.getBuffer().getType(), addressRank(op, rt));
    SmallVector<Value> base = threadBase(rw, loc, rt.getEncoding(), rl), out;
    for (int64_t r = 0; r < rl.numRegs(); ++r) {
      SmallVector<Value> idx;
      for (unsigned d = 0; d < rl.rank(); ++d) idx.push_back(position(rw, loc, rl, base, r, d));
      idx = bufferIndex(rw, loc, op, idx);
      Value ptr = gep(rw, loc, a.getBuffer(), byteOffset(rw, loc, bs, idx, a.getStage()));
      out.push_back(LLVM::LoadOp::create(rw, loc, rt.getElementType(), ptr, unsigned(bs.elem)));
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(rt), out));
    return success();
  }
};

/// Registers a thread writes as one vector into a swizzled buffer (an epilogue's, for TMA):
/// the run it holds contiguously along the last dimension, within one 16-byte chunk (the
/// swizzle moves chunks, not bytes within them). 1 for every other buffer.
int64_t sharedStoreWidth(LocalStoreOp op, const RegisterLayout &rl, const BufferShape &bs) {
  unsigned last = rl.rank() - 1;
  if (!bs.swizzled() || rl.rank() != 2 || op->hasAttr(kWindowAttr) || rl.wraps(last)) return 1;
  ArrayRef<int64_t> offs = rl.elemOffset[last];
  int64_t run = 1;
  while (run < int64_t(offs.size()) && offs[run] == run) ++run;
  int64_t w = std::min<int64_t>(run, 16 / bs.elem);
  while (w > 1 && (run % w || rl.shape[last] % w)) w /= 2;
  return w;
}

struct LocalStorePattern : OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalStoreOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(op.getValue().getType());
    Location loc = op.getLoc();
    RegisterLayout rl = layoutOfType(rt);
    BufferShape bs = bufferShape(op.getBuffer().getType(), addressRank(op, rt));
    SmallVector<Value> base = threadBase(rw, loc, rt.getEncoding(), rl);
    SmallVector<Value> regs = unpack(rw, loc, a.getValue());
    int64_t w = sharedStoreWidth(op, rl, bs);
    for (int64_t r = 0; r < rl.numRegs(); r += w) {
      SmallVector<Value> idx;
      for (unsigned d = 0; d < rl.rank(); ++d) idx.push_back(position(rw, loc, rl, base, r, d));
      idx = bufferIndex(rw, loc, op, idx);
      Value ptr = gep(rw, loc, a.getBuffer(), byteOffset(rw, loc, bs, idx, a.getStage()));
      Value v = regs[r];
      if (w > 1) {
        v = LLVM::UndefOp::create(rw, loc, VectorType::get({w}, rt.getElementType()));
        for (int64_t i = 0; i < w; ++i)
          v = LLVM::InsertElementOp::create(rw, loc, v, regs[r + i], arith::ConstantIntOp::create(rw, loc, i, 32));
      }
      LLVM::StoreOp::create(rw, loc, v, ptr, unsigned(w * bs.elem));
    }
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateSharedPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<LocalAllocPattern, AsyncCopyPattern, CommitPattern, WaitPattern, BarrierPattern, LocalLoadPattern,
        LocalStorePattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
