//===- MMAv2.cpp - tilegpu.dot on mma.sync m16n8k16 ------------------------------===//
//
// For each 16-deep K block, and each 16x8 block of the warp's accumulator,
// one mma.sync: A's four registers of two 16-bit elements (a0a1 a2a3 a4a5
// a6a7), B's two (b0b1 b2b3) and the accumulator's four f32, taken from the
// operand layouts' register order (Layouts.h). Straight to nvvm.mma.sync (f16
// pairs as <2 x half>, bf16 ones packed in i32 registers): through
// nvgpu.mma.sync and vector.from_elements, as f16 once went, to-nvvm spent a
// fifth of its time converting the vectors and LLVM's InstCombine removing the
// round trips they left (docs/compile.md, "2026-12-06, fourth session").
//
//===----------------------------------------------------------------------===//
#include "../PatternBase.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct DotMMAv2 : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    auto m = dyn_cast<MmaEncodingAttr>(accTy.getEncoding());
    if (!m || m.getVersion() != 2) return rw.notifyMatchFailure(op, "not an mma.sync dot");
    auto aTy = cast<RankedTensorType>(op.getA().getType()), bTy = cast<RankedTensorType>(op.getB().getType());
    Type in = aTy.getElementType();
    if (in != bTy.getElementType() || !(in.isF16() || in.isBF16()) || !accTy.getElementType().isF32())
      return rw.notifyMatchFailure(op, "mma.sync takes f16 or bf16 operands into f32");
    Location loc = op.getLoc();
    RegisterLayout la = layoutOfType(aTy), lb = layoutOfType(bTy), lc = layoutOfType(accTy);
    bool trans = op.getTransB();
    SmallVector<Value> A = unpack(rw, loc, a.getA()), B = unpack(rw, loc, a.getB()), C = unpack(rw, loc, a.getAcc());
    int64_t kBlocks = la.reps[1];
    auto f32 = rw.getF32Type();
    auto resTy = LLVM::LLVMStructType::getLiteral(op.getContext(), {f32, f32, f32, f32});
    for (int64_t rk = 0; rk < kBlocks; ++rk)
      for (int64_t rm = 0; rm < lc.reps[0]; ++rm)
        for (int64_t rn = 0; rn < lc.reps[1]; ++rn) {
          int64_t ab = la.compose({rm, rk}, {0, 0});
          int64_t bb = trans ? lb.compose({rn, rk}, {0, 0}) : lb.compose({rk, rn}, {0, 0});
          int64_t cb = lc.compose({rm, rn}, {0, 0});
          SmallVector<Value> a8 = {A[ab + 0], A[ab + 1], A[ab + 4], A[ab + 5], A[ab + 2], A[ab + 3], A[ab + 6], A[ab + 7]};
          SmallVector<Value> b4 = {B[bb + 0], B[bb + 1], B[bb + 2], B[bb + 3]};
          // The pairs: f16 as <2 x half> registers, bf16 packed in i32 (nvvm.mma.sync's types).
          auto pair = [&](Value lo, Value hi) {
            Value v = vectorOf(rw, loc, ValueRange{lo, hi});
            if (!in.isBF16()) return v;
            // An ldmatrix register already is the pair's i32.
            if (auto c = v.getDefiningOp<LLVM::BitcastOp>(); c && c.getArg().getType() == rw.getI32Type())
              return c.getArg();
            return LLVM::BitcastOp::create(rw, loc, rw.getI32Type(), v).getResult();
          };
          SmallVector<Value> ra, rb, rc(C.begin() + cb, C.begin() + cb + 4);
          for (int i = 0; i < 8; i += 2) ra.push_back(pair(a8[i], a8[i + 1]));
          for (int i = 0; i < 4; i += 2) rb.push_back(pair(b4[i], b4[i + 1]));
          auto type = in.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
          Value d = NVVM::MmaOp::create(rw, loc, resTy, ra, rb, rc, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
                                        std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
                                        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
          for (int64_t i = 0; i < 4; ++i) C[cb + i] = LLVM::ExtractValueOp::create(rw, loc, d, i);
        }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(accTy), C));
    return success();
  }
};

} // namespace

void populateDotMMAv2Patterns(TileGPUTypeConverter &tc, RewritePatternSet &p) { p.add<DotMMAv2>(tc, p.getContext()); }

} // namespace ph::tilegpu
