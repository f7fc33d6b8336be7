//===- SharedLayout.cpp - Where an element of a shared buffer lies ---------===//
#include "SharedLayout.h"
#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace ph::tilegpu {

BufferShape bufferShape(MemDescType t, unsigned tileRank) {
  BufferShape s;
  ArrayRef<int64_t> shape = t.getShape().take_back(tileRank);
  s.dims.assign(shape.begin(), shape.end());
  int64_t pad = 0;
  if (auto e = dyn_cast<SharedEncodingAttr>(t.getEncoding())) {
    pad = e.getPad();
    s.perPhase = e.getPerPhase();
    s.maxPhase = e.getMaxPhase();
  }
  s.pitch = shape.back() + pad;
  s.elem = (t.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  s.stageBytes = t.getStageBytes(tileRank);
  return s;
}

int64_t unswizzledOffset(const BufferShape &s, int64_t row, int64_t col) {
  int64_t perRow = s.rowBytes() / s.elem;
  return (col / perRow) * s.dims[0] * s.rowBytes() + row * s.rowBytes() + (col % perRow) * s.elem;
}

Value byteOffset(OpBuilder &b, Location loc, const BufferShape &s, ArrayRef<Value> idx, Value stage) {
  auto c = [&](int64_t v) { return cIndex(b, loc, v); };
  Value bytes;
  if (s.swizzled() && idx.size() == 2) {
    Value row = idx[0], col = idx[1];
    int64_t perRow = s.rowBytes() / s.elem;
    Value block = arith::DivUIOp::create(b, loc, col, c(perRow));
    Value inRow = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, col, c(perRow)), c(s.elem));
    Value phase = arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, row, c(s.perPhase)), c(s.maxPhase));
    Value chunk = arith::XOrIOp::create(b, loc, inRow, arith::MulIOp::create(b, loc, phase, c(16)));
    bytes = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, block, c(s.dims[0] * s.rowBytes())),
                              arith::MulIOp::create(b, loc, row, c(s.rowBytes()))),
        chunk);
  } else {
    Value lin = idx[0];
    for (size_t d = 1; d < idx.size(); ++d) {
      int64_t stride = d + 1 == idx.size() ? s.pitch : s.dims[d];
      lin = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, lin, c(stride)), idx[d]);
    }
    bytes = arith::MulIOp::create(b, loc, lin, c(s.elem));
  }
  if (stage) bytes = arith::AddIOp::create(b, loc, bytes, arith::MulIOp::create(b, loc, stage, c(s.stageBytes)));
  return bytes;
}

Value gep(OpBuilder &b, Location loc, Value base, Value byteOff) {
  Value off = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOff);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ValueRange{off});
}

} // namespace ph::tilegpu
