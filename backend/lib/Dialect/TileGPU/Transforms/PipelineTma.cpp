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

/// Whether TMA can move a slice (`lens`, `squeezed`) of `ptr` in one box per column block:
/// the tensor's last two dimensions (the others squeezed) of a tensor argument of the kernel,
/// at most 256 rows (TMA's box), rows of whole 16-byte chunks (the tensor map's strides;
/// `@aligned` on a size). Masked dimensions need nothing: TMA reads zeros past the tensor's
/// extents and writes nothing there.
bool tmaCanMove(Value ptr, ArrayRef<int64_t> lens, ArrayRef<bool> sq, Value lastExtent, RankedTensorType rt,
                func::FuncOp f) {
  auto arg = dyn_cast<BlockArgument>(ptr);
  if (!arg || arg.getOwner() != &f.getBody().front()) return false;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    if (!isa<ph::tile::PtrType>(f.getArgument(i).getType())) return false;
  size_t n = lens.size();
  if (n < 2 || n > 5 || sq[n - 1] || sq[n - 2] || llvm::count(sq, false) != 2 || lens[n - 2] > 256) return false;
  int64_t vec = 16 / std::max<int64_t>(1, (rt.getElementTypeBitWidth() + 7) / 8);
  return divisibility(lastExtent) % vec == 0;
}

bool tmaCanCopy(tile::LoadOp ld, func::FuncOp f) {
  return tmaCanMove(ld.getPtr(), ld.getLens(), ld.getSqueezed(), ld.getExtents().back(),
                    cast<RankedTensorType>(ld.getType()), f);
}

DictionaryAttr tmaMapEntry(unsigned tensor, ArrayRef<int64_t> lens, ArrayRef<bool> squeezed, RankedTensorType rt,
                           MemDescType buffer) {
  Builder b(rt.getContext());
  auto enc = cast<SharedEncodingAttr>(buffer.getEncoding());
  int64_t elem = (rt.getElementTypeBitWidth() + 7) / 8;
  int64_t rowBytes = int64_t(enc.getMaxPhase()) * 16;
  int64_t swizzle = enc.getMaxPhase() > 1 ? rowBytes : 0;
  size_t n = lens.size();
  SmallVector<int64_t> box;
  for (size_t d = 0; d < n; ++d) box.push_back(squeezed[d] ? 1 : lens[d]);
  box[n - 1] = std::min<int64_t>(box[n - 1], rowBytes / elem);
  return b.getDictionaryAttr({b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
                              b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle)),
                              b.getNamedAttr("tensor", b.getI64IntegerAttr(tensor))});
}

Value tmaMapArgument(func::FuncOp f, DictionaryAttr entry, Location loc) {
  MLIRContext *ctx = f.getContext();
  SmallVector<Attribute> maps;
  if (auto a = f->getAttrOfType<ArrayAttr>(kTmaAttr)) maps.assign(a.begin(), a.end());
  unsigned first = f.getNumArguments() - unsigned(maps.size());
  for (auto [i, m] : llvm::enumerate(maps))
    if (m == entry) return f.getArgument(first + unsigned(i));
  unsigned idx = f.getNumArguments();
  (void)f.insertArgument(idx, ph::tile::PtrType::get(ctx, IntegerType::get(ctx, 8)), DictionaryAttr::get(ctx), loc);
  maps.push_back(entry);
  f->setAttr(kTmaAttr, ArrayAttr::get(ctx, maps));
  return f.getArgument(idx);
}

/// The kernel's argument holding the TMA map of the load's tensor with the box one copy into
/// `ring` moves (a column block of the swizzle's row: wider tiles take one box per block),
/// appended after the kernel's other arguments the first time it is needed.
Value Pipeliner::tmaMap(tile::LoadOp ld, MemDescType ring) {
  unsigned tensor = cast<BlockArgument>(ld.getPtr()).getArgNumber();
  return tmaMapArgument(f_, tmaMapEntry(tensor, ld.getLens(), ld.getSqueezed(), cast<RankedTensorType>(ld.getType()), ring),
                        ld.getLoc());
}

} // namespace ph::tilegpu::pipeline
