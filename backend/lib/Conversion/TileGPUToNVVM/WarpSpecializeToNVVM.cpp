//===- WarpSpecializeToNVVM.cpp - Consumer warps and a producer warpgroup -------===//
//
// `tilegpu.warp_specialize` becomes one branch on the thread index: the
// consumers (the kernel as written) first grow their register budget, the
// producer warpgroup (the rings' copies) first gives most of its own back
// (`setmaxnreg`: the registers of a CTA are pooled per warpgroup, so what the
// producer releases the consumers take). `tilegpu.warpgroup_turn` orders two
// consumer warpgroups' wgmma issue on a pair of named barriers (ping-pong).
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct WarpSpecializePattern : OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpSpecializeOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value consumer = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ult, threadId(rw, loc),
                                           cIndex(rw, loc, op.getConsumerThreads()));
    auto branch = scf::IfOp::create(rw, loc, consumer, /*withElseRegion=*/true);
    auto fill = [&](Block *to, Region &from, NVVM::SetMaxRegisterAction action, int32_t regs) {
      rw.setInsertionPoint(to->getTerminator());
      NVVM::SetMaxRegisterOp::create(rw, loc, rw.getI32IntegerAttr(regs),
                                     NVVM::SetMaxRegisterActionAttr::get(rw.getContext(), action));
      rw.inlineBlockBefore(&from.front(), to->getTerminator());
    };
    fill(branch.thenBlock(), op.getConsumer(), NVVM::SetMaxRegisterAction::increase, int32_t(op.getConsumerRegs()));
    fill(branch.elseBlock(), op.getProducer(), NVVM::SetMaxRegisterAction::decrease, int32_t(op.getProducerRegs()));
    rw.eraseOp(op);
    return success();
  }
};

/// Warpgroup w waits on barrier + w and passes to barrier + 1 - w, 256 threads
/// each: its own 128 that sync and the other's 128 that arrive.
struct WarpgroupTurnPattern : OpConversionPattern<WarpgroupTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(WarpgroupTurnOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto i32 = rw.getI32Type();
    Value wg = arith::IndexCastOp::create(rw, loc, i32, arith::DivUIOp::create(rw, loc, threadId(rw, loc), cIndex(rw, loc, 128)));
    auto c = [&](int64_t v) { return arith::ConstantIntOp::create(rw, loc, v, 32).getResult(); };
    Value first = c(op.getBarrier()), threads = c(256);
    StringRef kind = op.getKind();
    auto sync = [&](Value id) { NVVM::BarrierOp::create(rw, loc, TypeRange{}, id, threads, NVVM::BarrierReductionAttr(), Value()); };
    auto arrive = [&](Value id) { NVVM::BarrierArriveOp::create(rw, loc, id, threads); };
    // init: warpgroup 1's pass to warpgroup 0 before the loop; fini: warpgroup 0's wait for
    // the last pass after it. Both are one warpgroup's, under a branch uniform per warp.
    auto onlyIn = [&](int64_t group, llvm::function_ref<void()> fn) {
      Value is = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, wg, c(group));
      auto branch = scf::IfOp::create(rw, loc, is, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(branch.thenBlock()->getTerminator());
      fn();
    };
    if (kind == "wait") sync(arith::AddIOp::create(rw, loc, first, wg));
    else if (kind == "pass") arrive(arith::SubIOp::create(rw, loc, c(op.getBarrier() + 1), wg));
    else if (kind == "init") onlyIn(1, [&] { arrive(first); });
    else onlyIn(0, [&] { sync(first); });
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateWarpSpecializePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<WarpSpecializePattern, WarpgroupTurnPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
