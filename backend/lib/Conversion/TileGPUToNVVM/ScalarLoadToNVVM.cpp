//===- ScalarLoadToNVVM.cpp - A tensor element read as a scalar (`X[i, 0]`) ----===//
//
// A slice with an integer index in every dimension is a rank-0 tile.load whose
// users take its one element with tensor.extract. Every thread loads it (the
// same address, one transaction per warp) where the tile.load was, masked as
// tile.load defines it (zero past the tensor), and the extracts become that value.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"
#include "CodegenShared.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct ScalarLoadPattern : OpConversionPattern<tile::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(op.getType());
    if (rt.getEncoding() || rt.getRank() != 0) return failure();
    SmallVector<tensor::ExtractOp> users;
    for (Operation *u : op->getUsers()) {
      auto ex = dyn_cast<tensor::ExtractOp>(u);
      if (!ex) return rw.notifyMatchFailure(op, "a scalar load used other than by tensor.extract");
      users.push_back(ex);
    }
    Location loc = op.getLoc();
    DenseMap<Value, Value> m;
    for (auto [o, n] : llvm::zip(op->getOperands(), a.getOperands())) m[o] = n;
    auto lookup = [&](Value v) { return m.lookup(v) ? m.lookup(v) : v; };
    Value inBounds, ptr;
    simt::emitGlobalAddress(rw, loc, op, {}, lookup, inBounds, ptr);
    Type elem = rt.getElementType();
    Value v = simt::emitLoadOrZero(rw, loc, elem, ptr, unsigned((elem.getIntOrFloatBitWidth() + 7) / 8), inBounds);
    for (tensor::ExtractOp ex : users) rw.replaceOp(ex, v);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateScalarLoadPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<ScalarLoadPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
