//===- FullRangeDivision.h - f32 `/` on the GPU as PTX div.full.f32 ---*- C++ -*-===//
//
// docs/language.md ("Precision") makes `/` of f32 values on the GPU correct to within 2 ulp,
// as Triton's and CUDA's fast division are: PTX `div.full.f32` (full range, subnormals kept,
// no slow path) instead of the IEEE `div.rn.f32`, whose slow-path subroutine per division was
// a third of ptxas's time on attention's epilogue `acc / l` (docs/compile.md). The CPU target
// and the interpreter keep IEEE division; 16-bit divisions stay IEEE on the GPU too (NVPTX
// widens them to div.rn.f32 and rounds back: the correctly rounded 16-bit quotient).
//
//===----------------------------------------------------------------------===//
#pragma once

namespace mlir {
class ModuleOp;
}

namespace ph::backend {

/// PH_GPU_DIV=ieee: every f32 division stays `div.rn.f32` (for A/B measurements and for a
/// program that needs the IEEE quotient). Any other value, or none: `div.full.f32`.
bool ieeeGpuDivision();

/// Replaces each f32 `llvm.fdiv` of the module (a vector of f32 element by element) by
/// `llvm.nvvm.div.full`, after the lowering to the LLVM dialect. Left as they are: a divisor
/// that is a constant power of two (exact: LLVM turns it into a multiplication), a quotient of
/// two constants (LLVM folds it, correctly rounded), and everything under PH_GPU_DIV=ieee.
void useFullRangeDivision(mlir::ModuleOp m);

} // namespace ph::backend
