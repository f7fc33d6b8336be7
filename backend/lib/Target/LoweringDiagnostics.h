//===- LoweringDiagnostics.h - Lowering failures as registry diagnostics -*- C++ -*-===//
//
// Private to backend/lib (Emit, Target/Cpu, Target/Gpu). The passes of both
// targets (the CPU's loops and LLVM pipelines; TileGPU, the NVVM conversion and
// the NVPTX backend) report through MLIR's diagnostics, at the location of the
// op that failed: the frontend's range as a FileLineColRange (KirToTile). Here
// those become data (LoweringDiag, captured by a ScopedDiagnosticHandler, never
// re-read from text), and then the frontend's Diagnostic (E0503
// LayoutUnsupported, E0504 GpuLoweringFailed, E0506 CpuLoweringFailed) with the
// op's SourceRange, so that `ph build`, `ph run`, `ph emit`, ph-lsp and every
// client see where the lowering stopped instead of the kernel's whole range.
// The GPU's ptxas failures (E0505) are in Gpu/PtxasDiagnostics.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"
#include "ph/Runtime/Manifest.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ph {
class SourceManager;
}

namespace ph::backend {

/// One MLIR diagnostic as data.
struct LoweringDiag {
  bool error = true;   // else a warning: a layout policy's reason for not taking a tile
  std::string message; // MLIR's message, without the location
  rt::SourceSpan at;   // the op's source range; `file` is empty when the op has none
  std::vector<std::pair<rt::SourceSpan, std::string>> notes;
};

/// The first FileLineColRange inside `loc` (fused, named and call-site locations are walked).
rt::SourceSpan spanOf(mlir::Location loc);

/// Records the errors and warnings raised on a context while it lives, as LoweringDiags,
/// and (when given) as `file:line:col: message` lines in `text`, what `ph emit` prints.
/// Installed after the handlers of enclosing code, so it sees the diagnostics first.
class LoweringCapture {
public:
  LoweringCapture(mlir::MLIRContext *ctx, std::vector<LoweringDiag> &out, std::string *text = nullptr);

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// The frontend range of a span: the file found by path among `sources`, the
/// 1-based lines and columns turned back into byte offsets. Nullopt when unknown.
std::optional<SourceRange> rangeOf(const rt::SourceSpan &s, const SourceManager *sources);

/// The first error among `diags` that has a source range, else (when `warnings`) the
/// first such warning; null when none has one.
const LoweringDiag *firstLocated(const std::vector<LoweringDiag> &diags, const SourceManager *sources,
                                 bool warnings = false);

/// `kind` (E0503 LayoutUnsupported, E0504 GpuLoweringFailed or E0506 CpuLoweringFailed, with MLIR's message as
/// its argument) at the op that failed, with MLIR's notes, then "in kernel `k`" and the
/// configuration as notes at the kernel.
Diagnostic loweringDiagnostic(DiagKind kind, const LoweringDiag &d, const kir::Kernel &k,
                              const SourceManager *sources);

/// The errors among `diags` as MLIR prints them, each with its notes; "" when none.
std::string errorText(const std::vector<LoweringDiag> &diags);

/// A failure that no op's location names (a pass that failed on the whole module, LLVM's
/// JIT): `kind` (E0504, E0506) at the kernel, the best range there is, its argument
/// `headline` and the first line of `text`, "in configuration ..." when autotuned, and a
/// note at the kernel that carries the whole `text` after `source` ("MLIR", "LLVM").
Diagnostic kernelDiagnostic(DiagKind kind, const std::string &text, const std::string &source, const kir::Kernel &k,
                            const std::string &headline = "");

/// "in kernel `k`" at the kernel (when `d` is not already there) and "in configuration ..."
/// when the kernel is autotuned: the notes every lowering diagnostic ends with.
void addKernelNotes(Diagnostic &d, const kir::Kernel &k);

} // namespace ph::backend
