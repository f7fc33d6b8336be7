//===- NvptxCodegen.cpp - A gpu.module of NVVM/LLVM ops -> PTX -------------===//
//
// The steps of mlir::LLVM::ModuleToObject::run for NVVM's `isa` format, in its
// order and with its settings (the triple, the target machine's default
// options and codegen level, makeOptimizingTransformer's tuning), so that the
// default PTX is the same bytes. What differs: the target machine is kept per
// thread (ph build's workers each compile many variants), and each step is a
// `--time` phase of its own.
//
//===----------------------------------------------------------------------===//
#include "NvptxCodegen.h"
#include "Emit/Stages.h"
#include "Target/LlvmPipelineScope.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Target/LLVM/ModuleToObject.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <map>
#include <memory>

namespace ph::backend {
namespace {

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

/// Experiment: LLVM's own options for the IR pipeline and codegen, PH_GPU_LLVM_OPTS="-name=value
/// ..." (as `opt` and `llc` take them). Process-wide: set once, before any worker's first
/// variant. An option LLVM does not have, or a value it does not take, is an error.
bool applyLlvmOptions(std::string &err) {
  static const std::string failure = [] {
    const char *e = env("PH_GPU_LLVM_OPTS");
    if (!e) return std::string();
    auto &opts = llvm::cl::getRegisteredOptions();
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(e).split(words, ' ', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef w : words) {
      auto [name, value] = w.ltrim('-').split('=');
      auto it = opts.find(name);
      if (it == opts.end()) return "PH_GPU_LLVM_OPTS: LLVM has no option -" + name.str();
      if (it->second->addOccurrence(0, name, value)) return "PH_GPU_LLVM_OPTS: -" + w.ltrim('-').str() + " was not taken";
    }
    return std::string();
  }();
  if (!failure.empty()) err = failure;
  return failure.empty();
}

/// One per thread and (architecture, features): a target machine is not safe to
/// share between threads that run codegen at once, and making one per variant
/// parses the subtarget's tables again each time.
llvm::TargetMachine *targetMachine(const NvptxOptions &o, unsigned level, std::string &err) {
  thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  std::unique_ptr<llvm::TargetMachine> &tm = machines[o.arch + " " + o.features + " " + std::to_string(level)];
  if (tm) return tm.get();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    err = "the NVPTX target is not available: " + error;
    return nullptr;
  }
  // Experiment: 32-bit shared/const/local pointers (Triton's setting). LLVM's option is
  // process-wide and read by every target machine's constructor: set once, before any
  // worker's machine is made (a static's initialization runs once, whichever thread comes).
  static const bool shortPointers = [] {
    if (!env("PH_NVPTX_SHORT_PTR")) return false;
    auto &opts = llvm::cl::getRegisteredOptions();
    auto it = opts.find("nvptx-short-ptr");
    if (it == opts.end()) return false;
    static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
    return true;
  }();
  (void)shortPointers;
  // ModuleToObject::getOrCreateTargetMachine's settings: default target options,
  // relocation model and code model, and the codegen level of the IR pipeline's
  // (-O3: CodeGenOptLevel::Aggressive; a SIMT kernel's PTX differs at Default).
  // PH_GPU_FP_FUSION=1 (an experiment): a multiply feeding an add or subtract becomes one fma,
  // as nvcc's default --fmad=true and Triton's enable_fp_fusion do; off, each rounds on its own.
  llvm::TargetOptions options;
  if (const char *f = env("PH_GPU_FP_FUSION"); f && std::string(f) == "1") options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  tm.reset(target->createTargetMachine(triple, o.arch, o.features, options, {}, std::nullopt,
                                       llvm::CodeGenOpt::getLevel(int(level)).value_or(llvm::CodeGenOptLevel::Default)));
  if (!tm) err = "cannot create the NVPTX target machine for " + o.arch;
  return tm.get();
}

/// LLVM's IR pipeline over the module: by default makeOptimizingTransformer at
/// PH_GPU_OPT_LEVEL (what ModuleToObject::optimizeModule runs), its SLP vectorizer
/// not searching for horizontal reductions (PH_GPU_SLP=hor: it does); PH_GPU_SLP=0
/// turns the SLP vectorizer off, PH_GPU_PASSES replaces the pipeline (text, as
/// `opt -passes=`), both for experiments.
llvm::Error optimize(llvm::Module &m, llvm::TargetMachine *tm, unsigned level) {
  const char *slp = env("PH_GPU_SLP");
  const char *passes = env("PH_GPU_PASSES");
  if (!passes && !(slp && std::string(slp) == "0")) return mlir::makeOptimizingTransformer(level, 0, tm)(&m);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = !(slp && std::string(slp) == "0");
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (passes) {
    if (llvm::Error e = pb.parsePassPipeline(mpm, passes)) return e;
  } else {
    static const llvm::OptimizationLevel levels[] = {llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
                                                     llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
    mpm = level == 0 ? pb.buildO0DefaultPipeline(levels[0]) : pb.buildPerModuleDefaultPipeline(levels[level]);
  }
  mpm.run(m, mam);
  return llvm::Error::success();
}

/// ModuleToObject::linkFiles: each library lazily loaded, only what the module
/// needs linked in, and what came from it internalised (so that the IR pipeline
/// drops what it inlined).
bool linkLibraries(llvm::Module &m, const std::vector<std::string> &libraries, std::string &err) {
  llvm::Linker linker(m);
  for (const std::string &path : libraries) {
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> lib = llvm::getLazyIRFileModule(path, diag, m.getContext());
    if (!lib) {
      err = "cannot load " + path + ": " + diag.getMessage().str();
      return false;
    }
    if (linker.linkInModule(std::move(lib), llvm::Linker::Flags::LinkOnlyNeeded,
                            [](llvm::Module &mod, const llvm::StringSet<> &gvs) {
                              llvm::internalizeModule(mod, [&gvs](const llvm::GlobalValue &gv) {
                                return !gv.hasName() || gvs.count(gv.getName()) == 0;
                              });
                            })) {
      err = "cannot link " + path;
      return false;
    }
  }
  return true;
}

} // namespace

unsigned gpuOptLevel() {
  const char *e = env("PH_GPU_OPT_LEVEL");
  return e && *e >= '0' && *e <= '3' && !e[1] ? unsigned(*e - '0') : 3;
}

bool ownNvptxCodegen() {
  const char *e = env("PH_GPU_CODEGEN");
  return !(e && std::string(e) == "mlir");
}

bool gpuModuleToPtx(mlir::Operation *gpuModule, const NvptxOptions &opts, std::string &ptx, std::string &err,
                    const StepMark &mark) {
  // Errors of the translation and of codegen arrive as MLIR diagnostics, at the op that
  // failed: the caller's LoweringCapture (toPtx) records them, with their ranges, and their
  // text in `err`. A handler of its own here would take them first and drop the locations
  // ("LLVM Translation failed for operation: ..." was E0502 at the kernel).
  if (!applyLlvmOptions(err)) return false;
  unsigned level = gpuOptLevel();
  llvm::TargetMachine *tm = targetMachine(opts, level, err);
  if (!tm) return false;
  llvm::LLVMContext llvmCtx;
  // LLVM's verifier on the translation, as MLIR's verifier after each pass: in builds with
  // assertions or with PH_VERIFY_EACH_PASS=1 (toPtx verified the module it translates).
  std::unique_ptr<llvm::Module> m =
      mlir::translateModuleToLLVMIR(gpuModule, llvmCtx, "LLVMDialectModule", /*disableVerification=*/!verifyEachPass());
  if (!m) {
    if (err.empty()) err = "cannot translate the GPU module to LLVM IR";
    return false;
  }
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(tm->getTargetTriple());
  if (!linkLibraries(*m, opts.libraries, err)) return false;
  mark("llvm-ir");
  // LLVM's global pass options at the GPU's values (LlvmPipelineScope.h) while the IR pipeline
  // (the SLP vectorizer's horizontal reductions) and codegen (-disable-lsr) run.
  LlvmPipelineScope scope(LlvmPipelineKind::Gpu);
  if (llvm::Error e = optimize(*m, tm, level)) {
    err = "LLVM's IR pipeline failed: " + llvm::toString(std::move(e));
    return false;
  }
  mark("llvm-opt");
  llvm::FailureOr<llvm::SmallString<0>> isa =
      mlir::LLVM::ModuleToObject::translateModuleToISA(*m, *tm, [&] { return gpuModule->emitError(); });
  mark("nvptx");
  if (mlir::failed(isa)) {
    if (err.empty()) err = "the NVPTX backend produced no PTX";
    return false;
  }
  ptx.assign(isa->begin(), isa->end());
  return true;
}

} // namespace ph::backend
