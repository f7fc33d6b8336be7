//===- CopyChunks.cpp - Whether cp.async can move a load -----------------------===//
#include "CopyChunks.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;

namespace ph::tilegpu {

// A dot operand that cannot (`X[r :+ 64, k :+ 16]` of a bf16 `[M, K]` tensor, K a size
// without `@aligned`) stays a register load, and tilegpu-through-shared stores it for
// ldmatrix; as a cp.async it failed to legalize (docs/reliability.md, differential bug 8).
bool copiesInChunks(tile::LoadOp ld) {
  auto rt = cast<RankedTensorType>(ld.getType());
  size_t d = ld.getLens().size() - 1;
  int64_t vec = 16 / std::max<int64_t>(1, (rt.getElementTypeBitWidth() + 7) / 8);
  return !ld.getSqueezed()[d] && ld.getLens()[d] % vec == 0 &&
         std::min(divisibility(ld.getOffsets()[d]), divisibility(ld.getExtents()[d])) % vec == 0;
}

} // namespace ph::tilegpu
