//===- PtxasDiagnostics.h - ptxas failures as registry diagnostics -*- C++ -*-===//
//
// Private to backend/lib/Target/Gpu. ptxas knows PTX lines only (the PTX has no
// `.loc`): its errors become E0505 (PtxasFailed) at the kernel, with a note per
// error. The MLIR passes' failures are Target/LoweringDiagnostics.h's.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"

#include <string>
#include <vector>

namespace ph::backend {

/// One `error` line of a failed ptxas run: the PTX line it names (0: none) and its words.
struct PtxasError {
  int ptxLine = 0;
  std::string message;
};

/// The `error` lines of ptxas's log (the rest of its -v report is the kernel's resources);
/// its first `fatal` line when it has none. Never empty.
std::vector<PtxasError> ptxasErrors(const std::string &log);

/// E0505 (PtxasFailed) for a failed ptxas run on `ptx`, at the kernel (PTX carries no
/// source lines): the first error in the message; a note per error with ptxas's words,
/// the PTX line it names and that line's text; the configuration as a note.
Diagnostic ptxasDiagnostic(const std::string &log, const std::string &ptx, const std::string &arch,
                           const kir::Kernel &k);

} // namespace ph::backend
