// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// A row maximum in the mma layout: each thread combines its registers of a row, then
// the quad (lanes 4g .. 4g+3) exchanges partials with two butterfly shuffles; the
// [64, 1] result is broadcast back to [64, 32] by reading the same registers.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// CHECK-LABEL: gpu.func @rowmax
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: arith.subf
func.func @rowmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %s = tile.load %x[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<64x32xf32, #mma>
  %m = tile.rowmax %s : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
  %b = tile.broadcast %m : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
  %d = arith.subf %s, %b : tensor<64x32xf32, #mma>
  tile.store %d, %y[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x32xf32, #mma>, !tile.ptr<f32>
  return
}
