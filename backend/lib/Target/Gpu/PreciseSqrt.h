//===- PreciseSqrt.h - IEEE sqrt on the GPU ----------------------*- C++ -*-===//
//
// docs/language.md makes `sqrt` correctly rounded on every target. convert-gpu-to-nvvm
// turns math.sqrt (and llvm.intr.sqrt, which it marks illegal) into libdevice's
// __nv_sqrtf, which is sqrt.approx.f32 unless __nvvm_reflect("__CUDA_PREC_SQRT") is 1,
// and LLVM 22's NVVMReflect takes that value only from a command-line option
// (-nvvm-reflect-add), not from the module. LLVM's own llvm.sqrt.f32 is sqrt.rn.f32 on
// NVPTX (its prec-sqrt default), so after gpu-to-nvvm the calls become that intrinsic.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace mlir {
class ModuleOp;
}

namespace ph::backend {

/// Replaces every call of __nv_sqrtf in the module (16-bit operands reach it widened to
/// f32: one rounding back, as the language's precision rule allows) by llvm.intr.sqrt,
/// and drops the declaration when nothing calls it any more. f64's __nv_sqrt is IEEE already.
void usePreciseSqrt(mlir::ModuleOp m);

} // namespace ph::backend
