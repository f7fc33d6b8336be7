//===- CpuTarget.cpp - JIT-compile a kernel for the host and run its grid ---===//
//
// kir -> tile -> loops -> LLVM dialect -> LLVM IR -> ORC JIT (MLIR's
// ExecutionEngine). The lowered module's entry `@<kernel>(tensors..., sizes...,
// scalars..., gx, gy, gz)` loops over every CTA itself (docs/abi.md), so a
// launch is one call through the engine's packed-argument wrapper.
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/CpuTarget.h"

#include "Emit/Stages.h"
#include "Target/LlvmPipelineScope.h"
#include "Target/LoweringDiagnostics.h"
#include "ph/Conversion/Passes.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

using namespace mlir;
using namespace ph;
using namespace ph::backend;

namespace {

/// f32 or f64 -> bf16, rounding to nearest even (NaN stays a quiet NaN).
uint16_t bf16Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((b >> 16) | 0x40);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/// A float whose low 16 bits are `bits`: a bf16 is returned in the low half of the first
/// floating-point register (xmm0 on x86-64, h0/s0 on AArch64), so returning this float
/// returns that bf16.
float asBf16Return(uint16_t bits) {
  uint32_t b = bits;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// compiler-rt's f32/f64 -> bf16 helpers. x86 without AVX512-BF16 keeps bf16 values in f32
// registers and calls __truncsfbf2 to narrow one for a store (a bf16 load that meets a mask's
// select is enough); the JIT's process has no compiler-rt, so the kernel failed to link:
// "Symbols not found: [ __truncsfbf2 ]" (found by the differential tests,
// tests/differential/cases/seed5-crash.json).
extern "C" float ph_truncsfbf2(float x) { return asBf16Return(bf16Bits(x)); }
extern "C" float ph_truncdfbf2(double x) {
  // Through f32 would round twice; bf16's 8 bits of mantissa from the f64's top bits,
  // with the rest folded into a sticky bit, round once.
  float f = static_cast<float>(x);
  double back = static_cast<double>(f);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (back != x && !std::isnan(x) && (b & 0xffffu) == 0x8000u)
    b += (back < x) == (f > 0) ? 1 : -1; // break an exact-looking tie the way x lies
  std::memcpy(&f, &b, 4);
  return asBf16Return(bf16Bits(f));
}

/// What a launch needs to check and marshal its arguments.
struct Signature {
  std::string name;
  std::vector<kir::TensorParam> tensors;
  size_t numSizes = 0;
  std::vector<Elem> scalars;
};

class JitKernel final : public CpuKernel {
public:
  JitKernel(std::unique_ptr<MLIRContext> ctx, std::unique_ptr<ExecutionEngine> engine, Signature sig)
      : ctx(std::move(ctx)), engine(std::move(engine)), sig(std::move(sig)) {}

  std::string launch(const LaunchArgs &a) override {
    if (a.tensors.size() != sig.tensors.size() || a.sizes.size() != sig.numSizes ||
        a.scalars.size() != sig.scalars.size())
      return "kernel `" + sig.name + "` takes " + std::to_string(sig.tensors.size()) +
             " tensors, " + std::to_string(sig.numSizes) + " sizes and " +
             std::to_string(sig.scalars.size()) + " scalars; the launch gives " +
             std::to_string(a.tensors.size()) + ", " + std::to_string(a.sizes.size()) + " and " +
             std::to_string(a.scalars.size());
    // Every tensor must hold the elements its declared shape says, or the
    // kernel would read or write past the host buffer.
    std::vector<void *> ptrs(sig.tensors.size());
    for (size_t i = 0; i < sig.tensors.size(); ++i) {
      const kir::TensorParam &t = sig.tensors[i];
      const HostTensor *h = a.tensors[i];
      if (!h)
        return "tensor `" + t.name + "` is missing";
      if (h->elem != t.elem)
        return std::string("tensor `") + t.name + "` holds " + elemName(h->elem) + ", the kernel declares " +
               elemName(t.elem);
      int64_t n = 1;
      for (const kir::TensorDim &d : t.dims) {
        int64_t e = d.value >= 0 ? d.value : a.sizes[d.size];
        if (e < 0)
          return "tensor `" + t.name + "` has a negative extent";
        n *= e;
      }
      if ((int64_t)h->bytes.size() < n * (int64_t)elemBytes(t.elem))
        return "tensor `" + t.name + "` has " + std::to_string(h->bytes.size()) +
               " bytes, its shape needs " + std::to_string(n * elemBytes(t.elem));
      ptrs[i] = const_cast<uint8_t *>(h->bytes.data());
    }
    std::vector<int32_t> sizes(a.sizes.begin(), a.sizes.end());
    std::vector<float> f32s(sig.scalars.size());
    std::vector<int32_t> i32s(sig.scalars.size());
    int32_t grid[3] = {(int32_t)a.grid[0], (int32_t)a.grid[1], (int32_t)a.grid[2]};
    llvm::SmallVector<void *> packed;
    for (void *&p : ptrs)
      packed.push_back(&p);
    for (int32_t &s : sizes)
      packed.push_back(&s);
    for (size_t i = 0; i < sig.scalars.size(); ++i) {
      if (sig.scalars[i] == Elem::I32) {
        i32s[i] = (int32_t)a.scalars[i];
        packed.push_back(&i32s[i]);
      } else {
        f32s[i] = (float)a.scalars[i];
        packed.push_back(&f32s[i]);
      }
    }
    for (int32_t &g : grid)
      packed.push_back(&g);
    if (llvm::Error e = engine->invokePacked(sig.name, packed))
      return "cannot run `" + sig.name + "`: " + llvm::toString(std::move(e));
    return "";
  }

private:
  std::unique_ptr<MLIRContext> ctx;
  std::unique_ptr<ExecutionEngine> engine;
  Signature sig;
};

} // namespace

unsigned ph::backend::cpuOptLevel() {
  const char *env = std::getenv("PH_CPU_OPT_LEVEL");
  return env && *env >= '0' && *env <= '3' && !env[1] ? unsigned(*env - '0') : 1;
}

llvm::CodeGenOptLevel ph::backend::cpuCodeGenLevel(unsigned opt) {
  // Level 1 pairs the light pipeline with fast instruction selection: the IR
  // is already clean, and selection is where -O1/-O2 codegen spends its time.
  return opt <= 1   ? llvm::CodeGenOptLevel::None
         : opt == 2 ? llvm::CodeGenOptLevel::Default
                    : llvm::CodeGenOptLevel::Aggressive;
}

static std::function<llvm::Error(llvm::Module *)> optimizingTransformer(unsigned opt, llvm::TargetMachine *tm);

/// The host's features without its f32 -> bf16 instructions. AVX512-BF16's and
/// AVX-NE-CONVERT's VCVTNEPS2BF16 flush subnormal inputs and results to zero whatever
/// MXCSR says; LLVM uses it for every bf16 that a load keeps in an f32 register on the
/// way to a store (a masked tile copy), so on such a host (AMD Zen 4) the CPU target
/// zeroed the subnormals the interpreter keeps (tests/lit/run/conversions.test,
/// chain_bf16). Without those features LLVM calls __truncsfbf2 (ph_truncsfbf2, exact).
static std::string hostFeaturesExactBf16() {
  std::string fs;
  for (const auto &[name, on] : llvm::sys::getHostCPUFeatures()) {
    if (name == "avx512bf16" || name == "avxneconvert" || name == "amx-bf16") continue;
    fs += (fs.empty() ? "" : ",") + std::string(on ? "+" : "-") + name.str();
  }
  return fs + (fs.empty() ? "" : ",") + "-avx512bf16,-avxneconvert,-amx-bf16";
}

std::function<llvm::Error(llvm::Module *)> ph::backend::cpuTransformer(unsigned opt,
                                                                      llvm::TargetMachine *tm) {
  auto optimize = optimizingTransformer(opt, tm);
  static const std::string features = hostFeaturesExactBf16();
  return [optimize](llvm::Module *mod) -> llvm::Error {
    for (llvm::Function &f : *mod)
      if (!f.isDeclaration()) f.addFnAttr("target-features", features);
    // The caller holds a CPU LlvmPipelineScope over this and the machine-code step: LLVM's
    // global pass options (-slp-vectorize-hor, -disable-lsr) at the CPU's values while both run.
    return optimize(mod);
  };
}

static std::function<llvm::Error(llvm::Module *)> optimizingTransformer(unsigned opt, llvm::TargetMachine *tm) {
  if (opt != 1)
    return makeOptimizingTransformer(opt, 0, tm);
  // The light pipeline: scalar replacement of the memref descriptors,
  // redundancy elimination and hoisting out of the tile loops. It gives about
  // the run time of -O2 for a fraction of its compile time (docs/backend.md).
  std::string pipeline = "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(licm))";
  if (const char *passes = std::getenv("PH_CPU_PASSES"); passes && *passes)
    pipeline = passes;
  return [pipeline](llvm::Module *mod) -> llvm::Error {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    if (llvm::Error e = pb.parsePassPipeline(mpm, pipeline))
      return e;
    mpm.run(*mod, mam);
    return llvm::Error::success();
  };
}

/// PH_TEST_CPU_NO_LOWERING=1 (tests only): no valid program makes the CPU lowering
/// fail, so the tests of its diagnostic (tests/lit/run/cpu-lowering.ph) make it refuse.
static bool refuseForTest(ModuleOp m) {
  const char *e = std::getenv("PH_TEST_CPU_NO_LOWERING");
  std::string mode = e ? e : "";
  if (mode == "2") { // an error that names no op (E0506 at the kernel, MLIR's words as a note)
    emitError(UnknownLoc::get(m.getContext())) << "the module refused by the test-only PH_TEST_CPU_NO_LOWERING=2";
    return true;
  }
  if (mode != "1") return false;
  // The kernel's first tile op that carries a source range, as a failing pattern would name it.
  Operation *at = nullptr;
  m.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "tile" && !spanOf(op->getLoc()).file.empty()) {
      at = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  (at ? at : m.getOperation())->emitError() << "`" << (at ? at->getName().getStringRef() : StringRef("module"))
                                            << "` refused by the test-only PH_TEST_CPU_NO_LOWERING=1";
  return true;
}

bool ph::backend::lowerForCpu(ModuleOp m, const kir::Kernel &k, CpuLowering upTo, const SourceManager *sources,
                              std::string &err, std::vector<Diagnostic> *diags) {
  std::vector<LoweringDiag> captured;
  bool ok;
  {
    LoweringCapture capture(m.getContext(), captured, &err);
    ok = !refuseForTest(m);
  }
  ok = ok && runPipeline(m, [upTo](OpPassManager &pm) {
         tile::buildTileToLoopsPipeline(pm);
         if (upTo == CpuLowering::Llvm) tile::buildLoopsToLLVMPipeline(pm);
       }, err, nullptr, &captured);
  if (ok) return true;
  // The GPU target's mapping (Target/LoweringDiagnostics.h): the first error with a range,
  // at its op; errors that name no op, at the kernel with MLIR's text as a note; MLIR
  // silent leaves the caller's E0502 at the kernel with `err`.
  if (!diags) return false;
  if (const LoweringDiag *d = firstLocated(captured, sources))
    diags->push_back(loweringDiagnostic(DiagKind::CpuLoweringFailed, *d, k, sources));
  else if (std::string text = errorText(captured); !text.empty())
    diags->push_back(kernelDiagnostic(DiagKind::CpuLoweringFailed, text, "MLIR", k));
  return false;
}

std::unique_ptr<CpuKernel> ph::backend::compileForCpu(const kir::Kernel &k, std::string &error,
                                                     const SourceManager *sources,
                                                     std::vector<Diagnostic> *diags) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // PH_CPU_TIMING=1 prints where compile time goes (stderr).
  static const bool timing = std::getenv("PH_CPU_TIMING") != nullptr;
  auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](const char *what) {
    if (!timing)
      return;
    auto t1 = std::chrono::steady_clock::now();
    std::fprintf(stderr, "ph cpu: %-22s %8.2f ms\n", what,
                 std::chrono::duration<double, std::milli>(t1 - t0).count());
    t0 = t1;
  };
  std::unique_ptr<MLIRContext> ctx = makeContext();
  lap("context");
  OwningOpRef<ModuleOp> m = kirToTile(*ctx, k, sources, error);
  lap("kir -> tile");
  if (!m)
    return nullptr;
  if (!lowerForCpu(*m, k, CpuLowering::Llvm, sources, error, diags))
    return nullptr;
  lap("tile -> llvm dialect");
  ExecutionEngineOptions eo;
  unsigned opt = cpuOptLevel();
  std::function<llvm::Error(llvm::Module *)> transformer = cpuTransformer(opt, nullptr);
  eo.jitCodeGenOptLevel = cpuCodeGenLevel(opt);
  eo.transformer = transformer;
  eo.jitCodeGenOptLevel = opt == 0   ? llvm::CodeGenOptLevel::None
                          : opt == 1 ? llvm::CodeGenOptLevel::Less
                          : opt == 2 ? llvm::CodeGenOptLevel::Default
                                     : llvm::CodeGenOptLevel::Aggressive;
  eo.enableGDBNotificationListener = false;
  eo.enablePerfNotificationListener = false;
  // LLVM's JIT names no op: E0506 at the kernel, LLVM's words as its note.
  auto jitFailed = [&](llvm::Error e) {
    std::string text = llvm::toString(std::move(e));
    error = "JIT compilation failed: " + text;
    if (diags) diags->push_back(kernelDiagnostic(DiagKind::CpuLoweringFailed, text, "LLVM", k, "LLVM's JIT failed: "));
    return nullptr;
  };
  // LLVM's global pass options at the CPU's values (the GPU's differ: LlvmPipelineScope.h) through
  // the IR pipeline (the transformer, in create) and the machine code (the lookup below).
  std::optional<LlvmPipelineScope> scope(std::in_place, LlvmPipelineKind::Cpu);
  auto engine = ExecutionEngine::create(*m, eo);
  lap("engine (LLVM IR, opt)");
  if (!engine) return jitFailed(engine.takeError());
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    map[interner("__truncsfbf2")] = {llvm::orc::ExecutorAddr::fromPtr(&ph_truncsfbf2), llvm::JITSymbolFlags::Exported};
    map[interner("__truncdfbf2")] = {llvm::orc::ExecutorAddr::fromPtr(&ph_truncdfbf2), llvm::JITSymbolFlags::Exported};
    return map;
  });
  // ORC compiles lazily: look the entry up now so that compile errors surface
  // here and the first launch is not slower than the rest.
  // PH_TEST_CPU_NO_JIT=1 (tests only; no valid program makes the JIT fail) asks for an
  // entry the module does not have, which ORC refuses as it would a missing symbol.
  const char *noJit = std::getenv("PH_TEST_CPU_NO_JIT");
  std::string entry = noJit && std::string(noJit) == "1" ? k.name + "_refused_by_PH_TEST_CPU_NO_JIT" : k.name;
  if (auto fn = (*engine)->lookupPacked(entry); !fn) return jitFailed(fn.takeError());
  scope.reset();
  lap("machine code");
  Signature sig;
  sig.name = k.name;
  sig.tensors = k.tensors;
  sig.numSizes = k.sizes.size();
  for (const kir::ScalarParam &s : k.scalars)
    sig.scalars.push_back(s.elem == Elem::I32 ? Elem::I32 : Elem::F32);
  return std::make_unique<JitKernel>(std::move(ctx), std::move(*engine), std::move(sig));
}
