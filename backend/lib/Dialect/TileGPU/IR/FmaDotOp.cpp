//===- FmaDotOp.cpp - The verifier of tilegpu.fma_dot ----------------------===//
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

using namespace mlir;

namespace ph::tilegpu {

LogicalResult FmaDotOp::verify() {
  ArrayRef<int64_t> a = getA().getType().getShape(), b = getB().getType().getShape();
  // A ring's leading dimension counts its stages.
  if (getAStage()) {
    if (a.size() != 3) return emitOpError("reads A from a stage of a 3-D ring");
    a = a.drop_front();
  }
  if (getBStage()) {
    if (b.size() != 3) return emitOpError("reads B from a stage of a 3-D ring");
    b = b.drop_front();
  }
  auto c = cast<RankedTensorType>(getAcc().getType());
  if (a.size() != 2 || b.size() != 2 || c.getRank() != 2) return emitOpError("takes 2-D buffers and a 2-D accumulator");
  if (!isa<BlockedEncodingAttr>(c.getEncoding())) return emitOpError("takes an accumulator in a #tilegpu.blocked layout");
  int64_t k = a[1], bk = getTransB() ? b[1] : b[0], bn = getTransB() ? b[0] : b[1];
  if (bk != k) return emitOpError("A is ") << a[0] << "x" << k << " but B's K is " << bk;
  if (c.getDimSize(0) != a[0] || c.getDimSize(1) != bn)
    return emitOpError("the accumulator must be ") << a[0] << "x" << bn;
  if (Value p = getPartials()) {
    ArrayRef<int64_t> ps = cast<MemDescType>(p.getType()).getShape();
    if (ps.size() != 3 || ps[1] != c.getDimSize(0) || ps[2] != c.getDimSize(1) ||
        cast<MemDescType>(p.getType()).getElementType() != c.getElementType())
      return emitOpError("partials must be [R, ") << c.getDimSize(0) << ", " << c.getDimSize(1) << "] of the accumulator's type";
  }
  if (!isa<FloatType>(c.getElementType()) || !isa<FloatType>(getA().getType().getElementType()) ||
      !isa<FloatType>(getB().getType().getElementType()))
    return emitOpError("takes floating-point operands and accumulator");
  return success();
}

} // namespace ph::tilegpu
