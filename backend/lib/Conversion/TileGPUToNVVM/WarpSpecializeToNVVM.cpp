//===- WarpSpecializeToNVVM.cpp - Consumer warps and a producer warpgroup -------===//
//
// `tilegpu.warp_specialize` becomes one branch on the thread index: the
// consumers (the kernel as written) first grow their register budget, the
// producer warpgroup (the rings' copies) first gives most of its own back
// (`setmaxnreg`: the registers of a CTA are pooled per warpgroup, so what the
// producer releases the consumers take).
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

} // namespace

void populateWarpSpecializePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<WarpSpecializePattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
