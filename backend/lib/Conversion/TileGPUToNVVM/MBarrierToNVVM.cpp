//===- MBarrierToNVVM.cpp - The mbarriers of a ring: init, arrive, wait ---------===//
//
// A ring synchronized by mbarriers (tilegpu-pipeline's `mbarriers`): each stage
// has a "full" barrier that the copies into it complete and a "free" barrier
// that its readers arrive on. A buffer of them is 8 bytes per stage at the
// offset tilegpu-allocate-shared gave it; the ops become NVVM's mbarrier ops on
// that address, so no CTA-wide bar.sync ties the warps of one iteration together.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"
#include "SharedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

Value barrierAt(OpBuilder &b, Location loc, Value base, Value stage) {
  return gep(b, loc, base, arith::MulIOp::create(b, loc, stage, cIndex(b, loc, 8)));
}

Value i32Of(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
}

struct InitPattern : OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    int64_t n = op.getBarriers().getType().getShape()[0];
    Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, threadId(rw, loc), cIndex(rw, loc, 0));
    auto guard = scf::IfOp::create(rw, loc, first, /*withElseRegion=*/false);
    // With the rewriter as listener: the conversion must know the ops made in the
    // branch, or a conversion that fails later rolls the `if` back and leaks them.
    OpBuilder in = guard.getThenBodyBuilder(rw.getListener());
    Value count = arith::ConstantIntOp::create(in, loc, op.getCount(), 32);
    for (int64_t s = 0; s < n; ++s)
      NVVM::MBarrierInitOp::create(in, loc, barrierAt(in, loc, a.getBarriers(), cIndex(in, loc, s)), count, Value());
    // TMA completes these barriers through the async proxy: the inits are ordered before it.
    if (op.getTma()) NVVM::FenceMbarrierInitOp::create(in, loc);
    // Every thread sees the initialized barriers before its first arrive or wait.
    rw.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

struct ArrivePattern : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MBarrierArriveOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value at = barrierAt(rw, loc, a.getBarriers(), a.getStage());
    if (op.getCopies()) {
      // .noinc: the barrier's count already counts this thread's arrival.
      NVVM::CpAsyncMBarrierArriveOp::create(rw, loc, at, rw.getBoolAttr(true));
    } else {
      NVVM::MBarrierArriveOp::create(rw, loc, rw.getI64Type(), at, Value());
    }
    rw.eraseOp(op);
    return success();
  }
};

struct WaitPattern : OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value at = barrierAt(rw, loc, a.getBarriers(), a.getStage());
    Value parity = i32Of(rw, loc, a.getParity());
    // The suspend-time hint CUTLASS's pipelines give try_wait (ns).
    Value ticks = arith::ConstantIntOp::create(rw, loc, 0x989680, 32);
    NVVM::MBarrierTryWaitParityOp::create(rw, loc, at, parity, ticks);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateMBarrierPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<InitPattern, ArrivePattern, WaitPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
