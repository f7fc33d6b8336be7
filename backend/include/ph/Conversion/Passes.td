//===- Passes.td - Lowerings of the tile dialect ---------------------------===//
#ifndef PH_CONVERSION_PASSES_TD
#define PH_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileToLinalg : Pass<"tile-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower tile ops to tensor, linalg and scf for the CPU target";
  let description = [{
    Tile values stay tensors: `tile.load` becomes a `tensor.generate` whose
    body reads the global tensor through an `!llvm.ptr` (zero where a masked
    dimension runs past its extent), `tile.store` a loop nest of guarded
    `llvm.store`s, `tile.dot`, the row reductions, broadcasts and masks become
    `linalg.generic`s, extract/insert become tensor slices, and elementwise
    arith/math on tensors become `linalg.generic`s. Each kernel function
    `@k(args...)` becomes `@k_cta(args..., bx, by, bz: i32)` (one CTA), and a
    new `@k(args..., gx, gy, gz: i32)` runs every CTA of the grid in a loop:
    the CPU target's entry point (docs/abi.md).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TileBufferize : Pass<"tile-bufferize", "::mlir::ModuleOp"> {
  let summary = "One-Shot Bufferize, with copies as linalg.copy (lowered to loops later)";
  let description = [{
    Upstream One-Shot Bufferize, except that buffer copies are `linalg.copy`
    rather than `memref.copy`, so that the CPU target needs no runtime
    library for strided copies.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect"];
}

def TileFp8ToBits : Pass<"tile-fp8-to-bits", "::mlir::ModuleOp"> {
  let summary = "fp8 tensors and tiles as their bits (i8), conversions as integer arithmetic";
  let description = [{
    For the GPU lowerings, which have no fp8 registers, vectors or shared
    tiles: every `!tile.ptr<f8E4M3FN>` / `<f8E5M2>` argument becomes
    `!tile.ptr<i8>`, every value of an fp8 type (loads, splats, broadcasts,
    stores' operands) its i8 bits, and every `tile.convert` from or to fp8 the
    integer arithmetic of ph/Conversion/ConvertRules.h on tiles (elementwise
    arith ops each lowering already takes). The CPU target keeps fp8 types to
    the end (its loads and stores move i8). docs/language.md, "fp8".
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // PH_CONVERSION_PASSES_TD
