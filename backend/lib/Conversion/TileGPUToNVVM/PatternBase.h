//===- PatternBase.h - What every TileGPU -> NVVM pattern shares -*- C++ -*-===//
//
// Tiles in a register layout become LLVM structs of the elements a thread
// holds, in RegisterLayout's register order (Layouts.h); shared buffers become
// `!llvm.ptr<3>`, global tensors `!llvm.ptr<1>`. Each op family's patterns
// (one file each) unpack their operands, work register by register with the
// layout's positions, and pack their results.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Dialect/Tile/Divisibility.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace ph::tilegpu {

/// tensor<..., #layout> -> !llvm.struct<(elem x registers)>, memdesc -> ptr<3>, tile.ptr -> ptr<1>.
class TileGPUTypeConverter : public mlir::TypeConverter {
public:
  explicit TileGPUTypeConverter(mlir::MLIRContext *ctx);
};

/// The struct's elements as values.
llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s);
/// A struct of `type` from its elements.
mlir::Value pack(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::ValueRange elems);

/// A 1-D vector of `elems` (mma.sync's and wgmma's 16-bit pairs) as LLVM ops: poison, then an
/// llvm.insertelement per element at an i64 index, what vector.from_elements lowers to. Built
/// so here, the fragments skip the vector dialect and its conversion in to-nvvm.
mlir::Value vectorOf(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange elems);

mlir::Value cIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);

/// The thread's base position along each dimension (index values) for `layout`.
llvm::SmallVector<mlir::Value> threadBase(mlir::OpBuilder &b, mlir::Location loc, mlir::Attribute layout,
                                          const RegisterLayout &rl);
/// Register r's position along d: (base_d + offset) mod shape_d.
mlir::Value position(mlir::OpBuilder &b, mlir::Location loc, const RegisterLayout &rl,
                     llvm::ArrayRef<mlir::Value> base, int64_t r, unsigned d);

/// The register layout of a tile type (its encoding over its shape); asserts it has one.
RegisterLayout layoutOfType(mlir::Type t);

/// The largest power of two (up to 1024) known to divide an integer value
/// (ph/Dialect/Tile/Divisibility.h).
using ph::tile::divisibility;
/// What convert-tilegpu-to-nvvm noted on a slice access before converting: the
/// divisibility of its last dimension's start and extent (1 when not noted).
int64_t lastDimDivisibility(mlir::Operation *access);
/// Notes it on every tile.load, tile.store and tilegpu.async_copy under `root`.
void noteDivisibility(mlir::Operation *root);

// One populate function per op family.
/// `causalMaskDiff`: convert-tilegpu-to-nvvm's causal-mask-diff (MaskPattern, ElementwiseToNVVM.cpp).
/// `wgmmaFastExp`, `expFtz`: convert-tilegpu-to-nvvm's wgmma-fast-exp and exp-ftz (MmaExpPattern).
void populateElementwisePatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p, bool causalMaskDiff,
                                 bool wgmmaFastExp, bool expFtz = false);
void populateReducePatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);
void populateLoadStorePatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);
void populateSharedPatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);
void populateConvertLayoutPatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);
void populateDotMMAv2Patterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);
/// `operandsBeforeFence`: convert-tilegpu-to-nvvm's wgmma-operands-before-fence.
void populateDotWGMMAPatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p, bool operandsBeforeFence = false);
void populateDotFMAPatterns(TileGPUTypeConverter &tc, mlir::RewritePatternSet &p);

} // namespace ph::tilegpu
