//===- ColReduceToNVVM.cpp - colsum and colmax in a blocked layout ----------===//
//
// The transpose of ReduceToNVVM's row reduction: a thread combines its
// registers of each column, then the lanes that hold other rows of the same
// columns with butterfly shuffles. tilegpu-assign-layouts gives a reduced
// tile a layout with every warp along the columns and no more lanes along the
// rows than there are rows, so nothing crosses a warp or counts a row twice.
//
//===----------------------------------------------------------------------===//
#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <map>

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Lane masks (xor distances) of the lanes that hold other rows of the same columns.
bool colLanes(Attribute layout, const RegisterLayout &rl, SmallVectorImpl<int> &xors, std::string &why) {
  auto b = dyn_cast<BlockedEncodingAttr>(layout);
  if (!b) {
    why = "a column reduction outside a blocked layout";
    return false;
  }
  if (b.getWarpsPerCTA()[0] != 1) {
    why = "a column reduction over warps";
    return false;
  }
  if (rl.shape[0] < rl.pass[0] || rl.shape[0] % rl.pass[0]) {
    why = "a column reduction of a tile whose rows do not fill its layout";
    return false;
  }
  // Lane bits of dimension 0: above those of the dimensions before it in `order`.
  int stride = 1;
  for (unsigned d : b.getOrder()) {
    if (d == 0) break;
    stride *= int(b.getThreadsPerWarp()[d]);
  }
  for (int s = 1; s < int(b.getThreadsPerWarp()[0]); s *= 2) xors.push_back(s * stride);
  return true;
}

template <typename ReduceOp, bool IsMax>
struct ColReducePattern : OpConversionPattern<ReduceOp> {
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
    if (!colLanes(srcTy.getEncoding(), src, xors, why)) return rw.notifyMatchFailure(op, why);
    Type elem = srcTy.getElementType();
    bool isFloat = isa<FloatType>(elem);
    // Shuffles move 32-bit values: 16-bit floats are combined in f32 and rounded
    // once at the end (exact for colmax; colsum's partial sums only gain precision).
    bool widen = isFloat && elem.getIntOrFloatBitWidth() < 32;
    auto combine = [&](Value x, Value y) -> Value {
      if (IsMax) return isFloat ? arith::MaximumFOp::create(rw, loc, x, y).getResult() : arith::MaxSIOp::create(rw, loc, x, y).getResult();
      return isFloat ? arith::AddFOp::create(rw, loc, x, y).getResult() : arith::AddIOp::create(rw, loc, x, y).getResult();
    };
    SmallVector<Value> in = unpack(rw, loc, a.getSource());
    if (widen)
      for (Value &v : in) v = arith::ExtFOp::create(rw, loc, rw.getF32Type(), v);
    // One partial per (pass, element) along the columns, rows combined top to bottom.
    std::map<std::pair<int64_t, int64_t>, Value> partial;
    SmallVector<int64_t> rep, e;
    for (int64_t r = 0; r < src.numRegs(); ++r) {
      src.decompose(r, rep, e);
      auto key = std::make_pair(rep[1], e[1]);
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
      Value v = partial.at({rep[1], e[1]});
      out.push_back(widen ? arith::TruncFOp::create(rw, loc, elem, v).getResult() : v);
    }
    rw.replaceOp(op, pack(rw, loc, this->getTypeConverter()->convertType(resTy), out));
    return success();
  }
};

} // namespace

void populateColReducePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p) {
  p.add<ColReducePattern<tile::ColMaxOp, true>, ColReducePattern<tile::ColSumOp, false>>(tc, p.getContext());
}

} // namespace ph::tilegpu
