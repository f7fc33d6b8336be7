//===- MmaCodegen.h - `@tensorcore`: tiles in mma.sync registers -*- C++ -*-===//
//
// Private to backend/lib. The tensor-core lowering of a `@tensorcore` kernel:
// dot results and every tile computed elementwise from them live in the
// registers of the m16n8k16 accumulator layout, loaded tiles in shared memory
// (filled with cp.async, read with ldmatrix). A kernel it cannot lay out this
// way is left untouched for the SIMT lowering, with the reason.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "TileToGPU.h"

#include <string>
#include <vector>

namespace ph::simt {

/// A source range as MLIR's FileLineColRange carries it (1-based; 0 when unknown).
struct LocSpan {
  std::string file;
  int line = 0, col = 0, endLine = 0, endCol = 0;
};

struct MmaReport {
  /// Why the kernel stays on the SIMT path (empty when it is not `@tensorcore`).
  std::string why;
  /// Where each tile lives, in program order: "`tensor<64x32xf32>` at f.ph:3:5: registers".
  std::vector<std::string> placements;
  /// The same, as data (the manifest's `tiles`).
  struct Tile {
    std::string type; // `tensor<64x32xf32>`
    LocSpan at;
    bool registers = false;
  };
  std::vector<Tile> tiles;
  int registerTiles = 0, sharedTiles = 0;
};

/// Converts the single kernel of `module` when it is `@tensorcore` and every
/// tile fits the register layout; returns false (module unchanged, `report.why`
/// set) otherwise.
bool convertTileToMma(mlir::ModuleOp module, const SimtOptions &opts, SimtResult &result, MmaReport &report);

} // namespace ph::simt
