//===- ReduceToNVVM.cpp - Row reductions and broadcasts in a register layout ---===//
//
// A broadcast within one layout reads, for each result register, the source
// register at the same element slot with pass 0 and element 0 along the
// stretched dimension. A row reduction combines a thread's registers of each row, then
// the lanes that share the row with butterfly shuffles (the quad of an mma
// layout, the lanes along the columns of a blocked one). Rows split over
// warps would need shared memory: the policy keeps reduced rows in one warp.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <map>

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct BroadcastPattern : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::BroadcastOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    auto srcTy = cast<RankedTensorType>(op.getSource().getType());
    auto resTy = cast<RankedTensorType>(op.getType());
    if (srcTy.getEncoding() != resTy.getEncoding() || srcTy.getRank() != resTy.getRank())
      return rw.notifyMatchFailure(op, "a broadcast between layouts");
    RegisterLayout src = layoutOfType(srcTy), res = layoutOfType(resTy);
    SmallVector<Value> in = unpack(rw, op.getLoc(), a.getSource()), out;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < res.numRegs(); ++r) {
      res.decompose(r, rep, e);
      // A stretched dimension has extent 1 in the source, which holds one element
      // along it (RegisterLayout collapses unit dimensions): pass 0, element 0.
      for (unsigned d = 0; d < res.rank(); ++d)
        if (src.shape[d] != res.shape[d]) rep[d] = e[d] = 0;
      out.push_back(in[src.compose(rep, e)]);
    }
    rw.replaceOp(op, pack(rw, op.getLoc(), getTypeConverter()->convertType(resTy), out));
    return success();
  }
};

/// Lane masks (xor distances) of the lanes that hold other columns of the same rows.
bool rowLanes(Attribute layout, const RegisterLayout &rl, SmallVectorImpl<int> &xors, std::string &why) {
  if (rl.shape[1] < rl.pass[1]) {
    why = "a row reduction of a tile narrower than its layout";
    return false;
  }
  if (!rl.coversOnce(1)) {
    // A wrapped pass holds some columns twice: the sum would count them twice.
    why = "a row reduction of a tile whose columns are not a multiple of its layout's pass";
    return false;
  }
  if (auto m = dyn_cast<MmaEncodingAttr>(layout)) {
    if (m.getWarpsPerCTA()[1] != 1) {
      why = "a row reduction over warps";
      return false;
    }
    xors.assign({1, 2});
    return true;
  }
  if (auto b = dyn_cast<BlockedEncodingAttr>(layout)) {
    if (b.getWarpsPerCTA()[1] != 1) {
      why = "a row reduction over warps";
      return false;
    }
    // Lane bits of dimension 1: below those of the dimensions before it in `order`.
    int stride = 1;
    for (unsigned d : b.getOrder()) {
      if (d == 1) break;
      stride *= int(b.getThreadsPerWarp()[d]);
    }
    for (int s = 1; s < int(b.getThreadsPerWarp()[1]); s *= 2) xors.push_back(s * stride);
    return true;
  }
  why = "a row reduction in this layout";
  return false;
}

template <typename ReduceOp, bool IsMax>
struct RowReducePattern : OpConversionPattern<ReduceOp> {
  using OpConversionPattern<ReduceOp>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<ReduceOp>::OpAdaptor;
  LogicalResult matchAndRewrite(ReduceOp op, Adaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = cast<RankedTensorType>(op.getSource().getType());
    auto resTy = cast<RankedTensorType>(op.getType());
    if (srcTy.getEncoding() != resTy.getEncoding() || srcTy.getRank() != 2)
      return rw.notifyMatchFailure(op, "a reduction between layouts");
    RegisterLayout src = layoutOfType(srcTy), res = layoutOfType(resTy);
    SmallVector<int> xors;
    std::string why;
    if (!rowLanes(srcTy.getEncoding(), src, xors, why)) return rw.notifyMatchFailure(op, why);
    Type elem = srcTy.getElementType();
    bool isFloat = isa<FloatType>(elem);
    // Shuffles move 32-bit values: 16-bit floats are combined in f32, rounded once at the end.
    bool widen = isFloat && elem.getIntOrFloatBitWidth() < 32;
    auto combine = [&](Value x, Value y) -> Value {
      if (IsMax) return isFloat ? arith::MaximumFOp::create(rw, loc, x, y).getResult() : arith::MaxSIOp::create(rw, loc, x, y).getResult();
      return isFloat ? arith::AddFOp::create(rw, loc, x, y).getResult() : arith::AddIOp::create(rw, loc, x, y).getResult();
    };
    SmallVector<Value> in = unpack(rw, loc, a.getSource());
    if (widen)
      for (Value &v : in) v = arith::ExtFOp::create(rw, loc, rw.getF32Type(), v);
    // One partial per (pass, element) along the rows.
    std::map<std::pair<int64_t, int64_t>, Value> partial;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < src.numRegs(); ++r) {
      src.decompose(r, rep, e);
      auto key = std::make_pair(rep[0], e[0]);
      auto it = partial.find(key);
      partial[key] = it == partial.end() ? in[r] : combine(it->second, in[r]);
    }
    Value width = arith::ConstantIntOp::create(rw, loc, 32, 32);
    for (auto &[key, v] : partial)
      for (int x : xors) {
        Value off = arith::ConstantIntOp::create(rw, loc, x, 32);
        Value other = gpu::ShuffleOp::create(rw, loc, v, off, width, gpu::ShuffleMode::XOR).getShuffleResult();
        v = combine(v, other);
      }
    SmallVector<Value> out;
    for (int64_t r = 0; r < res.numRegs(); ++r) {
      res.decompose(r, rep, e);
      Value v = partial.at({rep[0], e[0]});
      out.push_back(widen ? arith::TruncFOp::create(rw, loc, elem, v).getResult() : v);
    }
    rw.replaceOp(op, pack(rw, loc, this->getTypeConverter()->convertType(resTy), out));
    return success();
  }
};

/// rowargmax: (value, column) pairs combined within a thread, then across the lanes that
/// share the row with butterfly shuffles of both halves. The combination (the larger value,
/// a NaN above any number, then the smaller column) is associative and commutative, so the
/// order of combining does not change the index: the first maximum, or the first NaN.
struct RowArgMaxPattern : OpConversionPattern<tile::RowArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::RowArgMaxOp op, OpAdaptor a, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto srcTy = cast<RankedTensorType>(op.getSource().getType());
    auto resTy = cast<RankedTensorType>(op.getType());
    if (srcTy.getEncoding() != resTy.getEncoding() || srcTy.getRank() != 2)
      return rw.notifyMatchFailure(op, "a reduction between layouts");
    RegisterLayout src = layoutOfType(srcTy), res = layoutOfType(resTy);
    SmallVector<int> xors;
    std::string why;
    if (!rowLanes(srcTy.getEncoding(), src, xors, why)) return rw.notifyMatchFailure(op, why);
    Type elem = srcTy.getElementType();
    bool isFloat = isa<FloatType>(elem);
    SmallVector<Value> in = unpack(rw, loc, a.getSource());
    // Shuffles move 32-bit values; widening a 16-bit float is exact.
    if (isFloat && elem.getIntOrFloatBitWidth() < 32)
      for (Value &v : in) v = arith::ExtFOp::create(rw, loc, rw.getF32Type(), v);
    // Whether (w, j) comes before (v, i).
    auto better = [&](Value v, Value i, Value w, Value j) -> Value {
      Value before = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, j, i);
      if (!isFloat) {
        Value gt = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, w, v);
        Value eq = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, w, v);
        return arith::OrIOp::create(rw, loc, gt, arith::AndIOp::create(rw, loc, eq, before));
      }
      Value gt = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGT, w, v);
      Value eq = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OEQ, w, v);
      Value wNan = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::UNO, w, w);
      Value vNan = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::UNO, v, v);
      Value vNum = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::ORD, v, v);
      Value same = arith::OrIOp::create(rw, loc, eq, arith::AndIOp::create(rw, loc, wNan, vNan));
      Value r = arith::OrIOp::create(rw, loc, gt, arith::AndIOp::create(rw, loc, wNan, vNum));
      return arith::OrIOp::create(rw, loc, r, arith::AndIOp::create(rw, loc, same, before));
    };
    using Pair = std::pair<Value, Value>;
    auto combine = [&](Pair p, Pair q) -> Pair {
      Value take = better(p.first, p.second, q.first, q.second);
      return {arith::SelectOp::create(rw, loc, take, q.first, p.first),
              arith::SelectOp::create(rw, loc, take, q.second, p.second)};
    };
    SmallVector<Value> base = threadBase(rw, loc, srcTy.getEncoding(), src);
    std::map<std::pair<int64_t, int64_t>, Pair> partial;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < src.numRegs(); ++r) {
      src.decompose(r, rep, e);
      Value col = arith::IndexCastOp::create(rw, loc, rw.getI32Type(), position(rw, loc, src, base, r, 1));
      auto key = std::make_pair(rep[0], e[0]);
      auto it = partial.find(key);
      partial[key] = it == partial.end() ? Pair{in[r], col} : combine(it->second, {in[r], col});
    }
    Value width = arith::ConstantIntOp::create(rw, loc, 32, 32);
    for (auto &[key, p] : partial)
      for (int x : xors) {
        Value off = arith::ConstantIntOp::create(rw, loc, x, 32);
        Value ov = gpu::ShuffleOp::create(rw, loc, p.first, off, width, gpu::ShuffleMode::XOR).getShuffleResult();
        Value oi = gpu::ShuffleOp::create(rw, loc, p.second, off, width, gpu::ShuffleMode::XOR).getShuffleResult();
        p = combine(p, {ov, oi});
      }
    SmallVector<Value> out;
    for (int64_t r = 0; r < res.numRegs(); ++r) {
      res.decompose(r, rep, e);
      out.push_back(partial.at({rep[0], e[0]}).second);
    }
    rw.replaceOp(op, pack(rw, loc, getTypeConverter()->convertType(resTy), out));
    return success();
  }
};

} // namespace

void populateReducePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<BroadcastPattern, RowReducePattern<tile::RowMaxOp, true>, RowReducePattern<tile::RowSumOp, false>,
        RowArgMaxPattern>(tc, p.getContext());
}

} // namespace ph::tilegpu
