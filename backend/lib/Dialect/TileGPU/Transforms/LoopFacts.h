//===- LoopFacts.h - What the TileGPU passes ask of a kernel's loops -----------===//
#pragma once

#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace ph::tilegpu {

/// The dot of `loop` that carries its accumulator from one iteration to the
/// next with nothing else reading it (a GEMM's K loop), or null. Such a dot may
/// be left in flight (tilegpu-pipeline) or split into K steps whose fragments
/// are read a step ahead (tilegpu-prefetch-fragments); attention's P V reads a
/// rescaled accumulator and is not one.
DotOp chainedAccumulatorDot(mlir::scf::ForOp loop);

/// Whether `loop`'s body has FMA dots (blocked layouts) and every dot in it is a
/// vector-matrix product (A has one row: flash-decoding with one query a key-value head).
/// Such a loop streams its operands, each element used once: tilegpu-pipeline leaves
/// them to registers, which tilegpu-prefetch-loads reads a block ahead.
bool vectorDotLoop(mlir::scf::ForOp loop);

} // namespace ph::tilegpu
