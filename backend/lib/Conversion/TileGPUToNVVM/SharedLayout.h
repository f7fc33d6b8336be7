//===- SharedLayout.h - Where an element of a shared buffer lies -*- C++ -*-===//
//
// The byte address of a tile element in a `!tilegpu.memdesc`, for the two
// ways a tile sits in shared memory: rows padded (what ldmatrix reads), or
// the XOR swizzle of wgmma's and TMA's canonical layouts (rows of W = 32,
// 64 or 128 bytes; a wider tile is cut into W-byte column blocks stored one
// after another, each holding every row; 16-byte chunk c of row r lies at
// c ^ ((r / perPhase) % maxPhase)). cp.async, ldmatrix and the wgmma
// descriptors all address buffers through these functions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/IR/Builders.h"

namespace ph::tilegpu {

struct BufferShape {
  llvm::SmallVector<int64_t> dims; // the tile's
  int64_t pitch = 0;               // elements between consecutive rows (padded layouts)
  int64_t stageBytes = 0;
  int64_t elem = 0;                // bytes per element
  int64_t perPhase = 1, maxPhase = 1;
  bool swizzled() const { return maxPhase > 1; }
  /// Bytes per row of a column block (swizzled layouts).
  int64_t rowBytes() const { return maxPhase * 16; }
  /// The descriptor's swizzle mode: 1 = 128 B, 2 = 64 B, 3 = 32 B.
  int64_t swizzleMode() const { return rowBytes() == 128 ? 1 : rowBytes() == 64 ? 2 : 3; }
};

BufferShape bufferShape(MemDescType t, unsigned tileRank);

/// Byte offset of element `idx` (index values) of stage `stage` (null: 0).
mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc, const BufferShape &s, llvm::ArrayRef<mlir::Value> idx,
                       mlir::Value stage);
/// The same before the XOR: the address a wgmma descriptor names for a
/// sub-tile starting at (row, col) with row a multiple of 8.
int64_t unswizzledOffset(const BufferShape &s, int64_t row, int64_t col);

/// `base` (a `!llvm.ptr<3>`) advanced by an index number of bytes.
mlir::Value gep(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base, mlir::Value byteOff);

} // namespace ph::tilegpu
