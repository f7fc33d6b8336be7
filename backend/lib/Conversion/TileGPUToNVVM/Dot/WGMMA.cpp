//===- WGMMA.cpp - tilegpu.warpgroup_dot on wgmma.mma_async (sm_90a) -----------===//
//
// Each warpgroup (four consecutive warps) owns 64-row blocks of the
// accumulator: in the mma version 3 layout warp w holds rows 16w .. 16w + 15
// of every 16W-row strip (W warps), so warpgroup g's block of strip r starts
// at row 16W r + 64 g, and its registers are in the order wgmma writes them
// (d[4j + 2h + e]: row g8 + 8h, column 8j + 2t + e). For every 16-deep K step
// and block, one m64nNk16 wgmma reads A and B through shared-memory
// descriptors: the block's start address (before the swizzle, which the
// hardware applies), the stride between 8-row groups (SBO = 8 rows of W
// bytes), the stride between W-byte column blocks (LBO) and the swizzle
// mode. The group is committed and waited for before the result is used:
// the pipeline's barrier then both publishes the next stage and retires the
// buffer these wgmmas read. An `async` dot is committed only: the pipeline's
// tilegpu.warpgroup_wait retires it one iteration later.
//
// An A operand in registers (attention's P) is mma.sync's A fragment warp by
// warp, packed in pairs: the wgmma form that takes it ("RS") has no NVVM op in
// MLIR 22 (nvvm.wgmma.mma_async takes a descriptor for A), so it is written
// as PTX, with the accumulator's registers tied in and out.
//
//===----------------------------------------------------------------------===//
#include "../PatternBase.h"
#include "../SharedLayout.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <array>

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Bits 14..61 of a descriptor: everything but the start address.
uint64_t descriptorBits(const BufferShape &s) {
  uint64_t lbo = uint64_t(s.dims[0] * s.rowBytes()) >> 4, sbo = uint64_t(8 * s.rowBytes()) >> 4;
  return (lbo & 0x3FFF) << 16 | (sbo & 0x3FFF) << 32 | uint64_t(s.swizzleMode()) << 62;
}

/// Two 16-bit values as the 32-bit register wgmma reads an A operand from. The dot and the
/// wait that keeps P's registers build it alike, so that LLVM merges the two.
Value packPair(OpBuilder &rw, Location loc, Value lo, Value hi) {
  return LLVM::BitcastOp::create(rw, loc, rw.getI32Type(), vectorOf(rw, loc, ValueRange{lo, hi})).getResult();
}

/// An empty asm that takes and gives back `regs` (CUTLASS's warpgroup_fence_operand): placed
/// after a wait, no read of them can move above it; placed before a wgmma.fence, no write of
/// them can move below it (an intrinsic orders memory, not values).
void tieRegisters(OpBuilder &rw, Location loc, MutableArrayRef<Value> regs) {
  constexpr size_t kChunk = 32;
  for (size_t at = 0; at < regs.size(); at += kChunk) {
    size_t n = std::min(kChunk, regs.size() - at);
    SmallVector<Type> types;
    std::string constraints;
    for (size_t i = 0; i < n; ++i) {
      Type e = regs[at + i].getType();
      types.push_back(e);
      constraints += std::string(i ? "," : "") + (e.isF32() ? "=f" : e.isF64() ? "=d" : e.isInteger(64) ? "=l" : "=r");
    }
    for (size_t i = 0; i < n; ++i) constraints += "," + std::to_string(i);
    Type res = n == 1 ? types[0] : LLVM::LLVMStructType::getLiteral(rw.getContext(), types);
    auto tie = LLVM::InlineAsmOp::create(rw, loc, res, ValueRange(regs).slice(at, n), "", constraints,
                                         /*has_side_effects=*/true, /*is_align_stack=*/false,
                                         LLVM::tailcallkind::TailCallKind::None,
                                         LLVM::AsmDialectAttr::get(rw.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
    for (size_t i = 0; i < n; ++i)
      regs[at + i] = n == 1 ? tie.getResult(0)
                            : LLVM::ExtractValueOp::create(rw, loc, tie.getResult(0), int64_t(i)).getResult();
  }
}

/// wgmma.mma_async m64nNk16 with A in four registers of 16-bit pairs and B by
/// descriptor; `acc` (N / 2 f32 in wgmma's order) in and out.
Value wgmmaRegisterA(OpBuilder &rw, Location loc, Type accStruct, Value acc, ArrayRef<Value> a4, Value descB, int64_t n,
                     Type in, bool transB) {
  int64_t p = n / 2;
  std::string t = in.isF16() ? "f16" : "bf16";
  std::string asmText = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(2 * p + 5) +
                        ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + t + "." + t + " {";
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t i = 0; i < p; ++i) {
    asmText += (i ? ", $" : "$") + std::to_string(i);
    constraints += std::string(i ? "," : "") + "=f";
  }
  for (int64_t i = 0; i < p; ++i) {
    operands.push_back(LLVM::ExtractValueOp::create(rw, loc, acc, i));
    constraints += "," + std::to_string(i);
  }
  asmText += "}, {";
  for (int i = 0; i < 4; ++i) {
    asmText += (i ? ", $" : "$") + std::to_string(2 * p + i);
    constraints += ",r";
    operands.push_back(a4[i]);
  }
  // imm-trans-b: 1 for an N-major B ([K, N], `dot`), 0 for K-major (`dot_t`).
  asmText += "}, $" + std::to_string(2 * p + 4) + ", p, 1, 1, " + (transB ? "0" : "1") + ";\n}";
  constraints += ",l,r";
  operands.push_back(descB);
  operands.push_back(LLVM::ConstantOp::create(rw, loc, rw.getI32Type(), rw.getI32IntegerAttr(1)));
  return LLVM::InlineAsmOp::create(rw, loc, accStruct, operands, asmText, constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                                   LLVM::AsmDialectAttr::get(rw.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr())
      .getResult(0);
}

struct WarpgroupDotWGMMA : OpConversionPattern<WarpgroupDotOp> {
  WarpgroupDotWGMMA(TypeConverter &tc, MLIRContext *ctx, bool operandsBeforeFence)
      : OpConversionPattern(tc, ctx), operandsBeforeFence_(operandsBeforeFence) {}
  bool operandsBeforeFence_;
  LogicalResult matchAndRewrite(WarpgroupDotOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    auto m = cast<MmaEncodingAttr>(accTy.getEncoding());
    auto aReg = dyn_cast<RankedTensorType>(op.getA().getType());
    auto aMem = dyn_cast<MemDescType>(op.getA().getType());
    Type in = aReg ? aReg.getElementType() : aMem.getElementType();
    if (in != op.getB().getType().getElementType() || !(in.isF16() || in.isBF16()) || !accTy.getElementType().isF32())
      return rw.notifyMatchFailure(op, "wgmma here takes f16 or bf16 operands into f32");
    BufferShape sb = bufferShape(op.getB().getType(), 2), sa;
    if (aMem) sa = bufferShape(aMem, 2);
    if ((aMem && (!sa.swizzled() || sa.dims[0] % 8)) || !sb.swizzled() || sb.dims[0] % 8)
      return rw.notifyMatchFailure(op, "wgmma reads swizzled buffers of whole 8-row groups");
    RegisterLayout lc = layoutOfType(accTy);
    int64_t warps = m.getWarpsPerCTA()[0], n = accTy.getDimSize(1), k = aReg ? aReg.getDimSize(1) : sa.dims[1];
    if (warps % 4 || m.getWarpsPerCTA()[1] != 1 || n > 256 || n % 8 || k % 16)
      return rw.notifyMatchFailure(op, "a wgmma layout needs warps [4g, 1], N <= 256 and K a multiple of 16");
    auto i64 = rw.getI64Type();
    auto c64 = [&](uint64_t v) { return LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(int64_t(v))); };
    // The start-address field: (shared address of the block) >> 4, 14 bits.
    auto addressField = [&](Value buf, Value stage, const BufferShape &s, Value extraRows) {
      Value off = stage ? arith::MulIOp::create(rw, loc, stage, cIndex(rw, loc, s.stageBytes)).getResult()
                        : cIndex(rw, loc, 0);
      if (extraRows) off = arith::AddIOp::create(rw, loc, off, arith::MulIOp::create(rw, loc, extraRows, cIndex(rw, loc, s.rowBytes())));
      Value p = LLVM::PtrToIntOp::create(rw, loc, i64, gep(rw, loc, buf, off));
      return LLVM::AndOp::create(rw, loc, LLVM::LShrOp::create(rw, loc, p, c64(4)), c64(0x3FFF)).getResult();
    };
    Value tid = threadId(rw, loc);
    Value group = arith::DivUIOp::create(rw, loc, tid, cIndex(rw, loc, 128));
    Value groupRows = arith::MulIOp::create(rw, loc, group, cIndex(rw, loc, 64));
    Value baseA = aMem ? addressField(a.getA(), a.getAStage(), sa, groupRows) : Value();
    Value baseB = addressField(a.getB(), a.getBStage(), sb, Value());
    uint64_t bitsA = aMem ? descriptorBits(sa) : 0, bitsB = descriptorBits(sb);
    // A in registers: per 16-row strip and 16-deep K block, its four pairs.
    SmallVector<Value> A;
    RegisterLayout la;
    if (aReg) {
      A = unpack(rw, loc, a.getA());
      la = layoutOfType(aReg);
    }
    auto pair = [&](Value lo, Value hi) { return packPair(rw, loc, lo, hi); };
    bool transB = op.getTransB();

    SmallVector<Value> C = unpack(rw, loc, a.getAcc());
    int64_t strips = lc.reps[0], perStrip = n / 2;
    // A's four pairs of strip r at K step kk: a0: row g, k 2t..; a1: row g + 8; a2: k 2t + 8..;
    // a3: both (mma.sync's A fragment).
    auto pairsAt = [&](int64_t r, int64_t kk) {
      int64_t ab = la.compose({r, kk}, {0, 0});
      return std::array<Value, 4>{pair(A[ab + 0], A[ab + 1]), pair(A[ab + 4], A[ab + 5]), pair(A[ab + 2], A[ab + 3]),
                                  pair(A[ab + 6], A[ab + 7])};
    };
    // wgmma-operands-before-fence: every register the wgmmas read is written before the fence,
    // the accumulators (attention's rescale) and A's pairs (P's conversion to 16 bits), strip r's
    // at K step kk at 4 (r * k / 16 + kk). Otherwise LLVM sinks the conversions to their wgmma,
    // after the fence, and ptxas fences again before every wgmma that follows one (C7519: seven of
    // P·V's eight at D = 128; docs/tilegpu.md, "Tried and left out: wgmma's registers written before
    // its fence").
    SmallVector<Value> pairsA;
    if (operandsBeforeFence_) {
      tieRegisters(rw, loc, C);
      if (aReg) {
        for (int64_t r = 0; r < strips; ++r)
          for (int64_t kk = 0; kk < k / 16; ++kk) llvm::append_range(pairsA, pairsAt(r, kk));
        tieRegisters(rw, loc, pairsA);
      }
    }
    auto f32 = rw.getF32Type();
    auto accStruct = LLVM::LLVMStructType::getLiteral(op.getContext(), SmallVector<Type>(perStrip, f32));
    // Strip r's accumulator in wgmma's register order, from the layout's.
    SmallVector<Value> acc;
    for (int64_t r = 0; r < strips; ++r) {
      Value st = LLVM::UndefOp::create(rw, loc, accStruct);
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t i = 0; i < 4; ++i)
          st = LLVM::InsertValueOp::create(rw, loc, st, C[lc.compose({r, j}, {i / 2, i % 2})], 4 * j + i);
      acc.push_back(st);
    }
    auto wtype = [&](Type t) { return t.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16; };
    auto shape = NVVM::MMAShapeAttr::get(op.getContext(), 64, int(n), 16);
    NVVM::WgmmaFenceAlignedOp::create(rw, loc);
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      // B's block of this K step: rows 16kk.. of [K, N], or columns 16kk.. of [N, K].
      int64_t offB = transB ? unswizzledOffset(sb, 0, 16 * kk) : unswizzledOffset(sb, 16 * kk, 0);
      Value descB = LLVM::AddOp::create(rw, loc, baseB, c64(bitsB + (uint64_t(offB) >> 4)));
      for (int64_t r = 0; r < strips; ++r) {
        if (aReg) {
          std::array<Value, 4> a4 = pairsA.empty() ? pairsAt(r, kk) : std::array<Value, 4>{};
          ArrayRef<Value> a = pairsA.empty() ? ArrayRef<Value>(a4) : ArrayRef(pairsA).slice(4 * (r * (k / 16) + kk), 4);
          acc[r] = wgmmaRegisterA(rw, loc, accStruct, acc[r], a, descB, n, in, transB);
          continue;
        }
        int64_t offA = unswizzledOffset(sa, 16 * warps * r, 16 * kk);
        Value descA = LLVM::AddOp::create(rw, loc, baseA, c64(bitsA + (uint64_t(offA) >> 4)));
        acc[r] = NVVM::WgmmaMmaAsyncOp::create(
            rw, loc, accStruct, acc[r], descA, descB, shape, wtype(in), wtype(in), NVVM::WGMMATypes::f32,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
            transB ? NVVM::MMALayout::col : NVVM::MMALayout::row, NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rw, loc);
    if (!op.getAsync()) NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, 0);
    for (int64_t r = 0; r < strips; ++r)
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t i = 0; i < 4; ++i)
          C[lc.compose({r, j}, {i / 2, i % 2})] = LLVM::ExtractValueOp::create(rw, loc, acc[r], 4 * j + i);
    if (!op.getAsync()) tieRegisters(rw, loc, C);
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(accTy), C));
    return success();
  }
};

/// The wait, then an empty asm that takes and gives back every register of
/// the accumulators it retires: LLVM may move register arithmetic across the
/// wait (an intrinsic orders memory, not values), and a use of a wgmma's
/// result above its wait reads registers the tensor cores still write.
struct WarpgroupWaitPattern : OpConversionPattern<WarpgroupWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpgroupWaitOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, int64_t(op.getPendings()));
    SmallVector<Value> results;
    for (auto [v, t] : llvm::zip(a.getValues(), op.getResultTypes())) {
      SmallVector<Value> regs = unpack(rw, loc, v);
      // An A operand in registers (P of P·V) is read by wgmma as 32-bit pairs of its 16-bit
      // values (packPair): those registers are the ones to keep until the wait, not the halves.
      // The value itself is unchanged.
      auto rt = cast<RankedTensorType>(t);
      auto opA = dyn_cast_or_null<DotOperandEncodingAttr>(rt.getEncoding());
      if (opA && opA.getOpIdx() == 0 && rt.getElementType().getIntOrFloatBitWidth() == 16 && regs.size() % 2 == 0) {
        SmallVector<Value> pairs;
        for (size_t i = 0; i < regs.size(); i += 2)
          pairs.push_back(packPair(rw, loc, regs[i], regs[i + 1]));
        tieRegisters(rw, loc, pairs);
        results.push_back(v);
        continue;
      }
      tieRegisters(rw, loc, regs);
      results.push_back(pack(rw, loc, getTypeConverter()->convertType(t), regs));
    }
    rw.replaceOp(op, results);
    return success();
  }
};

struct FenceAsyncSharedPattern : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<NVVM::FenceProxyOp>(op, NVVM::ProxyKind::async_shared,
                                              NVVM::SharedSpaceAttr::get(op.getContext(), NVVM::SharedSpace::shared_cta));
    return success();
  }
};

} // namespace

void populateDotWGMMAPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p, bool operandsBeforeFence) {
  p.add<WarpgroupDotWGMMA>(tc, p.getContext(), operandsBeforeFence);
  p.add<WarpgroupWaitPattern, FenceAsyncSharedPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
