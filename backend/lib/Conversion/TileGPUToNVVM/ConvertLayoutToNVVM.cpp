//===- ConvertLayoutToNVVM.cpp - Layout conversions that stay in registers ----===//
//
// The accumulator layout of mma.sync m16n8k16 is its A operand layout: a
// 16-bit copy of a dot's result (P in P·V) becomes the next dot's A operand
// by renaming registers, two 8-column accumulator blocks per 16-deep K block
// (FlashAttention-2's trick), when the warps split only the rows. Other
// conversions would go through shared memory and are not lowered yet.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct MmaToOperandA : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto src = cast<RankedTensorType>(op.getSource().getType()), dst = cast<RankedTensorType>(op.getType());
    auto m = dyn_cast<MmaEncodingAttr>(src.getEncoding());
    auto d = dyn_cast<DotOperandEncodingAttr>(dst.getEncoding());
    if (!m || !d || d.getOpIdx() != 0 || d.getParent() != m || m.getWarpsPerCTA()[1] != 1)
      return rw.notifyMatchFailure(op, "a layout conversion through shared memory (not lowered yet)");
    RegisterLayout from = layoutOfType(src), to = layoutOfType(dst);
    SmallVector<Value> in = unpack(rw, op.getLoc(), a.getSource()), out;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < to.numRegs(); ++r) {
      to.decompose(r, rep, e);
      // K slot e1 in {0, 1, 8, 9}: accumulator block 2 rk + e1 / 2, column e1 % 2.
      out.push_back(in[from.compose({rep[0], 2 * rep[1] + e[1] / 2}, {e[0], e[1] % 2})]);
    }
    rw.replaceOp(op, pack(rw, op.getLoc(), getTypeConverter()->convertType(dst), out));
    return success();
  }
};

} // namespace

void populateConvertLayoutPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<MmaToOperandA>(tc, p.getContext());
}

} // namespace ph::tilegpu
