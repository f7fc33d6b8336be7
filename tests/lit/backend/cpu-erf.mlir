// RUN: ph-opt %s --tile-loops-to-llvm | %FileCheck %s --implicit-check-not=math.erf
// REQUIRES: mlir
// The CPU pipeline expands math.erf into MLIR's polynomial approximation (f32; a
// 16-bit erf is widened to f32 first): LLVM has no erf intrinsic, so math.erf reached
// LLVM translation and every kernel using `erf` failed on --target cpu (difftest
// bug 4, `missing LLVMTranslationDialectInterface registration ... math.erf`).
// The numbers against the fp64 interpreter: tests/differential/cases/seed32-crash.

// CHECK-LABEL: llvm.func @erf
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.intr.fma
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16
// CHECK: llvm.return
func.func @erf(%x: f32, %h: f16) -> (f32, f16) {
  %a = math.erf %x : f32
  %b = math.erf %h : f16
  return %a, %b : f32, f16
}
