//===- FMA.cpp - tilegpu.fma_dot: the SIMT policy's dot on the FMA units -------===//
//
// A thread holds the accumulator elements its blocked layout gives it; for
// each K step it reads A[i, k] once per row i it holds and B[k, j] (B[j, k]
// with transB) once per column j, from the shared buffers, widens them to the
// accumulator's type and adds their product into every register of that row
// and column, K steps unrolled.
//
//===----------------------------------------------------------------------===//
#include "../PatternBase.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <map>

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Elements between rows of a 2-D buffer (the last dimension padded) and bytes per element.
std::pair<int64_t, int64_t> pitchAndBytes(MemDescType t) {
  int64_t pad = 0;
  if (auto e = dyn_cast<SharedEncodingAttr>(t.getEncoding())) pad = e.getPad();
  return {t.getShape().back() + pad, (t.getElementType().getIntOrFloatBitWidth() + 7) / 8};
}

struct DotFMA : OpConversionPattern<FmaDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FmaDotOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto accTy = cast<RankedTensorType>(op.getAcc().getType());
    Type accElem = accTy.getElementType();
    RegisterLayout lc = layoutOfType(accTy);
    SmallVector<Value> base = threadBase(rw, loc, accTy.getEncoding(), lc);
    SmallVector<Value> acc = unpack(rw, loc, a.getAcc());
    // The distinct rows and columns the thread's registers lie in.
    std::map<std::pair<int64_t, int64_t>, size_t> rowOf, colOf;
    SmallVector<Value> rows, cols;
    SmallVector<size_t> regRow, regCol;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < lc.numRegs(); ++r) {
      lc.decompose(r, rep, e);
      auto [ri, newRow] = rowOf.try_emplace({rep[0], e[0]}, rows.size());
      if (newRow) rows.push_back(position(rw, loc, lc, base, r, 0));
      auto [ci, newCol] = colOf.try_emplace({rep[1], e[1]}, cols.size());
      if (newCol) cols.push_back(position(rw, loc, lc, base, r, 1));
      regRow.push_back(ri->second);
      regCol.push_back(ci->second);
    }
    MemDescType aTy = op.getA().getType(), bTy = op.getB().getType();
    auto [aPitch, aBytes] = pitchAndBytes(aTy);
    auto [bPitch, bBytes] = pitchAndBytes(bTy);
    bool trans = op.getTransB();
    int64_t k = aTy.getShape()[1];
    // Byte offsets of element (x, y) = (x * pitch + y) * bytes.
    auto element = [&](OpBuilder &b, Value buf, Value x, Value y, int64_t pitch, int64_t bytes, Type t) -> Value {
      Value lin = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, x, cIndex(b, loc, pitch)), y);
      Value off = arith::MulIOp::create(b, loc, lin, cIndex(b, loc, bytes));
      Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), off);
      Value p = LLVM::GEPOp::create(b, loc, buf.getType(), b.getI8Type(), buf, ValueRange{i64});
      Value v = LLVM::LoadOp::create(b, loc, t, p, unsigned(bytes));
      if (t == accElem) return v;
      if (t.getIntOrFloatBitWidth() < accElem.getIntOrFloatBitWidth()) return arith::ExtFOp::create(b, loc, accElem, v);
      return arith::TruncFOp::create(b, loc, accElem, v);
    };
    // Unrolled over K (a tile's K is a compile-time extent, 16 to 128 in practice).
    for (int64_t kk = 0; kk < k; ++kk) {
      OpBuilder &b = rw;
      Value kv = cIndex(b, loc, kk);
      SmallVector<Value> av, bv;
      for (Value i : rows) av.push_back(element(b, a.getA(), i, kv, aPitch, aBytes, aTy.getElementType()));
      for (Value j : cols)
        bv.push_back(trans ? element(b, a.getB(), j, kv, bPitch, bBytes, bTy.getElementType())
                           : element(b, a.getB(), kv, j, bPitch, bBytes, bTy.getElementType()));
      for (size_t r = 0; r < acc.size(); ++r)
        acc[r] = math::FmaOp::create(b, loc, av[regRow[r]], bv[regCol[r]], acc[r]);
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(accTy), acc));
    return success();
  }
};

} // namespace

void populateDotFMAPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) { p.add<DotFMA>(tc, p.getContext()); }

} // namespace ph::tilegpu
