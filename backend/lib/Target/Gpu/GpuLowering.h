//===- GpuLowering.h - The GPU target's lowering steps -*- C++ -*-===//
//
// Private to backend/lib/Target/Gpu. The steps compileForGpu (GpuTarget.cpp) runs,
// shared with `ph emit`'s GPU stages (GpuStages.cpp) so that a stage lowers a
// kernel exactly as `ph build` does and fails with the same diagnostic.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "NvptxCodegen.h"
#include "TileGpuPipeline.h"
#include "Target/LoweringDiagnostics.h"
#include "ph/Backend/GpuTarget.h"
#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <string>
#include <vector>

namespace ph {
class SourceManager;
}

namespace ph::backend {

/// fp8 tensors as their bits, fp8 conversions as integer arithmetic (tile-fp8-to-bits): no GPU
/// lowering has fp8 registers. A module without fp8 is left as it is.
bool fp8ToBits(mlir::ModuleOp m, std::string &err);

/// The tensor-core policies for a @tensorcore kernel, in place: `used` when one took the
/// kernel (the module is then a gpu.module), else `why` says why not and the module is
/// unchanged for the SIMT policy (W0501). False only when PH_GPU_LOWERING=tilegpu forbids
/// that fallback.
bool tryTileGpu(mlir::ModuleOp m, const kir::Kernel &k, const std::string &arch, TileGpuResult &tg, bool &used,
                std::string &why, std::string &err);

/// The TileGPU SIMT policy, in place, for every kernel the tensor-core policies did not take.
/// False when a pass fails (`tg.diags` says why) or the buffers pass the CTA's shared memory
/// (`tg.sharedBytes`: E0501).
bool toSimtPolicy(mlir::ModuleOp m, const std::string &arch, TileGpuResult &tg, std::string &err);

/// Whether the tile module has a dot.
bool hasDot(mlir::ModuleOp m);

/// The lowered gpu.module -> NVVM and LLVM dialects, with the NVVM target attached.
bool toNvvm(mlir::ModuleOp m, const std::string &arch, std::string &err, mlir::TimingScope *timing = nullptr,
            std::vector<LoweringDiag> *diags = nullptr);

/// NVVM module -> PTX text (NvptxCodegen.h's steps, each a `mark`).
bool toPtx(mlir::ModuleOp m, std::string &ptx, std::string &err, mlir::TimingScope *timing = nullptr,
           std::vector<LoweringDiag> *diags = nullptr, const StepMark &mark = {});

Diagnostic makeDiag(DiagKind kind, SourceRange range, std::vector<std::string> args);

/// A lowering step failed: the registry diagnostic at the op whose error (or, with `warnings`,
/// whose layout policy's reason) has a source range, plus `context` as a note at the kernel.
void loweringFailed(GpuBinary &out, const std::vector<LoweringDiag> &diags, const kir::Kernel &k,
                    const SourceManager *sources, bool warnings, const std::string &context);

/// E0501 for a kernel whose buffers need more shared memory than `arch` allows: at the
/// largest buffer when its source is known, with the kernel as a note.
Diagnostic sharedExceededDiagnostic(const kir::Kernel &k, const TileGpuResult &tg, const std::string &arch,
                                    const SourceManager *sources);

} // namespace ph::backend
