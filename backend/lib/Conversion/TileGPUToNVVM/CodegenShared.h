//===- CodegenShared.h - What the TileGPU conversion patterns emit alike -*- C++ -*-===//
//
// The pieces several conversion patterns share (the legacy SIMT and tensor-core emitters,
// deleted on 2026-12-06, shared them too), so that a tile op means the same in each:
// tile.convert's element rules, block ids, masked loads and stores, and how a slice access
// addresses global memory.
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

} // namespace ph::simt
