//===- GpuStages.cpp - `ph emit`'s GPU stages: gpu, gpu-llvm, ptx ----------===//
//
// Each stage lowers the kernel the way `ph build` does (GpuLowering.h) and prints
// what it reached; a failure gives the diagnostic compileForGpu would.
//
//===----------------------------------------------------------------------===//
#include "GpuLowering.h"
#include "Ptxas.h"
#include "ph/Backend/Arch.h"
#include "Emit/Stages.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

using namespace mlir;

namespace ph::backend {

namespace {

/// Why a GPU stage of `ph emit` stopped: the MLIR diagnostics of the step that
/// failed, whether a layout policy's reasons (warnings) count, and a note.
struct StageFailure {
  std::vector<LoweringDiag> diags;
  bool warnings = false;
  std::string context;
};

/// How a GPU stage of `ph emit` lowered a kernel (as compileForGpu does), or why it could not.
struct StageLowering {
  std::string arch;
  TileGpuResult tg;      // the policy that took the kernel (or, failing, the SIMT policy's try)
  std::string notTaken;  // why the tensor-core policies did not take a @tensorcore kernel
  StageFailure why;
  bool sharedExceeded = false;
};

/// The architecture a GPU stage lowers for: the option's, else the default; false with `err` for
/// one the compiler does not know.
bool stageArch(const EmitOptions &opts, std::string &arch, std::string &err) {
  arch = opts.arch.empty() ? defaultGpuArch() : opts.arch;
  if (isSupportedGpuArch(arch)) return true;
  err = "unsupported GPU architecture `" + arch + "` (use " + supportedGpuArchs() + ")";
  return false;
}

/// The diagnostic compileForGpu gives for the same failure, into `opts.diagnostics`.
void stageFailed(const EmitOptions &opts, const kir::Kernel &k, const StageLowering &l) {
  if (!opts.diagnostics) return;
  GpuBinary bin;
  if (l.sharedExceeded) bin.diagnostics.push_back(sharedExceededDiagnostic(k, l.tg, l.arch, opts.sources));
  else loweringFailed(bin, l.why.diags, k, opts.sources, l.why.warnings, l.why.context);
  opts.diagnostics->insert(opts.diagnostics->end(), bin.diagnostics.begin(), bin.diagnostics.end());
}

/// The GPU stages lower the way `ph build` does: a tensor-core policy when it takes a @tensorcore
/// kernel, else the SIMT policy; a failure leaves in `l` what compileForGpu turns into its diagnostic.
bool lowerForStage(ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, StageLowering &l, std::string &err) {
  if (!stageArch(opts, l.arch, err) || !fp8ToBits(m, err)) return false;
  bool onTensorCores = false;
  if (!tryTileGpu(m, k, l.arch, l.tg, onTensorCores, l.notTaken, err)) {
    l.why = {l.tg.diags, /*warnings=*/true, "PH_GPU_LOWERING=tilegpu: the SIMT policy may not take it instead"};
    return false;
  }
  if (onTensorCores) return true;
  if (!(k.tensorcore && hasDot(m))) l.notTaken.clear();
  l.tg = TileGpuResult();
  if (toSimtPolicy(m, l.arch, l.tg, err)) return true;
  l.sharedExceeded = l.tg.sharedBytes > sharedMemoryLimit(l.arch);
  if (l.sharedExceeded) err = sharedExceededDiagnostic(k, l.tg, l.arch, opts.sources).message;
  l.why.diags = l.tg.diags;
  return false;
}

} // namespace

void registerGpuStages(StageRegistry &r) {
  // Tile IR with layouts, shared buffers and async copies, before the NVVM patterns.
  r[Stage::TileGpu] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                         std::string &err) {
    std::string arch;
    if (!stageArch(opts, arch, err)) return false;
    TileGpuResult tg;
    setGridAttr(m, k);
    if (!runTileGpu(m, arch, /*lower=*/false, tg, err)) {
      StageLowering l;
      l.arch = arch;
      l.why = {tg.diags, /*warnings=*/false, ""};
      stageFailed(opts, k, l);
      return false;
    }
    out = "// " + arch + ", " + std::to_string(launchedThreads(m, k.threads)) + " threads, policy " + tg.policy;
    if (tg.tensorCores()) out += ", " + std::to_string(tg.sharedBytes) + " bytes of shared memory";
    out += "\n";
    for (const std::string &w : tg.warnings()) out += "// " + w + "\n";
    appendOp(out, m, opts);
    return true;
  };
  r[Stage::Gpu] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out, std::string &err) {
    StageLowering l;
    if (!lowerForStage(m, k, opts, l, err)) {
      stageFailed(opts, k, l);
      return false;
    }
    const TileGpuResult &tg = l.tg;
    out = "// " + l.arch + ", " + std::to_string(launchedThreads(m, k.threads)) + " threads, " + std::to_string(tg.sharedBytes) +
          " bytes of dynamic shared memory\n";
    out += std::string(tg.tensorCores() ? "// tensorcore (TileGPU, " + std::string(tg.instruction()) + "): "
                                        : std::string("// simt (TileGPU, SIMT policy): ")) +
           std::to_string(tg.registerTiles) + " tiles in registers, " + std::to_string(tg.sharedTiles) +
           " in shared memory\n";
    if (!l.notTaken.empty()) out += "// the tensor-core policies cannot take it: " + l.notTaken + "\n";
    appendOp(out, m, opts);
    return true;
  };
  r[Stage::GpuLlvm] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                         std::string &err) {
    StageLowering l;
    if (!lowerForStage(m, k, opts, l, err) || !toNvvm(m, l.arch, err, nullptr, &l.why.diags)) {
      stageFailed(opts, k, l);
      return false;
    }
    appendOp(out, m, opts);
    return true;
  };
  r[Stage::Ptx] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out, std::string &err) {
    StageLowering l;
    if (!lowerForStage(m, k, opts, l, err)) {
      stageFailed(opts, k, l);
      return false;
    }
    int threads = launchedThreads(m, k.threads);
    if (!toNvvm(m, l.arch, err, nullptr, &l.why.diags) || !toPtx(m, out, err, nullptr, &l.why.diags)) {
      stageFailed(opts, k, l);
      return false;
    }
    // What `ph build` may assemble instead (GpuTarget.cpp: the two-CTA fit, kept where ptxas meets it
    // within kTwoCtaSpillBudget): said here, since this stage runs no ptxas.
    if (!twoCtaFitCandidate(out, l.arch, l.tg.tensorCores(), l.tg.instruction(), threads, l.tg.sharedBytes).empty())
      out = "// ph build assembles this with `.minnctapersm 2` after `.maxntid` (registers fitted to two CTAs an SM)\n"
            "// where ptxas fits it within " + std::to_string(kTwoCtaSpillBudget) +
            " B of spills; the build folder's .ptx is the one it assembled\n" + out;
    return true;
  };
}

} // namespace ph::backend
