//===- Layouts.h - Which elements of a tile each thread holds ---*- C++ -*-===//
//
// The layout-indexing interface every register-layout lowering reads: for a
// layout attribute and a tile shape, how many registers a thread holds, and
// where register r's element lies relative to the thread's base position
// (per dimension: pass r_d of the layout over the tile, element e_d of the
// thread within one pass). The thread's base is computed in IR by
// LayoutIndexing.h; position_d = (base_d + offset_d(r)) mod shape_d, the
// modulo replicating a tile smaller than the layout's pass (an [R, 1] row
// vector of an mma layout sits in the four lanes of a quad).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace ph::tilegpu {

struct RegisterLayout {
  llvm::SmallVector<int64_t> shape;     // the tile's extents
  llvm::SmallVector<int64_t> pass;      // extent one pass of the layout covers, per dimension
  llvm::SmallVector<int64_t> perThread; // elements a thread holds in one pass, per dimension
  llvm::SmallVector<int64_t> reps;      // passes over the tile, per dimension (>= 1)
  /// Static offset of element e_d of a pass along d (blocked: e; mma rows: 8e; ...).
  llvm::SmallVector<llvm::SmallVector<int64_t>> elemOffset;

  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
  int64_t numRegs() const;
  /// Register r as (pass index, element index) per dimension: passes outer,
  /// row-major; elements inner, row-major.
  void decompose(int64_t r, llvm::SmallVectorImpl<int64_t> &rep, llvm::SmallVectorImpl<int64_t> &e) const;
  int64_t compose(llvm::ArrayRef<int64_t> rep, llvm::ArrayRef<int64_t> e) const;
  /// Offset of register r along d from the thread's base, before the modulo.
  int64_t offset(int64_t r, unsigned d) const;
  /// Whether positions along d wrap around the extent (the passes cover more than it: a
  /// tile smaller than one pass, or an extent that is not a multiple of the pass).
  bool wraps(unsigned d) const;
  /// Whether the threads along d that share the other coordinates hold each element of d
  /// exactly once between them (the extent a multiple of the pass): what a reduction
  /// across lanes along d needs.
  bool coversOnce(unsigned d) const;
};

/// The register layout of `layout` over `shape`, or nullopt with `why` set (an mma or
/// dot-operand layout over a shape that is neither a multiple nor a divisor of its pass; a
/// blocked layout covers any shape, wrapping around: RegisterLayout::wraps).
std::optional<RegisterLayout> registerLayout(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                                             std::string *why = nullptr);

/// Threads the layout spreads over (its warps times 32).
int64_t threadsOf(mlir::Attribute layout);

/// 32-bit registers a thread holds for the tile `t` (its layout's registers times the
/// element's width: two 16-bit elements a register), or nullopt when `t` has no register
/// layout.
std::optional<int64_t> registersPerThread(mlir::RankedTensorType t);

/// The power of two (at most 1024) that a tile.load's last offset and extent are both
/// known to be multiples of (constants, `@aligned` facts, loop steps); 1 when its last
/// dimension is squeezed. A vector access along that dimension is at most this wide.
int64_t loadLastDimDivisibility(mlir::Operation *load);

} // namespace ph::tilegpu
