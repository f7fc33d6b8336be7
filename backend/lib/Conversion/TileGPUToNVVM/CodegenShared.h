//===- CodegenShared.h - What the TileGPU conversion patterns emit alike -*- C++ -*-===//
//
// The pieces several conversion patterns share (the legacy SIMT and tensor-core emitters,
// deleted on 2026-12-06, shared them too), so that a tile op means the same in each:
// element sizes, the spelling of types and source locations in their messages and
// placement notes (E0501's largest tile, W0501's reason, "`tensor<64x32xf32>` at
// f.ph:3:5: registers"), tile.convert's element rules, and how a slice access
// addresses global memory and how wide its accesses may be.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Conversion/ConvertRules.h"
#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace ph::simt {

inline int64_t elemBytes(mlir::Type t) { return std::max<int64_t>(1, (t.getIntOrFloatBitWidth() + 7) / 8); }

inline std::string typeText(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// `file:line:col` of the first file location in `loc` (through names and fusions); empty
/// when it has none.
inline std::string locText(mlir::Location loc) {
  using namespace mlir;
  if (auto fl = dyn_cast<FileLineColRange>(loc))
    return (fl.getFilename().getValue() + ":" + llvm::Twine(fl.getStartLine()) + ":" + llvm::Twine(fl.getStartColumn())).str();
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return (fl.getFilename().getValue() + ":" + llvm::Twine(fl.getLine()) + ":" + llvm::Twine(fl.getColumn())).str();
  if (auto nl = dyn_cast<NameLoc>(loc)) return locText(nl.getChildLoc());
  if (auto fu = dyn_cast<FusedLoc>(loc))
    for (Location l : fu.getLocations())
      if (std::string t = locText(l); !t.empty()) return t;
  return "";
}

/// tile.convert's rules, for one element (ph/Conversion/ConvertRules.h, shared with the
/// CPU lowering).
inline mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to) {
  return ph::conv::convertValue(b, loc, v, to);
}

/// tile.block_id: the CTA's index along `axis` (0, 1, 2: x, y, z) as an i32, the type
/// the kernel's scalar arithmetic uses.
inline mlir::Value emitBlockId(mlir::OpBuilder &b, mlir::Location loc, unsigned axis) {
  static const mlir::gpu::Dimension dims[] = {mlir::gpu::Dimension::x, mlir::gpu::Dimension::y,
                                              mlir::gpu::Dimension::z};
  mlir::Value id = mlir::gpu::BlockIdOp::create(b, loc, dims[axis]);
  return mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), id);
}

/// The global address of a slice access's element at `tileIdx` (one index per
/// dimension the slice keeps), and in `inBounds` whether it lies inside the tensor
/// along every dimension the checker could not prove (null when none is masked).
/// `lookup` maps the op's scalar operands to the values the lowering computed.
template <typename AccessOp>
void emitGlobalAddress(mlir::OpBuilder &b, mlir::Location loc, AccessOp op, llvm::ArrayRef<mlir::Value> tileIdx,
                       llvm::function_ref<mlir::Value(mlir::Value)> lookup, mlir::Value &inBounds, mlir::Value &ptr) {
  using namespace mlir;
  ArrayRef<bool> squeezed = op.getSqueezed(), masked = op.getMasked();
  Value linear;
  unsigned k = 0;
  inBounds = {};
  for (size_t d = 0; d < squeezed.size(); ++d) {
    Value i = lookup(op.getOffsets()[d]);
    if (!squeezed[d]) i = arith::AddIOp::create(b, loc, i, tileIdx[k++]);
    Value ext = lookup(op.getExtents()[d]);
    if (masked[d]) {
      // Unsigned: a negative index is out of bounds too.
      Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, ext);
      inBounds = inBounds ? arith::AndIOp::create(b, loc, inBounds, c).getResult() : c;
    }
    linear = d == 0 ? i : arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, linear, ext), i).getResult();
  }
  Value base = lookup(op.getPtr());
  Type elem = cast<tile::PtrType>(op.getPtr().getType()).getElementType();
  Value off = arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
  ptr = LLVM::GEPOp::create(b, loc, base.getType(), elem, base, ValueRange{off});
}

/// A load of `type` from global `ptr`; where `cond` is false, nothing is read and the
/// value is zero (masked-off elements of a slice, as both lowerings and the
/// interpreter define them). A null `cond` loads unconditionally.
inline mlir::Value emitLoadOrZero(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::Value ptr,
                                  unsigned align, mlir::Value cond) {
  using namespace mlir;
  if (!cond) return LLVM::LoadOp::create(b, loc, type, ptr, align);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, ValueRange{LLVM::LoadOp::create(b, loc, type, ptr, align).getResult()});
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, ValueRange{arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type))).getResult()});
  return ifOp.getResult(0);
}

/// A store of `v` to global `ptr` where `cond` holds (masked-off elements of a slice are
/// not written); a null `cond` stores unconditionally.
inline void emitStoreIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Value ptr, unsigned align,
                        mlir::Value cond) {
  using namespace mlir;
  OpBuilder::InsertionGuard g(b);
  if (cond) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, cond, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  LLVM::StoreOp::create(b, loc, v, ptr, align);
}

/// Elements one thread moves with one access of at most `maxBytes`: when the
/// slice's last dimension is neither squeezed nor masked, and its length, the
/// tensor's extent and the slice's start along it are constant multiples of the
/// width (tensors start 16-byte aligned: the ABI), each run of `width` elements is
/// one aligned vector inside one row. Otherwise 1.
template <typename AccessOp>
int64_t vectorWidth(AccessOp op, mlir::Type elem, int64_t maxBytes = 16) {
  using namespace mlir;
  ArrayRef<bool> squeezed = op.getSqueezed(), masked = op.getMasked();
  if (squeezed.empty()) return 1;
  size_t d = squeezed.size() - 1;
  int64_t bytes = elemBytes(elem);
  if (squeezed[d] || masked[d] || bytes > 4 || maxBytes % bytes) return 1;
  int64_t width = maxBytes / bytes;
  APInt ext, off;
  if (!matchPattern(op.getExtents()[d], m_ConstantInt(&ext)) || !matchPattern(op.getOffsets()[d], m_ConstantInt(&off)))
    return 1;
  if (op.getLens()[d] % width || ext.getSExtValue() % width || off.getSExtValue() % width) return 1;
  return width;
}

} // namespace ph::simt
