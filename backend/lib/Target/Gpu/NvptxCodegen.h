//===- NvptxCodegen.h - A gpu.module of NVVM/LLVM ops -> PTX ------*- C++ -*-===//
//
// What MLIR's gpu-module-to-binary (format isa) does for a module that links
// no bitcode library, done here so that its steps are ours to time and to
// tune: translation to LLVM IR, LLVM's IR pipeline, the NVPTX backend. The
// target machine is made once per thread and architecture instead of once
// per variant. With the defaults the PTX is byte-identical to the pass's
// (tests/lit/gpu/own-codegen.test); PH_GPU_OPT_LEVEL, PH_GPU_SLP and
// PH_GPU_PASSES change the IR pipeline (docs/compile.md).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
}

namespace ph::backend {

struct NvptxOptions {
  std::string arch;     // sm_90, sm_90a, ...
  std::string features; // "+ptx80" or empty
  /// Bitcode linked in before the IR pipeline, only what the module calls
  /// (libdevice: gpu-module-to-binary links the toolkit's into every module).
  std::vector<std::string> libraries;
};

/// The LLVM IR pipeline's level, PH_GPU_OPT_LEVEL (0-3, default 3: what
/// gpu-module-to-binary runs, `#nvvm.target<O = 3>`).
unsigned gpuOptLevel();

/// True when the PTX of a module comes from gpuModuleToPtx (PH_GPU_CODEGEN=mlir
/// keeps MLIR's gpu-module-to-binary, for comparisons).
bool ownNvptxCodegen();

/// Ends one step of the compile (`ph build --time`): `llvm-ir`, `llvm-opt`, `nvptx`.
using StepMark = std::function<void(const char *)>;

/// `gpuModule` (a gpu.module of LLVM and NVVM dialect ops) -> PTX text. False with `err` set when a step fails.
/// The translation's MLIR diagnostics go to the context's handlers: call it under a
/// LoweringCapture (Target/LoweringDiagnostics.h), which keeps their ops' ranges.
bool gpuModuleToPtx(mlir::Operation *gpuModule, const NvptxOptions &opts, std::string &ptx, std::string &err,
                    const StepMark &mark);

} // namespace ph::backend
