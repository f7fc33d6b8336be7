//===- GpuTarget.cpp - The GPU target: TileGPU, NVVM, PTX, ptxas, compileForGpu --===//
//
// kir -> tile (kirToTile) -> TileGPU (layouts, rings, one pattern per op family:
// TileGpuPipeline) -> NVVM/LLVM dialects (convert-gpu-to-nvvm) -> PTX (gpu-module-to-binary, format isa:
// LLVM's NVPTX backend, libdevice linked for exp/log/sqrt) -> cubin (ptxas,
// run with an argument vector, never a shell; its -v report is kept).
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/GpuTarget.h"
#include "ph/Backend/Arch.h"

#include "Ptxas.h"
#include "PtxasDiagnostics.h"
#include "Target/LlvmPipelineScope.h"
#include "Target/LoweringDiagnostics.h"
#include "NvptxCodegen.h"
#include "FullRangeDivision.h"
#include "PreciseSqrt.h"
#include "ScratchDir.h"

#include "TileGpuPipeline.h"
#include "GpuLowering.h"
#include "ph/Conversion/Passes.h"
#include "ph/Dialect/Tile/TileDialect.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "Emit/Stages.h"
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/GpuRun.h"
#include "ph/Source.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <mutex>
#include <optional>

using namespace mlir;

namespace ph::backend {

std::string defaultGpuArch() {
  if (const char *a = std::getenv("PH_GPU_ARCH")) return a;
  rt::Cuda &cu = rt::Cuda::get();
  if (cu.available() && isSupportedGpuArch(cu.device().arch())) return archForDevice(cu.device().arch());
  return "sm_90";
}

int64_t sharedMemoryLimit(const std::string &arch) {
  const GpuArch *a = findGpuArch(arch);
  return a ? a->sharedPerBlock : 49152;
}

bool isSupportedGpuArch(const std::string &arch) { return findGpuArch(arch) != nullptr; }

static void prepareContext(MLIRContext &ctx) {
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

/// `m` takes the body and attributes of `lowered`, a lowered clone of it.
static void takeLowered(ModuleOp m, ModuleOp lowered) {
  m.getBody()->clear();
  m.getBody()->getOperations().splice(m.getBody()->end(), lowered.getBody()->getOperations());
  for (NamedAttribute a : lowered->getAttrs()) m->setAttr(a.getName(), a.getValue());
}

/// fp8 tensors as their bits, fp8 conversions as integer arithmetic (tile-fp8-to-bits): no GPU
/// lowering has fp8 registers. A module without fp8 is left as it is.
bool fp8ToBits(ModuleOp m, std::string &err) {
  bool any = false;
  m.walk([&](func::FuncOp f) {
    for (mlir::Type t : f.getArgumentTypes())
      if (auto p = dyn_cast<tile::PtrType>(t); p && isa<Float8E4M3FNType, Float8E5M2Type>(p.getElementType())) any = true;
  });
  if (!any) return true;
  PassManager pm(m.getContext());
  pm.addPass(tile::createTileFp8ToBits());
  if (failed(pm.run(m))) {
    err = "tile-fp8-to-bits failed";
    return false;
  }
  return true;
}

/// The tensor-core policies for a @tensorcore kernel, in place: `used` when one took the
/// kernel (the module is then a gpu.module), else `why` says why not and the module is
/// unchanged for the SIMT policy (W0501). False only when PH_GPU_LOWERING=tilegpu forbids
/// that fallback.
bool tryTileGpu(ModuleOp m, const kir::Kernel &k, const std::string &arch, TileGpuResult &tg, bool &used,
                std::string &why, std::string &err) {
  used = false;
  GpuLowering lowering = gpuLowering();
  if (!k.tensorcore) return true;
  // Attention, which reduces rows, takes the TileGPU path on mma.sync too since it overtook
  // the legacy emitter there (H100, same run, [4,16,4096,D] f16, sm_90: D = 128 1.03-1.04x;
  // D = 64 with examples/mha.ph's 64-key blocks 1.07-1.10x the legacy emitter's 32-key ones,
  // 0.97-0.99x the legacy emitter at 64; docs/tilegpu.md, "Attention on the TileGPU path").
  setGridAttr(m, k);
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(m->clone());
  std::string tgErr;
  bool lowered = runTileGpu(*copy, arch, /*lower=*/true, tg, tgErr);
  auto fits = [&](const TileGpuResult &r) { return r.tensorCores() && r.sharedBytes <= sharedMemoryLimit(arch); };
  // Rings deeper than the CTA's shared memory holds (several loops, an operand loaded once, a
  // buffer through-shared adds): the same kernel with every ring at 2 stages, which the deleted
  // legacy tensor-core emitter used, before the SIMT fallback (lit gpu/tilegpu-compact-rings.ph).
  if (lowered && tg.tensorCores() && !fits(tg)) {
    OwningOpRef<ModuleOp> compact = cast<ModuleOp>(m->clone());
    TileGpuResult small;
    std::string smallErr;
    if (runTileGpu(*compact, arch, /*lower=*/true, small, smallErr, /*lowerSimt=*/false, /*compactRings=*/true) &&
        fits(small)) {
      copy = std::move(compact);
      tg = std::move(small);
    }
  }
  if (lowered && fits(tg)) {
    // The lowered copy replaces the module's body.
    takeLowered(m, *copy);
    used = true;
    return true;
  }
  why = !tgErr.empty() ? tgErr
        : !tg.warnings().empty() ? tg.warnings().front()
        : tg.tensorCores() ? "its buffers need " + std::to_string(tg.sharedBytes) + " bytes of shared memory, more than the " +
                                 std::to_string(sharedMemoryLimit(arch)) + " that " + arch + " allows"
                             : "the SIMT policy took it";
  if (lowering == GpuLowering::TileGpu) {
    err = "PH_GPU_LOWERING=tilegpu: the TileGPU lowering cannot take `" + k.name + "`: " + why;
    return false;
  }
  return true;
}

/// The TileGPU SIMT policy, in place, for every kernel the tensor-core policies did not take:
/// one without `@tensorcore`, one without a dot, or one whose dot the mma policy declined
/// (W0501). False when a pass fails (`tg.diags` says why) or the buffers pass the CTA's
/// shared memory (`tg.sharedBytes`: E0501). The legacy SIMT emitter that took these kernels
/// until 2026-12-06 is deleted (docs/tilegpu.md, "The legacy SIMT emitter, deleted").
bool toSimtPolicy(ModuleOp m, const std::string &arch, TileGpuResult &tg, std::string &err) {
  if (!runTileGpu(m, arch, /*lower=*/true, tg, err, /*lowerSimt=*/true)) {
    if (err.empty()) err = "the TileGPU SIMT policy failed";
    return false;
  }
  if (tg.sharedBytes > sharedMemoryLimit(arch)) {
    err = "its buffers need " + std::to_string(tg.sharedBytes) + " bytes of shared memory";
    return false;
  }
  return true;
}

/// Whether the tile module has a dot (a @tensorcore kernel whose dot the mma policy declined
/// gets that policy's reason as a note of W0501).
bool hasDot(ModuleOp m) {
  bool any = false;
  m.walk([&](tile::DotOp) { any = true; });
  return any;
}

/// The lowering of gpu.dynamic_shared_memory defines an internal zero-sized
/// shared array (PTX `.shared .b8 name;`, one static byte). Accesses far past
/// the end of a zero-sized object are undefined behaviour that LLVM's alias
/// analysis may exploit; an external declaration has no known size and is
/// what CUDA C++ emits for `extern __shared__`: `.extern .shared .align 16 .b8 name[]`.
static bool externDynamicShared(ModuleOp m) {
  m.walk([](LLVM::GlobalOp g) {
    if (g.getAddrSpace() == 3 && g.getSymName().starts_with("__dynamic_shmem")) {
      g.setLinkage(LLVM::Linkage::External);
      g.setVisibility_(LLVM::Visibility::Default);
      // Swizzled buffers (wgmma's) sit at 1024-byte offsets from here, and
      // their XOR pattern reads absolute address bits 4-9.
      g.setAlignment(1024);
    }
  });
  return true;
}

/// SIMT gpu.module -> NVVM and LLVM dialects, with the NVVM target attached.
bool toNvvm(ModuleOp m, const std::string &arch, std::string &err, TimingScope *timing,
            std::vector<LoweringDiag> *diags) {
  MLIRContext *ctx = m.getContext();
  // sm_90a's wgmma and setmaxnreg need PTX 8.0; the others keep LLVM's default.
  const GpuArch *a = findGpuArch(arch);
  std::string features = a && a->archSpecific ? "+ptx80" : "";
  auto setTarget = [&](ArrayAttr link) {
    auto target = NVVM::NVVMTargetAttr::get(ctx, int(gpuOptLevel()), "nvptx64-nvidia-cuda", arch, features, nullptr, link);
    m.walk([&](::mlir::gpu::GPUModuleOp gm) { gm.setTargetsAttr(ArrayAttr::get(ctx, {target})); });
  };
  setTarget(nullptr);
  bool ok = runPipeline(m, [](OpPassManager &pm) {
    pm.addPass(createSCFToControlFlowPass());
    ConvertGpuOpsToNVVMOpsOptions o;
    o.indexBitwidth = 64;
    OpPassManager &g = pm.nest<::mlir::gpu::GPUModuleOp>();
    // No convert-nvgpu-to-nvvm: no lowering makes nvgpu ops (TileGPU's mma.sync goes to
    // nvvm.mma.sync directly), and the pass's walk
    // over the module cost about 1 ms a variant.
    // NVVM ops that lower to PTX text (wgmma.mma_async, fence.proxy forms).
    g.addPass(createConvertNVVMToLLVMPass());
    // MLIR's vector lowering without its greedy pre-pass where the conversion takes every op
    // (tilegpu-direct-vector-to-llvm: a third of this pipeline on TileGPU's mma.sync variants);
    // PH_GPU_VECTOR_LOWERING=upstream keeps MLIR's pass, for A/B measurements.
    if (const char *v = std::getenv("PH_GPU_VECTOR_LOWERING"); v && std::string(v) == "upstream")
      g.addPass(createConvertVectorToLLVMPass());
    else
      g.addPass(tilegpu::createDirectVectorToLLVM());
    g.addPass(createConvertGpuOpsToNVVMOps(o));
    // No canonicalizer here: LLVM's IR pipeline does the same folding, and without it the
    // PTX of all 404 variants of examples/, bench/gpu/ and tests/gpu/Inputs/ (sm_90a, sm_90,
    // sm_80) is the same bytes while this pipeline costs 13 % less (docs/compile.md). CSE
    // stays: without it some SIMT kernels' PTX differs.
    g.addPass(createCSEPass());
    g.addPass(createReconcileUnrealizedCastsPass());
    // Measuring knob, off: a loop-carried tile as a phi per register instead of a struct phi
    // (LLVM's SCCP, SLP and instruction selection pay per struct element for each insertvalue;
    // -11 % of our time on mha_f16 D=128 BR=128) gives the same instructions with the registers
    // in another order, which only a GPU run can accept (docs/compile.md, "2026-12-06, fourth
    // session").
    if (const char *e = std::getenv("PH_GPU_SCALAR_CARRIES"); e && std::string(e) == "1")
      g.addPass(tilegpu::createScalarCarries());
  }, err, timing, diags) && externDynamicShared(m);
  if (ok) {
    usePreciseSqrt(m);
    // f32 `/` is div.full.f32, within 2 ulp (docs/language.md, "Precision"; docs/compile.md:
    // the IEEE division's slow path was a third of ptxas's time on attention's epilogue).
    useFullRangeDivision(m);
  }
  // The target names libdevice for a module that calls it (__nv_expf, ...). Note that
  // gpu-module-to-binary links the toolkit's libdevice into every module anyway (its
  // toolkitPath), lazily and only what is called, and toPtx's own codegen does the same:
  // without it LLVM makes other choices for some kernels (tests/lit/gpu/own-codegen.test).
  bool callsLibdevice = false;
  m.walk([&](LLVM::LLVMFuncOp f) {
    if (f.isExternal() && f.getSymName().starts_with("__nv_")) callsLibdevice = true;
  });
  std::string libdevice = cudaDir() + "/nvvm/libdevice/libdevice.10.bc";
  if (ok && callsLibdevice && llvm::sys::fs::exists(libdevice))
    setTarget(ArrayAttr::get(ctx, {StringAttr::get(ctx, libdevice)}));
  return ok;
}

/// PH_TEST_GPU_NO_TRANSLATION=1 (tests only): since differential bug 14 no valid program
/// makes the LLVM IR translation fail, so the tests of its diagnostic (tests/lit/gpu/lowering/
/// translation.ph) put the op that bug left, a `builtin.unrealized_conversion_cast` (which has
/// no translation), before the kernel's first op located inside it, at that op's location.
static void breakTranslationForTest(::mlir::gpu::GPUModuleOp gm) {
  const char *e = std::getenv("PH_TEST_GPU_NO_TRANSLATION");
  std::string mode = e ? e : "";
  if (mode != "1" && mode != "2") return;
  Operation *at = nullptr;
  gm.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Not at the kernel's own range, which every failure without an op has.
    auto f = op->getParentOfType<LLVM::LLVMFuncOp>();
    rt::SourceSpan s = spanOf(op->getLoc());
    if (f && !s.file.empty() && !(s.line == spanOf(f.getLoc()).line && s.col == spanOf(f.getLoc()).col)) {
      at = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!at) return;
  OpBuilder b(at);
  // =2: without a location, as an op a pattern built from nothing would be (E0504 at the kernel).
  Location loc = mode == "2" ? Location(UnknownLoc::get(b.getContext())) : at->getLoc();
  UnrealizedConversionCastOp::create(b, loc, TypeRange{b.getI32Type()}, ValueRange{});
}

/// NVVM module -> PTX text through LLVM's NVPTX backend: NvptxCodegen.h's steps
/// (each a `mark`), or with PH_GPU_CODEGEN=mlir MLIR's gpu-module-to-binary,
/// whose one step the caller marks.
bool toPtx(ModuleOp m, std::string &ptx, std::string &err, TimingScope *timing,
           std::vector<LoweringDiag> *diags, const StepMark &mark) {
  ::mlir::gpu::GPUModuleOp gm;
  int modules = 0;
  m.walk([&](::mlir::gpu::GPUModuleOp g) {
    gm = g;
    ++modules;
  });
  NVVM::NVVMTargetAttr target;
  if (gm && gm.getTargetsAttr() && gm.getTargetsAttr().size() == 1)
    target = dyn_cast<NVVM::NVVMTargetAttr>(gm.getTargetsAttr()[0]);
  if (ownNvptxCodegen() && modules == 1 && target) {
    // LLVM's targets and the dialects' LLVM IR translations, which the lowering did not need,
    // must be registered for what follows.
    prepareContext(*m.getContext());
    std::vector<LoweringDiag> local;
    LoweringCapture capture(m.getContext(), diags ? *diags : local, &err);
    if (failed(verify(m))) return false;
    breakTranslationForTest(gm);
    // Each step a scope of MLIR's timing report (`ph build --time-passes`).
    static const char *const names[] = {"ph: LLVM IR translation", "ph: LLVM IR pipeline", "ph: NVPTX codegen"};
    size_t step = 0;
    std::optional<TimingScope> scope;
    if (timing) scope.emplace(timing->nest(names[0]));
    NvptxOptions o{target.getChip().str(), target.getFeatures().str(), {}};
    // What gpu-module-to-binary links: the target's libraries, then the toolkit's libdevice
    // (into every module; only what a module calls comes in, so once is enough).
    if (ArrayAttr link = target.getLink())
      for (Attribute a : link)
        if (auto path = dyn_cast<StringAttr>(a)) o.libraries.push_back(path.str());
    std::string libdevice = cudaDir() + "/nvvm/libdevice/libdevice.10.bc";
    if (llvm::sys::fs::is_regular_file(libdevice) && llvm::find(o.libraries, libdevice) == o.libraries.end())
      o.libraries.push_back(libdevice);
    bool ok = gpuModuleToPtx(gm, o, ptx, err, [&](const char *name) {
      scope.reset();
      if (timing && ++step < std::size(names)) scope.emplace(timing->nest(names[step]));
      if (mark) mark(name);
    });
    return ok;
  }
  // MLIR's pass runs LLVM's IR pipeline too: the same global options as ours.
  LlvmPipelineScope llvmOptions(LlvmPipelineKind::Gpu);
  if (!runPipeline(m, [](OpPassManager &pm) {
        GpuModuleToBinaryPassOptions o;
        o.compilationTarget = "isa";
        o.toolkitPath = cudaDir();
        pm.addPass(createGpuModuleToBinaryPass(o));
      }, err, timing, diags))
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

Diagnostic makeDiag(DiagKind kind, SourceRange range, std::vector<std::string> args) {
  Diagnostic d;
  d.kind = kind;
  d.severity = diagInfo(kind).severity;
  d.range = range;
  d.message = formatDiag(kind, args);
  return d;
}

/// A lowering step failed: the registry diagnostic at the op whose error (or,
/// with `warnings`, whose layout policy's reason) has a source range, plus
/// `context` as a note at the kernel. When MLIR's errors name no op of the source,
/// E0504 at the kernel with their text as a note (kernelDiagnostic); nothing when
/// MLIR said nothing (`ph build` then reports E0502 at the kernel with the error's text).
void loweringFailed(GpuBinary &out, const std::vector<LoweringDiag> &diags, const kir::Kernel &k,
                    const SourceManager *sources, bool warnings, const std::string &context) {
  if (const LoweringDiag *d = firstLocated(diags, sources, warnings))
    out.diagnostics.push_back(loweringDiagnostic(
        d->error ? DiagKind::GpuLoweringFailed : DiagKind::LayoutUnsupported, *d, k, sources));
  else if (std::string text = errorText(diags); !text.empty())
    out.diagnostics.push_back(kernelDiagnostic(DiagKind::GpuLoweringFailed, text, "MLIR", k));
  else return;
  if (!context.empty()) out.diagnostics.back().notes.push_back({k.loc, context});
}

/// E0501 for a kernel whose buffers need more shared memory than `arch` allows: at the
/// largest buffer when its source is known, with the kernel as a note.
Diagnostic sharedExceededDiagnostic(const kir::Kernel &k, const TileGpuResult &tg, const std::string &arch,
                                    const SourceManager *sources) {
  std::optional<SourceRange> largest = rangeOf(tg.largestSharedAt, sources);
  SourceRange at = largest.value_or(k.loc);
  std::string tile = tg.largestShared.empty() ? "unknown"
                                              : tg.largestShared + " (" + std::to_string(tg.largestSharedBytes) + " bytes)";
  Diagnostic d = makeDiag(DiagKind::SharedMemoryExceeded, at,
                          {k.name, std::to_string(tg.sharedBytes), std::to_string(sharedMemoryLimit(arch)), arch, tile});
  if (!(at == k.loc)) d.notes.push_back({k.loc, "in kernel `" + k.name + "`"});
  return d;
}

namespace {

/// Wall-clock milliseconds per step of one compile (GpuBinary::phases).
class PhaseClock {
public:
  explicit PhaseClock(std::vector<PhaseTime> &out)
      : out(out), last(std::chrono::steady_clock::now()), lastCpu(threadCpuMs()) {}
  /// Ends the step `name`; `cpuMs` replaces this thread's CPU time (a subprocess's).
  void mark(const char *name, std::optional<double> cpuMs = std::nullopt) {
    auto now = std::chrono::steady_clock::now();
    double cpu = threadCpuMs();
    out.push_back({name, std::chrono::duration<double, std::milli>(now - last).count(),
                   cpuMs ? *cpuMs : cpu - lastCpu});
    last = now;
    lastCpu = cpu;
  }

private:
  static double threadCpuMs() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
  }
  std::vector<PhaseTime> &out;
  std::chrono::steady_clock::time_point last;
  double lastCpu;
};

} // namespace

std::string gpuToolchainIdentity(const std::string &arch) {
  auto identity = [](const std::string &path) {
    llvm::sys::fs::file_status st;
    if (path.empty() || llvm::sys::fs::status(path, st)) return path + " missing";
    return path + " " + std::to_string(st.getSize()) + " " +
           std::to_string(st.getLastModificationTime().time_since_epoch().count());
  };
  return "gpu " + arch + "; ptxas " + identity(findPtxas()) + "; libdevice " +
         identity(cudaDir() + "/nvvm/libdevice/libdevice.10.bc");
}

bool compileForGpu(const kir::Kernel &k, const GpuOptions &opts, GpuBinary &out, std::string &err) {
  std::string arch = opts.arch.empty() ? defaultGpuArch() : opts.arch;
  if (!isSupportedGpuArch(arch)) {
    err = "unsupported GPU architecture `" + arch + "` (use " + supportedGpuArchs() + ")";
    return false;
  }
  out = GpuBinary();
  out.meta.sig = rt::signatureOf(k);
  out.meta.cubin = rt::variantFileName(k, "cubin");
  out.meta.unit = "simt";
  PhaseClock clock(out.phases);
  std::unique_ptr<MLIRContext> ctx = makeContext();
  clock.mark("context");
  OwningOpRef<ModuleOp> m = kirToTile(*ctx, k, opts.sources, err);
  clock.mark("kir-to-tile");
  if (!m || !fp8ToBits(*m, err)) return false;
  // TileGPU takes every kernel: a @tensorcore kernel's dots the tensor-core policies place
  // (mma.sync, wgmma), everything else its SIMT policy.
  TileGpuResult mma;
  std::string tileGpuWhy;
  bool onTensorCores = false;
  if (!tryTileGpu(*m, k, arch, mma, onTensorCores, tileGpuWhy, err)) {
    loweringFailed(out, mma.diags, k, opts.sources, /*warnings=*/true,
                   "PH_GPU_LOWERING=tilegpu: the SIMT policy may not take it instead");
    return false;
  }
  if (k.tensorcore && !onTensorCores) {
    out.diagnostics.push_back(makeDiag(DiagKind::TensorcoreIgnored, k.loc, {"SIMT"}));
    // The module is as kirToTile made it when the tensor-core policies did not take it.
    if (hasDot(*m) && !tileGpuWhy.empty()) {
      // At the tile the policy could not place, when its reason has a range.
      const LoweringDiag *at = firstLocated(mma.diags, opts.sources, /*warnings=*/true);
      std::optional<SourceRange> located = at ? rangeOf(at->at, opts.sources) : std::nullopt;
      // A located note carries the policy's message without the `file:line:col: ` its text starts with;
      // the manifest's note gives the same reason.
      if (located) tileGpuWhy = at->message;
      out.diagnostics.back().notes.push_back({located.value_or(k.loc), "the TileGPU mma policy: " + tileGpuWhy});
      out.meta.notes.push_back(out.diagnostics.back().message + " (" + tileGpuWhy + ")");
    }
  }
  TileGpuResult simt;
  if (!onTensorCores && !toSimtPolicy(*m, arch, simt, err)) {
    clock.mark("lower");
    if (simt.sharedBytes > sharedMemoryLimit(arch)) {
      out.diagnostics.push_back(sharedExceededDiagnostic(k, simt, arch, opts.sources));
      err = out.diagnostics.back().message;
      // A @tensorcore kernel that its policies refused for another reason is not only too large.
      out.sharedMemoryOnly =
          !k.tensorcore || !hasDot(*m) || (mma.tensorCores() && mma.sharedBytes > sharedMemoryLimit(arch));
    } else {
      loweringFailed(out, simt.diags, k, opts.sources, /*warnings=*/false, "");
    }
    return false;
  }
  clock.mark("lower");
  const TileGpuResult &tg = onTensorCores ? mma : simt;
  bool tc = tg.tensorCores();
  out.meta.unit = tc ? "tensorcore" : "simt";
  out.meta.notes.push_back(std::string(tc ? "tensorcore: " : "simt: ") + std::to_string(tg.registerTiles) +
                           " tiles in registers, " + std::to_string(tg.sharedTiles) + " in shared memory (TileGPU, " +
                           (tc ? std::string(tg.instruction()) + ")" : "SIMT policy)"));
  for (const std::string &p : tg.placements) out.meta.notes.push_back("tile " + p);
  out.meta.tiles = tg.tiles;
  out.meta.symbol = tg.kernelName;
  out.meta.dynamicShared = int(tg.sharedBytes);
  out.meta.persistent = tg.persistent;
  if (tg.persistent)
    out.meta.notes.push_back("persistent: its CTAs walk the grid's tiles, the next tile's first loads under this "
                             "tile's end (the launcher starts as many CTAs as the GPU holds at once)");
  // A warp-specialized kernel launches its producer warpgroup beside the threads it was written for.
  m->walk([&](Operation *op) {
    if (auto t = op->getAttrOfType<IntegerAttr>(tilegpu::kLaunchThreadsAttr)) out.meta.sig.threads = int(t.getInt());
    // The TMA maps the kernel takes after its scalars, which the runtime encodes (docs/abi.md).
    if (auto maps = op->getAttrOfType<ArrayAttr>(tilegpu::kTmaAttr))
      for (Attribute a : maps) {
        auto d = cast<DictionaryAttr>(a);
        auto box = d.getAs<DenseI64ArrayAttr>("box").asArrayRef();
        out.meta.tma.push_back({uint32_t(d.getAs<IntegerAttr>("tensor").getInt()),
                                std::vector<int64_t>(box.begin(), box.end()),
                                int(d.getAs<IntegerAttr>("swizzle").getInt())});
      }
  });
  // MLIR's pass timing, printed as text into passTiming when asked for.
  // The stream outlives the manager, which prints to it again when it is destroyed.
  std::string timingText;
  llvm::raw_string_ostream timingOs(timingText);
  std::optional<DefaultTimingManager> tm;
  std::optional<TimingScope> root;
  if (opts.timePasses) {
    tm.emplace();
    tm->setEnabled(true);
    tm->setOutput(createOutputStrategy(DefaultTimingManager::OutputFormat::Text, timingOs));
    root.emplace(tm->getRootScope());
  }
  TimingScope *timing = root ? &*root : nullptr;
  std::vector<LoweringDiag> nvvmDiags;
  bool nvvm = toNvvm(*m, arch, err, timing, &nvvmDiags);
  clock.mark("to-nvvm");
  size_t marks = out.phases.size();
  bool ptx = nvvm && toPtx(*m, out.ptx, err, timing, &nvvmDiags, [&](const char *step) { clock.mark(step); });
  // MLIR's gpu-module-to-binary is one step.
  if (out.phases.size() == marks) clock.mark("nvptx");
  if (tm) {
    root.reset();
    tm->print();
    tm.reset();
    out.passTiming = timingText;
  }
  if (!ptx) {
    loweringFailed(out, nvvmDiags, k, opts.sources, /*warnings=*/false, "");
    return false;
  }
  // `report`: a failure is the user's (a diagnostic); a fit that ptxas cannot meet is not.
  auto assemble = [&](const std::string &ptx, std::string &log, bool report) {
    // ptxas's output depends on ptxas, its arguments (runPtxas), the architecture and the PTX only.
    std::string what;
    if (opts.ptxasCache)
      what = "ph-ptxas-1 " + gpuToolchainIdentity(arch) + "; -arch=" + arch + " -v " + ptxasOptArg() + "\n" + ptx;
    if (opts.ptxasCache && opts.ptxasCache->find(what, out.cubin, log)) {
      clock.mark("ptxas-cached");
      return true;
    }
    bool ranPtxas = false;
    double ptxasCpu = 0;
    bool assembled = runPtxas(ptx, arch, out.cubin, log, err, &ptxasCpu, &ranPtxas);
    clock.mark("ptxas", ptxasCpu);
    if (!assembled) {
      if (ranPtxas && report) out.diagnostics.push_back(ptxasDiagnostic(log, ptx, arch, k));
      return false;
    }
    if (opts.ptxasCache) opts.ptxasCache->keep(what, out.cubin, log);
    return true;
  };
  // Registers fitted to two CTAs an SM where the shared memory leaves room for a second one
  // (docs/tilegpu.md, "Two CTAs an SM where shared memory allows"); ptxas's own choice where the fit
  // spills more than kTwoCtaSpillBudget. withMinCtasPerSm leaves a kernel that asks for its own CTA
  // count (tilegpu.min_ctas: `.minnctapersm` in its PTX) or hands registers between warpgroups
  // (`setmaxnreg`) alone.
  if (std::string fitted = twoCtaFitCandidate(out.ptx, arch, tc, tg.instruction(), out.meta.sig.threads, tg.sharedBytes);
      !fitted.empty()) {
    // ptxas refuses a fit below what an instruction needs (wgmma's accumulators): C7602. The
    // attempt keeps its own log and error, so a refusal leaves nothing behind.
    std::string fitLog, keptErr = err;
    bool fits = assemble(fitted, fitLog, /*report=*/false);
    err = std::move(keptErr);
    rt::PtxasReport fit = rt::parsePtxasReport(fitLog, out.meta.symbol);
    // ptxas's static shared memory counts toward the second CTA as well.
    bool sharedFits = fitTwoCtas(arch, tg.instruction(), out.meta.sig.threads, tg.sharedBytes + fit.sharedBytes);
    if (fits && sharedFits && fit.spillStores + fit.spillLoads <= kTwoCtaSpillBudget) {
      out.ptx = std::move(fitted);
      out.meta.ptxas = fit;
      out.meta.notes.push_back("registers fitted to two CTAs an SM (" + std::to_string(fit.registers) + ", " +
                               std::to_string(fit.spillStores + fit.spillLoads) + " B spilled)");
      return true; // a spill the fit chose within its budget is not the user's to fix
    }
    out.cubin.clear();
  }
  std::string log;
  if (!assemble(out.ptx, log, /*report=*/true)) return false;
  out.meta.ptxas = rt::parsePtxasReport(log, out.meta.symbol);
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

} // namespace ph::backend
