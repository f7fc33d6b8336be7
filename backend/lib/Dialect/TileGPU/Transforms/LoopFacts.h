//===- LoopFacts.h - What the TileGPU passes ask of a kernel's loops -----------===//
#pragma once

#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace ph::tilegpu {

/// The dot of `loop` that carries its accumulator from one iteration to the
/// next with nothing else reading it (a GEMM's K loop), or null. Such a dot may
/// be left in flight (tilegpu-pipeline) or split into K steps whose fragments
/// are read a step ahead (tilegpu-prefetch-fragments); attention's P V reads a
/// rescaled accumulator and is not one.
DotOp chainedAccumulatorDot(mlir::scf::ForOp loop);

/// Whether `d` runs on the FMA units: the SIMT policy's dot, in a blocked layout, which
/// reads its operands from shared memory (tilegpu-through-shared).
bool isFmaDot(DotOp d);

/// Whether `loop`'s body has FMA dots (blocked layouts) and every dot in it is a
/// vector-matrix product (A has one row: flash-decoding with one query a key-value head).
/// Such a loop streams its operands, each element used once: tilegpu-pipeline leaves
/// them to registers, which tilegpu-prefetch-loads reads a block ahead.
bool vectorDotLoop(mlir::scf::ForOp loop);

/// The loads of `loop`'s body tilegpu-prefetch-loads reads a block ahead (PrefetchLoads.cpp):
/// none when the body writes memory or holds TileGPU ops other than layout conversions (FMA
/// dots too, with `fmaDots`) or a nested loop; else, in body order, each whose address comes
/// from the induction variable and loop invariants, while their registers stay within
/// `maxRegs`. `slice`: the pure ops their addresses are computed by.
llvm::SmallVector<tile::LoadOp> prefetchableLoads(mlir::scf::ForOp loop, int64_t maxRegs, bool fmaDots,
                                                  llvm::SetVector<mlir::Operation *> *slice = nullptr);

} // namespace ph::tilegpu
