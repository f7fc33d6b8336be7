//===- Stages.h - Building blocks of the backend's stages (MLIR) -*- C++ -*-===//
//
// Private to backend/lib. A target adds `ph emit` stages by filling a
// StageRegistry: the CPU target's are in Emit.cpp, the GPU target's in
// backend/lib/Target/Gpu (registerGpuStages, compiled in when present).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Backend/Emit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace mlir {
class MLIRContext;
class OpPassManager;
class TimingScope;
} // namespace mlir
namespace llvm {
class Error;
class Module;
class TargetMachine;
enum class CodeGenOptLevel;
} // namespace llvm

namespace ph::backend {

struct LoweringDiag;

/// A context with the tile dialect and every upstream dialect, extension
/// and LLVM translation interface the pipelines use; single-threaded (the
/// kernels are small, and thread pools cost more than they save here).
std::unique_ptr<mlir::MLIRContext> makeContext();

/// kir -> tile dialect: one func.func per kernel, verified and canonicalised.
/// Returns null with `err` set on failure.
mlir::OwningOpRef<mlir::ModuleOp> kirToTile(mlir::MLIRContext &ctx, const kir::Kernel &k,
                                            const SourceManager *sources, std::string &err);

/// The verifier after every pass: in builds with assertions, or with
/// PH_VERIFY_EACH_PASS=1 (a release build verifies each pipeline's input once).
bool verifyEachPass();

/// Runs the passes `build` adds on `module`; the errors go to `err` as
/// `file:line:col: message` lines and, when `diags` is given, to it as data with
/// each op's range (Target/LoweringDiagnostics.h). With `timing`, each pass's time
/// is recorded under it (`ph build --time-passes`).
bool runPipeline(mlir::ModuleOp module, const std::function<void(mlir::OpPassManager &)> &build,
                 std::string &err, mlir::TimingScope *timing = nullptr,
                 std::vector<LoweringDiag> *diags = nullptr);

/// Prints an op (a module) without or with locations at the end of `out`, and
/// records in `opts.printed` (when set) the line of each op that has a source
/// location, counted from the start of `out` (a stage's header comments first).
void appendOp(std::string &out, mlir::Operation *op, const EmitOptions &opts);

/// A stage past the tile dialect: lowers `module` (the tile stage, owned by
/// the caller, changed in place) and sets `out` to its text.
using StageFn = std::function<bool(mlir::ModuleOp module, const kir::Kernel &k,
                                   const EmitOptions &opts, std::string &out, std::string &err)>;
using StageRegistry = std::map<Stage, StageFn>;

/// The CPU target's LLVM optimisation level (CpuTarget.cpp): PH_CPU_OPT_LEVEL
/// 0 (none), 1 (default: a light pipeline, fast instruction selection), 2, 3
/// (LLVM's -O2, -O3).
unsigned cpuOptLevel();
llvm::CodeGenOptLevel cpuCodeGenLevel(unsigned opt);
/// What runs on the LLVM module before code generation at level `opt`
/// (PH_CPU_PASSES replaces level 1's pipeline, for experiments).
std::function<llvm::Error(llvm::Module *)> cpuTransformer(unsigned opt, llvm::TargetMachine *tm);

/// How far lowerForCpu takes a tile module: to loops (`ph emit --stage cpu`) or on
/// to the LLVM dialect (the JIT, `--stage llvm` and after).
enum class CpuLowering { Loops, Llvm };

/// The CPU target's lowering of `module` in place (CpuTarget.cpp), for the JIT and
/// for `ph emit`'s CPU stages alike. A pass that fails at a located op is E0506
/// (CpuLoweringFailed) at that op's range with the kernel as a note, appended to
/// `diags` when given, as the GPU target reports its lowering failures
/// (Target/LoweringDiagnostics.h); `err` says it in words either way. The
/// test-only PH_TEST_CPU_NO_LOWERING=1 makes it refuse the kernel's first tile op.
bool lowerForCpu(mlir::ModuleOp module, const kir::Kernel &k, CpuLowering upTo, const SourceManager *sources,
                 std::string &err, std::vector<Diagnostic> *diags);

/// cpu, llvm, llvm-ir, asm (Emit.cpp).
void registerCpuStages(StageRegistry &r);
#ifdef PH_HAVE_GPU_TARGET
/// gpu, gpu-llvm, ptx (backend/lib/Target/Gpu).
void registerGpuStages(StageRegistry &r);
#endif

} // namespace ph::backend
