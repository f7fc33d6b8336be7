//===- TileToGPU.h - The SIMT lowering of the tile dialect (MLIR) -*- C++ -*-===//
//
// Private to backend/lib. Rewrites a kernel's func.func of tile ops into a
// gpu.module holding one gpu.func: every tile lives in shared memory (one
// dynamic shared-memory block, carved by a liveness-based allocator), every
// tile op becomes a loop over its elements spread across the CTA's threads
// followed by a barrier, and loads/stores go to global memory through
// !llvm.ptr<1> with the tile ops' masks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace ph::simt {

struct SimtOptions {
  int threads = 128;
  /// 32-bit registers per thread a loop may hold for loads issued an iteration ahead.
  int prefetchRegisters = 64;
  /// Bytes of a row dot's k loop reads per step and operand (16: one 16-byte load).
  int dotStepBytes = 16;
  /// Single-use elementwise ops computed where they are read, without a pass of their own.
  bool lazyElementwise = true;
  /// Shared memory a CTA may use on the target (bytes).
  int64_t sharedLimit = 232448;
  std::string arch = "sm_90";
};

struct SimtResult {
  int64_t sharedBytes = 0;   // the dynamic shared memory the kernel needs
  int64_t largestBytes = 0;  // the largest tile
  std::string largestTile;   // `tensor<64x64xf32>` at file:line:col
  std::string largestFile;   // where the largest tile is made (empty: unknown)
  unsigned largestLine = 0, largestCol = 0;
  bool sharedExceeded = false;
  std::string kernelName;    // the gpu.func's name
  /// True when the size arguments are `index` (64-bit) rather than i32.
  bool sizeArgs64 = false;
};

/// Converts the (single) tile kernel of `module` in place. On failure returns
/// false with `err` set; when the shared memory limit is what failed,
/// `result.sharedExceeded` is set and the message is left to the caller.
bool convertTileToSimt(mlir::ModuleOp module, const SimtOptions &opts, SimtResult &result, std::string &err);

} // namespace ph::simt
