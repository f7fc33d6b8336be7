//===- Emit.h - A kernel printed at each stage of its compilation -*- C++ -*-===//
//
// What `ph emit`, the editor's "show IR" command and the tests use. No MLIR
// type appears here (the driver includes it cheaply); the stages themselves
// live in backend/lib (Emit/, Target/Cpu, Target/Gpu).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"

#include <string>
#include <string_view>
#include <vector>

namespace ph {
class SourceManager;
} // namespace ph

namespace ph::backend {

/// The stages in pipeline order. Gpu and Ptx come from the GPU target, which
/// registers them when it is built in (backend/lib/Target/Gpu); until then
/// asking for them is an error that says so.
enum class Stage {
  Kir,    ///< the checked, inlined, specialised kernel (kir::print)
  Tile,   ///< the tile dialect, target-independent
  TileGpu,///< the tile dialect with GPU layouts, shared buffers and async copies (`tilegpu`)
  Cpu,    ///< the CPU target's loops: scf, memref, arith, math
  Llvm,   ///< the LLVM dialect
  LlvmIR, ///< LLVM IR (`llvm-ir`)
  Gpu,    ///< the GPU target's gpu/nvvm dialects
  GpuLlvm,///< the GPU kernel in the LLVM and NVVM dialects (`gpu-llvm`), what NVPTX translates
  Ptx,    ///< PTX assembly
  Asm,    ///< the CPU target's host assembly (what the JIT runs)
};

const char *stageName(Stage s);
bool parseStage(std::string_view name, Stage &out);
/// `kir|tile|tilegpu|cpu|llvm|llvm-ir|asm|gpu|gpu-llvm|ptx`, for usage messages.
std::string stageNames();

/// One op of a stage's printed MLIR whose location names a source range: the
/// printer's own record of the line it printed the op on (MLIR's
/// AsmState::LocationMap), so nothing re-reads `loc(...)` text to find it. A
/// loop or a function is at its header line.
struct PrintedOp {
  int irLine = 0;  ///< 1-based line of the stage's text
  std::string op;  ///< `tile.dot`, `scf.for`
  std::string file;
  int line = 0, col = 0, endLine = 0, endCol = 0; ///< 1-based; the end is exclusive
};

struct EmitOptions {
  /// Resolves kir source ranges to `file:line:col` locations; without it
  /// locations are unknown.
  const SourceManager *sources = nullptr;
  /// Print MLIR locations (`loc(...)`). Off by default so that two kernels
  /// computing the same thing print identically.
  bool debugInfo = false;
  /// The GPU stages' architecture (`--target sm_90a`); empty: the GPU present, else sm_90.
  std::string arch;
  /// When set, the MLIR stages append each located op they print, in line order
  /// (`ph emit --json`'s `lines`). LLVM IR, PTX and assembly add nothing.
  std::vector<PrintedOp> *printed = nullptr;
  /// When set, a stage that fails appends the registry diagnostic its target
  /// gives for the same failure (GPU: E0501, E0503, E0504 as `ph build`; CPU:
  /// E0506 as `ph run --target cpu`; at the op, with its notes); `err` still says
  /// it in words. Empty when the failure has no located op.
  std::vector<Diagnostic> *diagnostics = nullptr;
};

/// The kernel at `stage` as text, or "" with `err` set.
std::string emitStage(const kir::Kernel &k, Stage stage, std::string &err,
                      const EmitOptions &opts = {});

} // namespace ph::backend
