//===- CpuTarget.h - Compile and run a kernel on the CPU --------*- C++ -*-===//
//
// The CPU target: tile dialect -> loops -> LLVM, JIT-compiled in process with
// MLIR's ExecutionEngine; the grid runs as a loop over CTAs. No MLIR type
// appears in this header (PIMPL), so the driver includes it cheaply.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"
#include "ph/Launch.h"

#include <memory>
#include <string>
#include <vector>

namespace ph {
class SourceManager;
} // namespace ph

namespace ph::backend {

class CpuKernel {
public:
  virtual ~CpuKernel() = default;
  /// Runs every CTA of args.grid. Returns "" or an error.
  virtual std::string launch(const LaunchArgs &args) = 0;
};

/// Compiles one specialised kernel. On failure returns nullptr and sets `error`
/// (`file:line:col: message` when `sources` resolves the kernel's ranges); a
/// lowering pass that failed at an op also appends E0506 (CpuLoweringFailed) at
/// that op's range, with the kernel as a note, to `diags` when given.
std::unique_ptr<CpuKernel> compileForCpu(const kir::Kernel &k, std::string &error,
                                         const SourceManager *sources = nullptr,
                                         std::vector<Diagnostic> *diags = nullptr);

} // namespace ph::backend
