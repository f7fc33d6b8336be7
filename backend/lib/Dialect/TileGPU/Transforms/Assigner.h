//===- Assigner.h - What tilegpu-assign-layouts' files share ---*- C++ -*-===//
//
// tilegpu-assign-layouts runs one Assigner per kernel: choose a policy
// (LayoutPolicy.cpp), anchor and spread layouts (LayoutPropagation.cpp), then
// rewrite the kernel's types and put conversions where users disagree
// (LayoutRewrite.cpp). The layouts it builds (BlockedLayouts.cpp) and the
// walks that say which values must share one (LayoutSharing.cpp) are plain
// functions, so that a layout's shape can be read apart from where it is used.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Backend/Arch.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <utility>

namespace ph::tilegpu::assign {

// BlockedLayouts.cpp: the SIMT layouts.

int64_t elemBytes(mlir::Type t);
int64_t pow2AtMost(int64_t n);
/// The largest power of two that divides n (n > 0).
int64_t pow2Dividing(int64_t n);
/// A coalesced layout over `threads` threads, vectors capped at `maxVec` elements.
mlir::Attribute defaultBlocked(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, mlir::Type elem,
                               int64_t threads, int64_t maxVec = 16);
/// The layout of a tile whose rows are reduced: each row group within one warp.
mlir::Attribute rowBlocked(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, mlir::Type elem, int64_t threads,
                           int64_t maxVec = 16, bool splitCols = false);
/// The layout of a tile whose columns are reduced (colsum, colmax).
mlir::Attribute colBlocked(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape, mlir::Type elem, int64_t threads);
/// The SIMT policy's dot result, an [m, n] tile.
mlir::Attribute fmaBlocked(mlir::MLIRContext *ctx, int64_t m, int64_t n, int64_t threads, bool rowsReduced);

// LayoutSharing.cpp: which values share a layout, and what a value is computed from.

bool isElementwise(mlir::Operation *op);
/// Ops whose tile result may take whatever layout its users want.
bool isLayoutFree(mlir::Operation *op);
/// Ops whose result and tile operands share one layout.
bool sharesLayout(mlir::Operation *op);
/// The dot whose result `v` is computed from in registers, or null.
tile::DotOp dotBehind(mlir::Value v);
bool fromDotResult(mlir::Value v);
/// The narrowest element and the alignment of the loads a row reduction's `v` is computed from.
std::pair<mlir::Type, int64_t> loadsBehindReduction(mlir::Value v);
/// Whether rows of `v`, or of a tile computed from it, are reduced.
bool rowsReducedFrom(mlir::Value v);

class Assigner {
public:
  Assigner(mlir::func::FuncOp f, const backend::GpuArch &arch, llvm::StringRef policy, int64_t threads, bool checkDotK,
           bool rowLoadVectors, bool splitRowWarps)
      : f_(f), ctx_(f.getContext()), arch_(arch), policy_(policy), threads_(threads), checkDotK_(checkDotK),
        rowLoadVectors_(rowLoadVectors), splitRowWarps_(splitRowWarps) {}

  mlir::LogicalResult run();

private:
  // LayoutPolicy.cpp.
  bool wantsMma();
  mlir::LogicalResult chooseMma();
  bool chooseWgmma();
  // LayoutPropagation.cpp.
  void propagate();
  /// Spreads the layouts set so far to the values that share them, to a fixpoint.
  void spread();
  // LayoutPolicy.cpp.
  mlir::LogicalResult check();
  // LayoutRewrite.cpp.
  void rewrite();
  void set(mlir::Value v, mlir::Attribute a) {
    if (mlir::isa<mlir::RankedTensorType>(v.getType()) && !layout_.count(v)) {
      layout_[v] = a;
      changed_ = true;
    }
  }
  mlir::Attribute get(mlir::Value v) const { return layout_.lookup(v); }
  // LayoutRewrite.cpp.
  mlir::Value convertTo(mlir::Value v, mlir::Attribute want, mlir::OpBuilder &b);
  mlir::Value convertAt(mlir::Value v, mlir::Attribute want, mlir::OpBuilder &b);
  // LayoutPropagation.cpp.
  /// The layout of the dot result `v` is computed from through ops that share one layout.
  mlir::Attribute dotLayoutBehind(mlir::Value v) const;

  mlir::func::FuncOp f_;
  mlir::MLIRContext *ctx_;
  const backend::GpuArch &arch_;
  std::string policy_;
  int64_t threads_;
  bool checkDotK_;
  bool rowLoadVectors_;
  bool splitRowWarps_;
  MmaEncodingAttr mma_;
  llvm::DenseMap<mlir::Value, mlir::Attribute> layout_;
  llvm::DenseMap<std::pair<mlir::Value, mlir::Attribute>, mlir::Value> converted_;
  bool changed_ = false;
};

} // namespace ph::tilegpu::assign
