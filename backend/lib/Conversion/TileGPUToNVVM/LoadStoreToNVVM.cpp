//===- LoadStoreToNVVM.cpp - Masked global loads and stores of register tiles ---===//
//
// Each register's element is addressed as tile.load/tile.store define it
// (CodegenShared.h's emitGlobalAddress: offsets, row-major extents, masks).
// Registers a thread holds contiguously along the last dimension move as one
// vector of up to 16 bytes when the divisibility of the slice's start and of
// the tensor's row length (tile.divisibility, from `@aligned`) keeps the
// vector aligned and inside one row; a masked vector is all in or all out.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"
#include "CodegenShared.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Elements per access: contiguous registers along the last dimension, capped at
/// 16 bytes, and only as wide as the alignment facts allow.
template <typename AccessOp>
int64_t accessWidth(AccessOp op, const RegisterLayout &rl, Type elem) {
  unsigned last = rl.rank() - 1;
  ArrayRef<bool> squeezed = op.getSqueezed();
  if (squeezed.empty() || squeezed.back()) return 1;
  int64_t run = 1;
  ArrayRef<int64_t> offs = rl.elemOffset[last];
  while (run < int64_t(offs.size()) && offs[run] == run) ++run;
  int64_t bytes = (elem.getIntOrFloatBitWidth() + 7) / 8;
  int64_t w = std::min<int64_t>(run, 16 / bytes);
  while (w > 1 && (run % w || rl.shape[last] % w)) w /= 2;
  int64_t div = lastDimDivisibility(op);
  while (w > 1 && div % w) w /= 2;
  return w;
}

template <typename AccessOp, typename Adaptor>
DenseMap<Value, Value> operandMap(AccessOp op, Adaptor a) {
  DenseMap<Value, Value> m;
  for (auto [o, n] : llvm::zip(op->getOperands(), a.getOperands())) m[o] = n;
  return m;
}

/// The walk both patterns share: for each access of `w` registers from register r, its
/// global address and (null when unmasked) whether it is in bounds.
template <typename AccessOp, typename Adaptor>
void forEachAccess(ConversionPatternRewriter &rw, AccessOp op, Adaptor a, RankedTensorType rt, int64_t w,
                   function_ref<void(int64_t r, Value ptr, Value inBounds)> body) {
  Location loc = op.getLoc();
  RegisterLayout rl = layoutOfType(rt);
  DenseMap<Value, Value> m = operandMap(op, a);
  auto lookup = [&](Value v) { return m.lookup(v) ? m.lookup(v) : v; };
  SmallVector<Value> base = threadBase(rw, loc, rt.getEncoding(), rl);
  for (int64_t r = 0; r < rl.numRegs(); r += w) {
    SmallVector<Value> idx;
    for (unsigned d = 0; d < rl.rank(); ++d) idx.push_back(position(rw, loc, rl, base, r, d));
    Value inBounds, ptr;
    simt::emitGlobalAddress(rw, loc, op, idx, lookup, inBounds, ptr);
    body(r, ptr, inBounds);
  }
}

struct LoadPattern : OpConversionPattern<tile::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(op.getType());
    if (!rt.getEncoding()) return failure();
    Location loc = op.getLoc();
    RegisterLayout rl = layoutOfType(rt);
    Type elem = rt.getElementType();
    int64_t w = accessWidth(op, rl, elem);
    SmallVector<Value> out(rl.numRegs());
    Type vecTy = w > 1 ? Type(VectorType::get({w}, elem)) : elem;
    unsigned align = unsigned(w * ((elem.getIntOrFloatBitWidth() + 7) / 8));
    forEachAccess(rw, op, a, rt, w, [&](int64_t r, Value ptr, Value inBounds) {
      Value v = simt::emitLoadOrZero(rw, loc, vecTy, ptr, align, inBounds);
      if (w == 1) {
        out[r] = v;
        return;
      }
      for (int64_t i = 0; i < w; ++i)
        out[r + i] = LLVM::ExtractElementOp::create(rw, loc, v, arith::ConstantIntOp::create(rw, loc, i, 32));
    });
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(rt), out));
    return success();
  }
};

struct StorePattern : OpConversionPattern<tile::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::StoreOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = cast<RankedTensorType>(op.getValue().getType());
    if (!rt.getEncoding()) return failure();
    Location loc = op.getLoc();
    RegisterLayout rl = layoutOfType(rt);
    Type elem = rt.getElementType();
    int64_t w = accessWidth(op, rl, elem);
    SmallVector<Value> regs = unpack(rw, loc, a.getValue());
    unsigned align = unsigned(w * ((elem.getIntOrFloatBitWidth() + 7) / 8));
    forEachAccess(rw, op, a, rt, w, [&](int64_t r, Value ptr, Value inBounds) {
      Value v = regs[r];
      if (w > 1) {
        v = LLVM::UndefOp::create(rw, loc, VectorType::get({w}, elem));
        for (int64_t i = 0; i < w; ++i)
          v = LLVM::InsertElementOp::create(rw, loc, v, regs[r + i], arith::ConstantIntOp::create(rw, loc, i, 32));
      }
      simt::emitStoreIf(rw, loc, v, ptr, align, inBounds);
    });
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateLoadStorePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<LoadPattern, StorePattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
