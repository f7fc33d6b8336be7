//===- ElementwiseToNVVM.cpp - Elementwise ops, constants, splats, converts, masks ===//
//
// In a register layout an elementwise op is the same scalar op on each
// register: one generic pattern serves every arith and math op. Constants and
// splats replicate a scalar; tile.convert and the masks work per register,
// the masks with the register's position in the tile.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "CodegenShared.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

bool isTileType(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && rt.getEncoding();
}

/// Any arith or math op with a tile result: the scalar op per register.
struct ElementwisePattern : ConversionPattern {
  ElementwisePattern(TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands, ConversionPatternRewriter &rw) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || isa<arith::ConstantOp>(op)) return failure();
    if (op->getNumResults() != 1 || !isTileType(op->getResult(0).getType())) return failure();
    Location loc = op->getLoc();
    Type resTy = getTypeConverter()->convertType(op->getResult(0).getType());
    if (!resTy) return failure();
    Type elem = cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
    int64_t n = cast<LLVM::LLVMStructType>(resTy).getBody().size();
    SmallVector<SmallVector<Value>> regs;
    for (auto [orig, v] : llvm::zip(op->getOperands(), operands))
      regs.push_back(isTileType(orig.getType()) ? unpack(rw, loc, v) : SmallVector<Value>(n, v));
    SmallVector<Value> out;
    for (int64_t i = 0; i < n; ++i) {
      OperationState st(loc, op->getName());
      for (auto &r : regs) st.addOperands(r[i]);
      st.addTypes(elem);
      st.addAttributes(op->getAttrs());
      out.push_back(rw.create(st)->getResult(0));
    }
    rw.replaceOp(op, pack(rw, loc, resTy, out));
    return success();
  }
};

/// exp of an f32 tile in an mma.sync or wgmma accumulator layout (attention's softmax) or a
/// blocked one (the SIMT policy's rows: softmax, cross-entropy): 2^(x log2 e), a multiply and
/// math.exp2 (one MUFU.EX2, relative error about 2^-22, where libdevice's expf takes about ten
/// instructions an element), as the legacy tensor-core emitter computes it. A memory-bound
/// row softmax has about 36 instruction slots an element at 90 % of the H200's copy
/// bandwidth; two libdevice expf took 20 of them. On wgmma the softmax is what the tensor
/// cores wait for, 64 scores a thread a key block at 128 x 128 (`wgmmaFastExp`).
/// 2^y is one MUFU.EX2 with `ftz` (ex2.approx.ftz.f32; ex2.approx.f32 adds a compare and two
/// predicated multiplies to keep results below 2^-126). exp(a - b) stays a subtract before the
/// multiply: 2^fma(a, log2 e, -(b log2 e)) (FlashAttention-3's) loses the difference where a and b
/// are a mask's -1e30 (sliding-window and document attention's fully masked rows: NaN on an H100).
struct MmaExpPattern : OpConversionPattern<math::ExpOp> {
  MmaExpPattern(TypeConverter &tc, MLIRContext *ctx, bool wgmma, bool ftz)
      : OpConversionPattern(tc, ctx, /*benefit=*/2), wgmma_(wgmma), ftz_(ftz) {}
  bool wgmma_, ftz_;
  LogicalResult matchAndRewrite(math::ExpOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto rt = dyn_cast<RankedTensorType>(op.getType());
    auto m = rt ? dyn_cast_or_null<MmaEncodingAttr>(rt.getEncoding()) : MmaEncodingAttr();
    bool blocked = rt && isa_and_nonnull<BlockedEncodingAttr>(rt.getEncoding());
    bool mma = m && (m.getVersion() == 2 || (m.getVersion() == 3 && wgmma_));
    if ((!blocked && !mma) || !rt.getElementType().isF32()) return failure();
    Location loc = op.getLoc();
    Type resTy = getTypeConverter()->convertType(rt);
    Value log2e = arith::ConstantOp::create(rw, loc, rw.getF32FloatAttr(1.4426950408889634f));
    // ftz only where it was measured, and where results below 2^-126 cannot matter: a wgmma
    // accumulator's softmax, whose P is rounded to 16 bits.
    bool ftz = ftz_ && m && m.getVersion() == 3;
    auto exp2 = [&](Value y) -> Value {
      if (!ftz) return math::Exp2Op::create(rw, loc, y);
      return LLVM::CallIntrinsicOp::create(rw, loc, rw.getF32Type(), rw.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
                                           ValueRange{y})
          .getResult(0);
    };
    SmallVector<Value> out;
    for (Value v : unpack(rw, loc, a.getOperand())) out.push_back(exp2(arith::MulFOp::create(rw, loc, v, log2e)));
    rw.replaceOp(op, pack(rw, loc, resTy, out));
    return success();
  }
};

struct ConstantPattern : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    if (!isTileType(op.getType())) return failure();
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense) return rw.notifyMatchFailure(op, "a tile constant that is not a splat");
    Type resTy = getTypeConverter()->convertType(op.getType());
    Value scalar = arith::ConstantOp::create(rw, op.getLoc(), cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    int64_t n = cast<LLVM::LLVMStructType>(resTy).getBody().size();
    rw.replaceOp(op, pack(rw, op.getLoc(), resTy, SmallVector<Value>(n, scalar)));
    return success();
  }
};

struct SplatPattern : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::SplatOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Type resTy = getTypeConverter()->convertType(op.getType());
    if (!resTy) return failure();
    int64_t n = cast<LLVM::LLVMStructType>(resTy).getBody().size();
    rw.replaceOp(op, pack(rw, op.getLoc(), resTy, SmallVector<Value>(n, a.getValue())));
    return success();
  }
};

struct ConvertPattern : OpConversionPattern<tile::ConvertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::ConvertOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    if (!isTileType(op.getType())) {
      if (isa<RankedTensorType>(op.getType())) return failure();
      rw.replaceOp(op, simt::convertElement(rw, op.getLoc(), a.getSource(), op.getType()));
      return success();
    }
    Type resTy = getTypeConverter()->convertType(op.getType());
    Type to = cast<RankedTensorType>(op.getType()).getElementType();
    SmallVector<Value> out;
    for (Value v : unpack(rw, op.getLoc(), a.getSource())) out.push_back(simt::convertElement(rw, op.getLoc(), v, to));
    rw.replaceOp(op, pack(rw, op.getLoc(), resTy, out));
    return success();
  }
};

/// row_ids / col_ids: each register's position along the dimension, as i32.
struct IotaPattern : OpConversionPattern<tile::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::IotaOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto rt = cast<RankedTensorType>(op.getType());
    if (!rt.getEncoding()) return failure();
    RegisterLayout rl = layoutOfType(rt);
    SmallVector<Value> base = threadBase(rw, loc, rt.getEncoding(), rl), out;
    unsigned d = unsigned(op.getDim());
    for (int64_t r = 0; r < rl.numRegs(); ++r)
      out.push_back(arith::IndexCastOp::create(rw, loc, rt.getElementType(), position(rw, loc, rl, base, r, d)));
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(rt), out));
    return success();
  }
};

struct BlockIdPattern : OpConversionPattern<tile::BlockIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::BlockIdOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, simt::emitBlockId(rw, op.getLoc(), unsigned(op.getAxis())));
    return success();
  }
};

/// mask_cols(s, n, v) and causal_mask(s, row, col): a select per register on its
/// position, under a branch that skips them all when the tile has no masked
/// element (n covers every column; the last column lies on or left of the first
/// row's diagonal): attention's full key blocks, all but the diagonal ones.
/// The condition is uniform over the CTA, so the branch does not diverge.
template <typename MaskOp>
struct MaskPattern : OpConversionPattern<MaskOp> {
  using Adaptor = typename OpConversionPattern<MaskOp>::OpAdaptor;
  MaskPattern(const TypeConverter &tc, MLIRContext *ctx, bool diff = false)
      : OpConversionPattern<MaskOp>(tc, ctx), diff_(diff) {}
  bool diff_;
  LogicalResult matchAndRewrite(MaskOp op, Adaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type resTy = this->getTypeConverter()->convertType(op.getType());
    auto tt = cast<RankedTensorType>(op.getType());
    Value lastCol = arith::ConstantOp::create(rw, loc, rw.getI32IntegerAttr(int32_t(tt.getDimSize(1) - 1)));
    Value none;
    if constexpr (std::is_same_v<MaskOp, tile::MaskColsOp>)
      none = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, a.getN(), lastCol);
    else
      none = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sle, arith::AddIOp::create(rw, loc, a.getCol(), lastCol),
                                   a.getRow());
    auto branch = scf::IfOp::create(rw, loc, TypeRange{resTy}, none, /*withElseRegion=*/true);
    rw.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(rw, loc, a.getSource());
    rw.setInsertionPointToStart(branch.elseBlock());
    RegisterLayout rl = layoutOfType(op.getType());
    SmallVector<Value> base = threadBase(rw, loc, cast<RankedTensorType>(op.getType()).getEncoding(), rl);
    SmallVector<Value> regs = unpack(rw, loc, a.getSource()), out;
    Type i32 = rw.getI32Type();
    Type elem = cast<RankedTensorType>(op.getType()).getElementType();
    // causal-mask-diff: col + base_c + oc > row + base_r + or  <=>  oc - or > (row - col) - (base_c - base_r),
    // the right side once a tile, each register's left side a constant (no wrapping layouts).
    Value e;
    if constexpr (std::is_same_v<MaskOp, tile::CausalMaskOp>)
      if (diff_ && !rl.wraps(0) && !rl.wraps(1)) {
        auto asI32 = [&](Value v) { return arith::IndexCastOp::create(rw, loc, i32, v).getResult(); };
        Value d = arith::SubIOp::create(rw, loc, a.getRow(), a.getCol());
        Value b = arith::SubIOp::create(rw, loc, asI32(base[1]), asI32(base[0]));
        // Frozen, so that LLVM's scalar evolution sees an opaque value, not the induction variable:
        // loop strength reduction then has no compare a register to rewrite (freeze of a value that
        // is never poison is that value, and emits no instruction).
        e = LLVM::FreezeOp::create(rw, loc, arith::SubIOp::create(rw, loc, d, b));
      }
    auto col = [&](int64_t r) { return arith::IndexCastOp::create(rw, loc, i32, position(rw, loc, rl, base, r, 1)); };
    for (int64_t r = 0; r < rl.numRegs(); ++r) {
      Value masked, fill;
      if constexpr (std::is_same_v<MaskOp, tile::MaskColsOp>) {
        masked = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sge, col(r), a.getN());
        fill = a.getValue();
      } else {
        if (e) {
          Value k = arith::ConstantOp::create(rw, loc, rw.getI32IntegerAttr(int32_t(rl.offset(r, 1) - rl.offset(r, 0))));
          masked = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, k, e);
        } else {
          Value j = col(r);
          Value i = arith::IndexCastOp::create(rw, loc, i32, position(rw, loc, rl, base, r, 0));
          Value lhs = arith::AddIOp::create(rw, loc, a.getCol(), j), rhs = arith::AddIOp::create(rw, loc, a.getRow(), i);
          masked = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, lhs, rhs);
        }
        fill = arith::ConstantOp::create(rw, loc, FloatAttr::get(elem, -1.0e30));
      }
      out.push_back(arith::SelectOp::create(rw, loc, masked, fill, regs[r]));
    }
    scf::YieldOp::create(rw, loc, pack(rw, loc, resTy, out));
    rw.replaceOp(op, branch.getResults());
    return success();
  }
};

} // namespace

void populateElementwisePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p, bool causalMaskDiff,
                                 bool wgmmaFastExp, bool expFtz) {
  MLIRContext *ctx = p.getContext();
  p.add<ElementwisePattern>(tc, ctx);
  p.add<MmaExpPattern>(tc, ctx, wgmmaFastExp, expFtz);
  p.add<ConstantPattern, SplatPattern, ConvertPattern, BlockIdPattern, IotaPattern, MaskPattern<tile::MaskColsOp>>(
      tc, ctx);
  p.add<MaskPattern<tile::CausalMaskOp>>(tc, ctx, causalMaskDiff);
}

} // namespace ph::tilegpu
