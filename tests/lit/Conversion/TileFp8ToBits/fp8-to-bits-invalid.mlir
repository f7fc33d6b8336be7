// RUN: ph-opt %s --tile-fp8-to-bits -verify-diagnostics
// REQUIRES: mlir
// Negative case: an fp8 constant (the frontend never makes one: literals are f32 and
// tile.convert) is refused rather than lowered with an fp8 attribute left in it.

func.func @fp8_constant(%a: !tile.ptr<f8E4M3FN>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  // expected-error @+1 {{an fp8 constant reached the GPU lowering (expected an f32 constant and a tile.convert)}}
  %0 = arith.constant dense<1.0> : tensor<4x64xf8E4M3FN>
  tile.store %0, %a[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf8E4M3FN>, !tile.ptr<f8E4M3FN>
  return
}
