//===- TileGpuPipeline.h - The TileGPU passes as the GPU target runs them -*- C++ -*-===//
//
// Private to backend/lib/Target/Gpu. tile -> layouts (a policy per
// architecture) -> shared buffers and cp.async pipelines -> offsets -> a
// gpu.func of NVVM and LLVM ops. It lowers every kernel: the tensor-core policies
// (mma.sync, wgmma) a @tensorcore kernel's dots, the SIMT policy the rest.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Target/LoweringDiagnostics.h"
#include "ph/Runtime/Manifest.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace ph::backend {

enum class GpuLowering { Auto, TileGpu };
/// PH_GPU_LOWERING: auto (default), tilegpu (a @tensorcore kernel no tensor-core policy
/// takes is an error instead of W0501 and the SIMT policy). `legacy`, which chose the legacy
/// SIMT emitter until it was deleted (2026-12-06), reads as auto.
GpuLowering gpuLowering();

struct TileGpuResult {
  std::string policy;                   // "wgmma", "mma" or "simt" (assign-layouts' choice)
  std::vector<LoweringDiag> diags;      // the passes' errors and warnings as data, with the ops' ranges
  std::vector<std::string> placements;  // "`tensor<...>` at f.ph:3:5: registers (mma)"
  std::vector<rt::TilePlacement> tiles; // the same as data (the manifest's `tiles`)
  int registerTiles = 0, sharedTiles = 0;
  int64_t sharedBytes = 0;
  /// The largest shared buffer (a ring counts all its stages): its tile, bytes and source,
  /// which E0501 names when the kernel's buffers pass the CTA's limit.
  std::string largestShared;
  int64_t largestSharedBytes = 0;
  rt::SourceSpan largestSharedAt;
  std::string kernelName;
  /// tilegpu-persistent wrapped the kernel in a loop over its tiles (the manifest's `persistent`).
  bool persistent = false;
  /// A tensor-core policy took the kernel (mma.sync or wgmma).
  bool tensorCores() const { return policy == "mma" || policy == "wgmma"; }
  /// Why the mma policy could not place the kernel: the warnings among `diags`, as
  /// `file:line:col: message` (a note of `ph build`, a comment of `ph emit --stage tilegpu`).
  std::vector<std::string> warnings() const;
  /// The matrix instruction it runs, for notes and `ph emit`'s header.
  const char *instruction() const { return policy == "wgmma" ? "wgmma" : "mma.sync"; }
};

/// Writes `k`'s grid (how it follows from the sizes) on the module's kernel as `tilegpu.grid`,
/// which tilegpu-persistent reads.
void setGridAttr(mlir::ModuleOp m, const kir::Kernel &k);

/// The threads the lowering launches: `written` (the kernel's own or default count), or what the
/// target gave it (two warpgroups for attention that one would not hold, a producer warpgroup).
int launchedThreads(mlir::ModuleOp m, int written);

/// Assigns layouts, then (`lower`) pipelines, allocates and converts to NVVM in
/// place. Returns false with `err` set when a pass fails; `res.policy` says
/// which policy took the kernel.
/// `lowerSimt`: also lower a kernel the SIMT policy took (blocked layouts); without it
/// such a kernel stops after its layouts (tryTileGpu asks the tensor-core policies first).
/// `compactRings`: every ring at 2 stages, none deepened (a retry for a kernel whose
/// default rings do not fit the CTA's shared memory).
bool runTileGpu(mlir::ModuleOp m, const std::string &arch, bool lower, TileGpuResult &res, std::string &err,
                bool lowerSimt = false, bool compactRings = false);

} // namespace ph::backend
