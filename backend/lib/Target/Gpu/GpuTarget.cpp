//===- GpuTarget.cpp - SIMT lowering, NVVM, PTX, ptxas, `ph emit` stages --===//
//
// kir -> tile (kirToTile) -> SIMT gpu.func (convertTileToSimt) -> NVVM/LLVM
// dialects (convert-gpu-to-nvvm) -> PTX (gpu-module-to-binary, format isa:
// LLVM's NVPTX backend, libdevice linked for exp/log/sqrt) -> cubin (ptxas,
// run with an argument vector, never a shell; its -v report is kept).
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/GpuTarget.h"

#include "Conversion/TileToGPU/MmaCodegen.h"
#include "Conversion/TileToGPU/TileToGPU.h"
#include "Emit/Stages.h"
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/GpuRun.h"
#include "ph/Source.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <mutex>

#ifndef PH_CUDA_DIR
#define PH_CUDA_DIR "/usr/local/cuda"
#endif

using namespace mlir;

namespace ph::backend {

std::string defaultGpuArch() {
  if (const char *a = std::getenv("PH_GPU_ARCH")) return a;
  rt::Cuda &cu = rt::Cuda::get();
  if (cu.available() && isSupportedGpuArch(cu.device().arch())) return cu.device().arch();
  return "sm_90";
}

int64_t sharedMemoryLimit(const std::string &arch) {
  if (arch == "sm_90" || arch == "sm_90a") return 232448;
  if (arch == "sm_80") return 166912;
  if (arch == "sm_86" || arch == "sm_89") return 101376;
  return 49152;
}

bool isSupportedGpuArch(const std::string &arch) {
  return arch == "sm_80" || arch == "sm_86" || arch == "sm_89" || arch == "sm_90";
}

namespace {

std::string cudaDir() {
  if (const char *d = std::getenv("PH_CUDA_DIR")) return d;
  if (const char *d = std::getenv("CUDA_PATH")) return d;
  return PH_CUDA_DIR;
}

std::string findPtxas() {
  if (const char *p = std::getenv("PH_PTXAS")) return p;
  std::string inToolkit = cudaDir() + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(inToolkit)) return inToolkit;
  if (auto p = llvm::sys::findProgramByName("ptxas")) return *p;
  return "";
}

void prepareContext(MLIRContext &ctx) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
  DialectRegistry reg;
  registerAllExtensions(reg);
  registerAllToLLVMIRTranslations(reg);
  NVVM::registerNVVMTargetInterfaceExternalModels(reg);
  ctx.appendDialectRegistry(reg);
  ctx.getOrLoadDialect<::mlir::gpu::GPUDialect>();
  ctx.getOrLoadDialect<NVVM::NVVMDialect>();
}

int threadsOf(ModuleOp m, const kir::Kernel *k) {
  if (k) return k->threads;
  int threads = 128;
  m.walk([&](Operation *op) {
    if (auto a = op->getAttrOfType<IntegerAttr>("tile.threads")) threads = int(a.getInt());
  });
  return threads;
}

/// Tile module -> gpu.module (in place): a `@tensorcore` kernel through the
/// tensor-core lowering when its tiles fit the register layout (`tc` says
/// which, or why not), everything else through the SIMT lowering.
bool toSimt(ModuleOp m, int threads, const std::string &arch, simt::SimtResult &res, std::string &err,
            simt::MmaReport *tc = nullptr, bool *usedTc = nullptr) {
  prepareContext(*m.getContext());
  simt::SimtOptions so;
  so.threads = threads;
  so.arch = arch;
  so.sharedLimit = sharedMemoryLimit(arch);
  simt::MmaReport local;
  bool mma = simt::convertTileToMma(m, so, res, tc ? *tc : local);
  if (usedTc) *usedTc = mma;
  return mma || simt::convertTileToSimt(m, so, res, err);
}

/// The lowering of gpu.dynamic_shared_memory defines an internal zero-sized
/// shared array (PTX `.shared .b8 name;`, one static byte). Accesses far past
/// the end of a zero-sized object are undefined behaviour that LLVM's alias
/// analysis may exploit; an external declaration has no known size and is
/// what CUDA C++ emits for `extern __shared__`: `.extern .shared .align 16 .b8 name[]`.
bool externDynamicShared(ModuleOp m) {
  m.walk([](LLVM::GlobalOp g) {
    if (g.getAddrSpace() == 3 && g.getSymName().starts_with("__dynamic_shmem")) {
      g.setLinkage(LLVM::Linkage::External);
      g.setVisibility_(LLVM::Visibility::Default);
    }
  });
  return true;
}

/// SIMT gpu.module -> NVVM and LLVM dialects, with the NVVM target attached.
bool toNvvm(ModuleOp m, const std::string &arch, std::string &err) {
  MLIRContext *ctx = m.getContext();
  std::string libdevice = cudaDir() + "/nvvm/libdevice/libdevice.10.bc";
  ArrayAttr link;
  if (llvm::sys::fs::exists(libdevice)) link = ArrayAttr::get(ctx, {StringAttr::get(ctx, libdevice)});
  auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", arch, "", nullptr, link);
  m.walk([&](::mlir::gpu::GPUModuleOp gm) { gm.setTargetsAttr(ArrayAttr::get(ctx, {target})); });
  return runPipeline(m, [](OpPassManager &pm) {
    pm.addPass(createSCFToControlFlowPass());
    ConvertGpuOpsToNVVMOpsOptions o;
    o.indexBitwidth = 64;
    OpPassManager &g = pm.nest<::mlir::gpu::GPUModuleOp>();
    g.addPass(createConvertGpuOpsToNVVMOps(o));
    g.addPass(createCanonicalizerPass());
    g.addPass(createCSEPass());
    g.addPass(createReconcileUnrealizedCastsPass());
  }, err) && externDynamicShared(m);
}

/// NVVM module -> PTX text through LLVM's NVPTX backend.
bool toPtx(ModuleOp m, std::string &ptx, std::string &err) {
  if (!runPipeline(m, [](OpPassManager &pm) {
        GpuModuleToBinaryPassOptions o;
        o.compilationTarget = "isa";
        o.toolkitPath = cudaDir();
        pm.addPass(createGpuModuleToBinaryPass(o));
      }, err))
    return false;
  bool found = false;
  m.walk([&](::mlir::gpu::BinaryOp bin) {
    for (Attribute a : bin.getObjectsAttr())
      if (auto obj = dyn_cast<::mlir::gpu::ObjectAttr>(a)) {
        ptx = obj.getObject().getValue().str();
        found = true;
      }
  });
  if (!found) err = "the NVPTX backend produced no PTX";
  return found;
}

/// ptxas PTX -> cubin; `log` gets ptxas's -v report.
bool runPtxas(const std::string &ptx, const std::string &arch, std::vector<uint8_t> &cubin, std::string &log,
              std::string &err) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    err = "ptxas not found (looked in " + cudaDir() + "/bin and on PATH; set PH_PTXAS or PH_CUDA_DIR)";
    return false;
  }
  llvm::SmallString<128> in, out, errFile;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("ph", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("ph", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("ph", "log", errFile)) {
    err = "cannot create temporary files for ptxas";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string archArg = "-arch=" + arch, inPath = in.str().str(), outPath = out.str().str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archArg, "-v", "-O3", inPath, "-o", outPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(errFile), llvm::StringRef(errFile)};
  std::string execErr;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &execErr);
  if (auto buf = llvm::MemoryBuffer::getFile(errFile)) log = (*buf)->getBuffer().str();
  bool ok = rc == 0;
  if (ok) {
    if (auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false))
      cubin.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
    else ok = false;
  }
  if (!ok) err = "ptxas failed" + (execErr.empty() ? "" : " (" + execErr + ")") + ":\n" + log;
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(errFile);
  return ok;
}

Diagnostic makeDiag(DiagKind kind, SourceRange range, std::vector<std::string> args) {
  Diagnostic d;
  d.kind = kind;
  d.severity = diagInfo(kind).severity;
  d.range = range;
  d.message = formatDiag(kind, args);
  return d;
}

} // namespace

bool compileForGpu(const kir::Kernel &k, const GpuOptions &opts, GpuBinary &out, std::string &err) {
  std::string arch = opts.arch.empty() ? defaultGpuArch() : opts.arch;
  if (!isSupportedGpuArch(arch)) {
    err = "unsupported GPU architecture `" + arch + "` (use sm_80, sm_86, sm_89 or sm_90)";
    return false;
  }
  out = GpuBinary();
  out.meta.sig = rt::signatureOf(k);
  out.meta.cubin = rt::variantFileName(k, "cubin");
  out.meta.unit = "simt";
  std::unique_ptr<MLIRContext> ctx = makeContext();
  OwningOpRef<ModuleOp> m = kirToTile(*ctx, k, opts.sources, err);
  if (!m) return false;
  simt::SimtResult res;
  simt::MmaReport tc;
  bool usedTc = false;
  bool lowered = toSimt(*m, k.threads, arch, res, err, &tc, &usedTc);
  if (usedTc) {
    out.meta.unit = "tensorcore";
    // The first note is the summary `ph build` prints; then one per tile.
    out.meta.notes.push_back("tensorcore: " + std::to_string(tc.registerTiles) + " tiles in registers, " +
                             std::to_string(tc.sharedTiles) + " in shared memory");
    for (const std::string &p : tc.placements) out.meta.notes.push_back("tile " + p);
    for (const simt::MmaReport::Tile &t : tc.tiles)
      out.meta.tiles.push_back({t.type, {t.at.file, t.at.line, t.at.col, t.at.endLine, t.at.endCol},
                                t.registers ? "registers" : "shared memory"});
  } else if (k.tensorcore) {
    out.diagnostics.push_back(makeDiag(DiagKind::TensorcoreIgnored, k.loc, {"SIMT"}));
    if (!tc.why.empty()) out.diagnostics.back().notes.push_back({k.loc, "the tensor-core lowering cannot take " + tc.why});
    out.meta.notes.push_back(out.diagnostics.back().message + (tc.why.empty() ? "" : " (" + tc.why + ")"));
  }
  if (!lowered) {
    if (res.sharedExceeded) {
      // Point at the largest tile when its source is known; the kernel gets a note.
      SourceRange at = k.loc;
      if (opts.sources && res.largestLine)
        for (FileId id = 0; id < opts.sources->size(); ++id) {
          const SourceFile &f = opts.sources->file(id);
          if (f.path() != res.largestFile) continue;
          uint32_t off = f.lineStart(res.largestLine - 1) + res.largestCol - 1;
          uint32_t end = f.lineStart(res.largestLine);
          at = {id, off, std::max(off + 1, end > off + 1 ? end - 1 : off + 1)};
        }
      out.diagnostics.push_back(makeDiag(DiagKind::SharedMemoryExceeded, at,
                                         {k.name, std::to_string(res.sharedBytes),
                                          std::to_string(sharedMemoryLimit(arch)), arch, res.largestTile}));
      if (!(at == k.loc)) out.diagnostics.back().notes.push_back({k.loc, "in kernel `" + k.name + "`"});
      err = out.diagnostics.back().message;
    }
    return false;
  }
  out.meta.symbol = res.kernelName;
  out.meta.dynamicShared = int(res.sharedBytes);
  if (!toNvvm(*m, arch, err) || !toPtx(*m, out.ptx, err)) return false;
  std::string log;
  if (!runPtxas(out.ptx, arch, out.cubin, log, err)) return false;
  out.meta.ptxas = rt::parsePtxasReport(log, res.kernelName);
  for (Diagnostic &d : spillDiagnostics(k, out.meta.ptxas)) out.diagnostics.push_back(std::move(d));
  return true;
}

std::vector<Diagnostic> spillDiagnostics(const kir::Kernel &k, const rt::PtxasReport &report) {
  std::vector<Diagnostic> out;
  if (int spill = report.spillStores + report.spillLoads)
    out.push_back(makeDiag(DiagKind::RegisterSpill, k.loc,
                           {k.name, std::to_string(spill), std::to_string(report.registers)}));
  return out;
}

std::string runOnGpu(const kir::Kernel &k, const LaunchArgs &args, const GpuOptions &opts,
                     std::vector<Diagnostic> *diags) {
  rt::Cuda &cu = rt::Cuda::get();
  if (!cu.available()) return cu.whyUnavailable();
  GpuOptions o = opts;
  if (o.arch.empty()) o.arch = defaultGpuArch();
  GpuBinary bin;
  std::string err;
  bool ok = compileForGpu(k, o, bin, err);
  if (diags) diags->insert(diags->end(), bin.diagnostics.begin(), bin.diagnostics.end());
  if (!ok) return err;
  return rt::runCubin(bin.meta, bin.cubin, args);
}

void registerGpuStages(StageRegistry &r) {
  r[Stage::Gpu] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                     std::string &err) {
    simt::SimtResult res;
    std::string arch = defaultGpuArch();
    simt::MmaReport tc;
    bool usedTc = false;
    if (!toSimt(m, threadsOf(m, &k), arch, res, err, &tc, &usedTc)) {
      if (res.sharedExceeded)
        err = formatDiag(DiagKind::SharedMemoryExceeded, {k.name, std::to_string(res.sharedBytes),
                                                          std::to_string(sharedMemoryLimit(arch)), arch,
                                                          res.largestTile});
      return false;
    }
    out = "// " + arch + ", " + std::to_string(k.threads) + " threads, " + std::to_string(res.sharedBytes) +
          " bytes of dynamic shared memory\n";
    if (usedTc) out += "// tensorcore: " + std::to_string(tc.registerTiles) + " tiles in registers, " +
                       std::to_string(tc.sharedTiles) + " in shared memory\n";
    else if (!tc.why.empty()) out += "// SIMT: the tensor-core lowering cannot take " + tc.why + "\n";
    out += printOp(m, opts);
    return true;
  };
  r[Stage::GpuLlvm] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                         std::string &err) {
    simt::SimtResult res;
    std::string arch = defaultGpuArch();
    if (!toSimt(m, threadsOf(m, &k), arch, res, err) || !toNvvm(m, arch, err)) return false;
    out = printOp(m, opts);
    return true;
  };
  r[Stage::Ptx] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &, std::string &out, std::string &err) {
    simt::SimtResult res;
    std::string arch = defaultGpuArch();
    if (!toSimt(m, threadsOf(m, &k), arch, res, err)) return false;
    return toNvvm(m, arch, err) && toPtx(m, out, err);
  };
}

} // namespace ph::backend
