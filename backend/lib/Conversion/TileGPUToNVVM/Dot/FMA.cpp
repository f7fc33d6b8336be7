//===- FMA.cpp - tilegpu.fma_dot: the SIMT policy's dot on the FMA units -------===//
//
// A thread holds the accumulator elements its blocked layout gives it; for
// each K step it reads A[i, k] once per row i it holds and B[k, j] (B[j, k]
// with transB) once per column j, from the shared buffers (or a stage of a
// ring), widens them to the accumulator's type and adds their product into
// every register of that row and column, K steps unrolled. Rows read along K
// (A, and B with transB) move several K steps at once in vectors of up to 16
// bytes; the sums still run over k in ascending order, as with one step. Where
// groups of warps repeat the accumulator (fewer rows than they cover), they
// split K between them and add up their partial sums through shared memory.
//
//===----------------------------------------------------------------------===//
#include "../PatternBase.h"
#include "../SharedLayout.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <map>

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// How many K steps one read of a row moves: a power of two dividing K, up to
/// 16 bytes of the narrowest operand read along K (a wider one takes several
/// 16-byte vectors), and only where every vector stays aligned (rows and stages
/// a multiple of its bytes apart).
int64_t kStep(int64_t k, ArrayRef<const BufferShape *> alongK) {
  int64_t w = 1;
  for (const BufferShape *s : alongK) w = std::max<int64_t>(w, 16 / s->elem);
  w = std::min<int64_t>(w, 8);
  auto aligned = [&](int64_t n) {
    for (const BufferShape *s : alongK) {
      int64_t bytes = std::min<int64_t>(16, n * s->elem);
      if ((s->pitch * s->elem) % bytes || s->stageBytes % bytes) return false;
    }
    return true;
  };
  while (w > 1 && (k % w || !aligned(w))) w /= 2;
  return w;
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
    BufferShape as = bufferShape(aTy, 2), bs = bufferShape(bTy, 2);
    Type aElem = aTy.getElementType(), bElem = bTy.getElementType();
    bool trans = op.getTransB();
    int64_t k = as.dims[1];
    OpBuilder &b = rw;
    // Split K between the groups of warps that hold the same elements: group q sums
    // k in [q K/R, (q + 1) K/R) from zero; the groups meet in `partials` below.
    int64_t reps = 1;
    Value kLo = cIndex(b, loc, 0), group;
    SmallVector<Value> accIn = acc;
    if (op.getPartials()) {
      reps = op.getPartials().getType().getShape()[0];
      auto bl = cast<BlockedEncodingAttr>(accTy.getEncoding());
      Value rest = arith::DivUIOp::create(b, loc, threadId(b, loc), cIndex(b, loc, 32)), along;
      for (unsigned d : bl.getOrder()) {
        Value c = arith::RemUIOp::create(b, loc, rest, cIndex(b, loc, bl.getWarpsPerCTA()[d]));
        if (d == 0) along = c;
        rest = arith::DivUIOp::create(b, loc, rest, cIndex(b, loc, bl.getWarpsPerCTA()[d]));
      }
      int64_t warpsPerGroup = accTy.getDimSize(0) / (int64_t(bl.getSizePerThread()[0]) * bl.getThreadsPerWarp()[0]);
      group = arith::DivUIOp::create(b, loc, along, cIndex(b, loc, warpsPerGroup));
      kLo = arith::MulIOp::create(b, loc, group, cIndex(b, loc, k / reps));
      Value zero = arith::ConstantOp::create(b, loc, accElem, b.getZeroAttr(accElem));
      for (Value &v : acc) v = zero;
    }
    SmallVector<const BufferShape *> alongK = {&as};
    if (trans) alongK.push_back(&bs);
    int64_t w = kStep(k / reps, alongK);
    auto widen = [&](OpBuilder &b, Value v) -> Value {
      if (v.getType() == accElem) return v;
      if (v.getType().getIntOrFloatBitWidth() < accElem.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, loc, accElem, v);
      return arith::TruncFOp::create(b, loc, accElem, v);
    };
    // `n` elements from (x, y) on along the last dimension, widened: vectors of at most 16 bytes.
    auto readRun = [&](OpBuilder &b, Value buf, Value stage, const BufferShape &s, Type elem, Value x, Value y,
                       int64_t n) {
      SmallVector<Value> out;
      int64_t per = std::max<int64_t>(1, std::min<int64_t>(n, 16 / s.elem));
      for (int64_t at = 0; at < n; at += per) {
        Value col = at ? arith::AddIOp::create(b, loc, y, cIndex(b, loc, at)).getResult() : y;
        Value p = gep(b, loc, buf, byteOffset(b, loc, s, {x, col}, stage));
        if (per == 1) {
          out.push_back(widen(b, LLVM::LoadOp::create(b, loc, elem, p, unsigned(s.elem))));
          continue;
        }
        auto vt = VectorType::get({per}, elem);
        Value v = LLVM::LoadOp::create(b, loc, vt, p, unsigned(per * s.elem));
        for (int64_t i = 0; i < per; ++i)
          out.push_back(widen(b, LLVM::ExtractElementOp::create(
                                     b, loc, v, LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(int32_t(i))))));
      }
      return out;
    };
    for (int64_t k0 = 0; k0 < k / reps; k0 += w) {
      Value kv = arith::AddIOp::create(b, loc, kLo, cIndex(b, loc, k0));
      SmallVector<SmallVector<Value>> av, bv;
      for (Value i : rows) av.push_back(readRun(b, a.getA(), a.getAStage(), as, aElem, i, kv, w));
      for (Value j : cols) {
        if (trans) {
          bv.push_back(readRun(b, a.getB(), a.getBStage(), bs, bElem, j, kv, w));
          continue;
        }
        bv.emplace_back();
        for (int64_t kk = 0; kk < w; ++kk) {
          Value kr = kk ? arith::AddIOp::create(b, loc, kv, cIndex(b, loc, kk)).getResult() : kv;
          bv.back().push_back(readRun(b, a.getB(), a.getBStage(), bs, bElem, kr, j, 1).front());
        }
      }
      for (int64_t kk = 0; kk < w; ++kk)
        for (size_t r = 0; r < acc.size(); ++r)
          acc[r] = math::FmaOp::create(b, loc, av[regRow[r]][kk], bv[regCol[r]][kk], acc[r]);
    }
    if (op.getPartials()) {
      // Each group's sums into its slice (after the previous reads of the buffer), then every
      // group adds all of them, in group order, to the accumulator it was given.
      BufferShape ps = bufferShape(op.getPartials().getType(), 3);
      auto at = [&](Value g, size_t r) {
        return gep(b, loc, a.getPartials(), byteOffset(b, loc, ps, {g, rows[regRow[r]], cols[regCol[r]]}, Value()));
      };
      unsigned bytes = unsigned((accElem.getIntOrFloatBitWidth() + 7) / 8);
      gpu::BarrierOp::create(b, loc);
      for (size_t r = 0; r < acc.size(); ++r) LLVM::StoreOp::create(b, loc, acc[r], at(group, r), bytes);
      gpu::BarrierOp::create(b, loc);
      for (size_t r = 0; r < acc.size(); ++r) {
        Value sum = accIn[r];
        for (int64_t g = 0; g < reps; ++g)
          sum = arith::AddFOp::create(b, loc, sum, LLVM::LoadOp::create(b, loc, accElem, at(cIndex(b, loc, g), r), bytes));
        acc[r] = sum;
      }
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(accTy), acc));
    return success();
  }
};

} // namespace

void populateDotFMAPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) { p.add<DotFMA>(tc, p.getContext()); }

} // namespace ph::tilegpu
