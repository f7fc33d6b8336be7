//===- PipelineTma.cpp - tilegpu-pipeline: TMA copies into wgmma rings -------===//
//
// On sm_90a the tensor memory accelerator fills a wgmma ring: one thread
// issues a box per copy, and no other thread spends registers on addresses. It
// needs what cp.async does not: a tensor map per tensor, box and swizzle, which
// the kernel takes as extra arguments (`tilegpu.tma`) that the launcher builds,
// and loads of a shape a box can move. Both are decided here; the loop's
// prologue and steady state (Pipeline.cpp, WarpSpecialize.cpp) only issue the
// copies.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"
#include "CopyChunks.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

/// Whether TMA can copy the load into a wgmma ring: a box of the tensor's last two
/// dimensions (the others squeezed) of a tensor argument of the kernel, at most 256 rows
/// (TMA's box), rows of whole 16-byte chunks (the tensor map's strides; `@aligned` on a size).
/// Masked dimensions need nothing: TMA writes zeros past the tensor's extents.
bool tmaCanCopy(tile::LoadOp ld, func::FuncOp f) {
  auto arg = dyn_cast<BlockArgument>(ld.getPtr());
  if (!arg || arg.getOwner() != &f.getBody().front()) return false;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    if (!isa<ph::tile::PtrType>(f.getArgument(i).getType())) return false;
  size_t n = ld.getLens().size();
  ArrayRef<bool> sq = ld.getSqueezed();
  if (n < 2 || n > 5 || sq[n - 1] || sq[n - 2] || llvm::count(sq, false) != 2 || ld.getLens()[n - 2] > 256)
    return false;
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t vec = 16 / std::max<int64_t>(1, (rt.getElementTypeBitWidth() + 7) / 8);
  return divisibility(ld.getExtents()[n - 1]) % vec == 0;
}

/// The kernel's argument holding the TMA map of the load's tensor with the box one copy into
/// `ring` moves (a column block of the swizzle's row: wider tiles take one box per block),
/// appended after the kernel's other arguments the first time it is needed.
Value Pipeliner::tmaMap(tile::LoadOp ld, MemDescType ring) {
  MLIRContext *ctx = f_.getContext();
  Builder b(ctx);
  auto enc = cast<SharedEncodingAttr>(ring.getEncoding());
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t elem = (rt.getElementTypeBitWidth() + 7) / 8;
  int64_t rowBytes = int64_t(enc.getMaxPhase()) * 16;
  int64_t swizzle = enc.getMaxPhase() > 1 ? rowBytes : 0;
  size_t n = ld.getLens().size();
  SmallVector<int64_t> box;
  for (size_t d = 0; d < n; ++d) box.push_back(ld.getSqueezed()[d] ? 1 : ld.getLens()[d]);
  box[n - 1] = std::min<int64_t>(box[n - 1], rowBytes / elem);
  unsigned tensor = cast<BlockArgument>(ld.getPtr()).getArgNumber();
  auto entry = b.getDictionaryAttr({b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
                                    b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle)),
                                    b.getNamedAttr("tensor", b.getI64IntegerAttr(tensor))});
  unsigned first = f_.getNumArguments() - unsigned(tmaMaps_.size());
  for (auto [i, m] : llvm::enumerate(tmaMaps_))
    if (m == entry) return f_.getArgument(first + unsigned(i));
  unsigned idx = f_.getNumArguments();
  (void)f_.insertArgument(idx, ph::tile::PtrType::get(ctx, b.getIntegerType(8)), DictionaryAttr::get(ctx), ld.getLoc());
  tmaMaps_.push_back(entry);
  f_->setAttr(kTmaAttr, b.getArrayAttr(tmaMaps_));
  return f_.getArgument(idx);
}

} // namespace ph::tilegpu::pipeline
