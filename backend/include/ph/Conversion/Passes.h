//===- Passes.h - Tile dialect lowerings and pipelines ----------*- C++ -*-===//
//
// The passes of the CPU target and the two pipelines `ph emit --stage cpu`
// and `--stage llvm` run. Includes MLIR: only for backend sources and ph-opt.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ph::tile {

#define GEN_PASS_DECL
#include "ph/Conversion/Passes.h.inc"

/// tile -> loops (scf, memref, arith, math, llvm pointer ops): `tile-to-loops`.
void buildTileToLoopsPipeline(mlir::OpPassManager &pm);
/// loops -> LLVM dialect: `tile-loops-to-llvm`.
void buildLoopsToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers the passes and the pipelines `tile-to-loops`,
/// `tile-loops-to-llvm` and `tile-to-llvm` for ph-opt.
void registerPasses();

/// Every dialect, interface and extension the pipelines need (tile, the
/// upstream dialects, bufferization models, LLVM translation interfaces).
void registerDialects(mlir::DialectRegistry &registry);

} // namespace ph::tile
