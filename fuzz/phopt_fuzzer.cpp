//===- phopt_fuzzer.cpp - Bytes to ph-opt: parse, verify, lower the tile dialect ===//
//
// What `ph-opt` does with a text file: parse it with the tile dialect and
// every dialect the pipelines use registered, verify it, print it and parse
// the printout again (the custom assembly formats must round-trip), then run
// the CPU target's first lowering (`tile-to-linalg`) on what verified. The
// verifier is the contract: a module it accepts must not crash a pass, and a
// pass may refuse it only with a diagnostic.
//
//===----------------------------------------------------------------------===//
#include "../tools/ph-opt/MlirTextGuards.h"
#include "ph/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace {

mlir::MLIRContext &context() {
  // One context for the run: registering and loading dialects per input would
  // dominate; each input's module is destroyed before the next.
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    ph::tile::registerDialects(registry);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    c->allowUnregisteredDialects(false);
    return c;
  }();
  return *ctx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &ctx = context();
  // Diagnostics are the expected outcome for most inputs: swallow them.
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  std::string text(reinterpret_cast<const char *>(data), size);
  // What ph-opt refuses before parsing, as MLIR 22's own parser would crash on it: nesting
  // past its stack, and `array<index ...>` (llvm/llvm-project#179045).
  if (ph::opt::refuseMlirText(text)) return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module || mlir::failed(mlir::verify(*module))) return 0;

  // Round trip: what verified prints, and the printout parses and verifies again.
  std::string printed;
  {
    llvm::raw_string_ostream os(printed);
    module->print(os);
  }
  mlir::OwningOpRef<mlir::ModuleOp> again = mlir::parseSourceString<mlir::ModuleOp>(printed, &ctx);
  if (!again || mlir::failed(mlir::verify(*again))) {
    llvm::errs() << "phopt_fuzzer: the printout of a verified module does not parse back:\n" << printed << "\n";
    std::abort();
  }

  // Only modules that are tile kernels go through the lowering: upstream passes are
  // upstream's to fuzz.
  mlir::PassManager pm(&ctx);
  pm.addPass(ph::tile::createTileToLinalg());
  (void)pm.run(*module);
  return 0;
}
