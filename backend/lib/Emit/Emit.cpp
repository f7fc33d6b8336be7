//===- Emit.cpp - `ph emit`'s stages and the pipeline plumbing they share ---===//
#include "Stages.h"
#include "Target/LlvmPipelineScope.h"
#include "Target/LoweringDiagnostics.h"

#include "ph/Conversion/Passes.h"
#include "ph/Source.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace ph;
using namespace ph::backend;

namespace {
struct StageInfo {
  Stage stage;
  const char *name;
};
const StageInfo kStages[] = {{Stage::Kir, "kir"},   {Stage::Tile, "tile"}, {Stage::TileGpu, "tilegpu"},
                             {Stage::Cpu, "cpu"},   {Stage::Llvm, "llvm"},
                             {Stage::LlvmIR, "llvm-ir"}, {Stage::Asm, "asm"},
                             {Stage::Gpu, "gpu"},   {Stage::GpuLlvm, "gpu-llvm"},
                             {Stage::Ptx, "ptx"}};

const StageRegistry &registry() {
  static const StageRegistry r = [] {
    StageRegistry r;
    registerCpuStages(r);
#ifdef PH_HAVE_GPU_TARGET
    registerGpuStages(r);
#endif
    return r;
  }();
  return r;
}
} // namespace

const char *ph::backend::stageName(Stage s) {
  for (const StageInfo &i : kStages)
    if (i.stage == s)
      return i.name;
  return "?";
}

bool ph::backend::parseStage(std::string_view name, Stage &out) {
  for (const StageInfo &i : kStages)
    if (name == i.name) {
      out = i.stage;
      return true;
    }
  return false;
}

std::string ph::backend::stageNames() {
  std::string s;
  for (const StageInfo &i : kStages)
    s += (s.empty() ? "" : "|") + std::string(i.name);
  return s;
}

std::unique_ptr<MLIRContext> ph::backend::makeContext() {
  DialectRegistry reg;
  tile::registerDialects(reg);
  auto ctx = std::make_unique<MLIRContext>(reg, MLIRContext::Threading::DISABLED);
  return ctx;
}

/// The verifier after every pass: in builds with assertions, or with
/// PH_VERIFY_EACH_PASS=1. A release build verifies once per pipeline (at its
/// start, which also checks what the previous pipeline made): per pass it was
/// about a fifth of the GPU to-nvvm step (docs/compile.md), for the same output.
bool ph::backend::verifyEachPass() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char *e = std::getenv("PH_VERIFY_EACH_PASS");
    return e && *e && std::string(e) != "0";
  }();
  return on;
#endif
}

bool ph::backend::runPipeline(ModuleOp module,
                              const std::function<void(OpPassManager &)> &build, std::string &err,
                              TimingScope *timing, std::vector<LoweringDiag> *diags) {
  std::vector<LoweringDiag> local;
  LoweringCapture capture(module.getContext(), diags ? *diags : local, &err);
  if (failed(verify(module)))
    return false;
  PassManager pm(module.getContext());
  pm.enableVerifier(verifyEachPass());
  if (timing)
    pm.enableTiming(*timing);
  build(pm);
  return succeeded(pm.run(module));
}

void ph::backend::appendOp(std::string &out, Operation *op, const EmitOptions &opts) {
  if (!out.empty() && out.back() != '\n')
    out += "\n";
  int before = int(std::count(out.begin(), out.end(), '\n'));
  OpPrintingFlags flags;
  if (opts.debugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // The printer fills `where` with the 1-based line and 0-based column of every op it prints
  // (the alias table above the module counted), the way MLIR's -mlir-print-op-on-
  // diagnostic and -generate-locations tools learn where an op landed.
  AsmState::LocationMap where;
  AsmState state(op, flags, &where);
  llvm::raw_string_ostream os(out);
  op->print(os, state);
  os << "\n";
  if (!opts.printed)
    return;
  size_t first = opts.printed->size();
  op->walk<WalkOrder::PreOrder>([&](Operation *o) {
    auto it = where.find(o);
    if (it == where.end())
      return;
    FileLineColRange range;
    o->getLoc()->walk([&](Location l) {
      if ((range = dyn_cast<FileLineColRange>(l)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (!range)
      return;
    opts.printed->push_back({before + int(it->second.first), o->getName().getStringRef().str(),
                             range.getFilename().str(), int(range.getStartLine()), int(range.getStartColumn()),
                             int(range.getEndLine()), int(range.getEndColumn())});
  });
  std::stable_sort(opts.printed->begin() + first, opts.printed->end(),
                   [](const PrintedOp &a, const PrintedOp &b) { return a.irLine < b.irLine; });
}

namespace {
/// tile -> LLVM dialect -> LLVM IR (the module is lowered in place).
std::unique_ptr<llvm::Module> toLLVMIR(ModuleOp m, const kir::Kernel &k, const EmitOptions &opts,
                                       llvm::LLVMContext &llctx, std::string &err) {
  if (!lowerForCpu(m, k, CpuLowering::Llvm, opts.sources, err, opts.diagnostics))
    return nullptr;
  std::vector<LoweringDiag> translation;
  LoweringCapture capture(m.getContext(), translation, &err);
  return translateModuleToLLVMIR(m, llctx);
}
} // namespace

void ph::backend::registerCpuStages(StageRegistry &r) {
  r[Stage::Cpu] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                     std::string &err) {
    if (!lowerForCpu(m, k, CpuLowering::Loops, opts.sources, err, opts.diagnostics))
      return false;
    appendOp(out, m, opts);
    return true;
  };
  r[Stage::Llvm] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                      std::string &err) {
    if (!lowerForCpu(m, k, CpuLowering::Llvm, opts.sources, err, opts.diagnostics))
      return false;
    appendOp(out, m, opts);
    return true;
  };
  r[Stage::LlvmIR] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts,
                        std::string &out, std::string &err) {
    llvm::LLVMContext llctx;
    std::unique_ptr<llvm::Module> mod = toLLVMIR(m, k, opts, llctx, err);
    if (!mod)
      return false;
    llvm::raw_string_ostream os(out);
    mod->print(os, nullptr);
    return true;
  };
  r[Stage::Asm] = [](ModuleOp m, const kir::Kernel &k, const EmitOptions &opts, std::string &out,
                     std::string &err) {
    llvm::LLVMContext llctx;
    std::unique_ptr<llvm::Module> mod = toLLVMIR(m, k, opts, llctx, err);
    if (!mod)
      return false;
    static std::once_flag once;
    std::call_once(once, [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    // The JIT's own target machine and optimisation level, so this is the
    // code `ph run --target cpu` executes.
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      err = llvm::toString(jtmb.takeError());
      return false;
    }
    unsigned opt = cpuOptLevel();
    jtmb->setCodeGenOptLevel(cpuCodeGenLevel(opt));
    auto tm = jtmb->createTargetMachine();
    if (!tm) {
      err = llvm::toString(tm.takeError());
      return false;
    }
    mod->setDataLayout((*tm)->createDataLayout());
    mod->setTargetTriple((*tm)->getTargetTriple());
    // LLVM's global pass options at the CPU's values through the IR pipeline and codegen.
    LlvmPipelineScope scope(LlvmPipelineKind::Cpu);
    if (llvm::Error e = cpuTransformer(opt, tm->get())(mod.get())) {
      err = llvm::toString(std::move(e));
      return false;
    }
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream os(text);
    llvm::legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      err = "the host target cannot emit assembly";
      return false;
    }
    pm.run(*mod);
    out = text.str().str();
    return true;
  };
}

std::string ph::backend::emitStage(const kir::Kernel &k, Stage stage, std::string &err,
                                   const EmitOptions &opts) {
  if (stage == Stage::Kir)
    return kir::print(k);
  std::unique_ptr<MLIRContext> ctx = makeContext();
  OwningOpRef<ModuleOp> m = kirToTile(*ctx, k, opts.sources, err);
  if (!m)
    return "";
  if (stage == Stage::Tile) {
    std::string out;
    appendOp(out, *m, opts);
    return out;
  }
  auto it = registry().find(stage);
  if (it == registry().end()) {
    err = std::string("stage `") + stageName(stage) + "` is not built into this compiler";
    return "";
  }
  std::string out;
  if (!it->second(*m, k, opts, out, err))
    return "";
  return out;
}
