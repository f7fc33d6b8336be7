// RUN: ph-opt %s --split-input-file --convert-tilegpu-to-nvvm --verify-diagnostics | %FileCheck %s
// REQUIRES: mlir
// A 16-bit accumulator becomes the next dot's A operand by renaming registers (no
// shared memory, no shuffles); a conversion that would need shared memory is refused.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

// CHECK-LABEL: gpu.func @p_to_a
// CHECK-NOT: ldmatrix
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.mma.sync
func.func @p_to_a(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %p = tile.load %x[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x32xf16, #mma>
  %a = tilegpu.convert_layout %p : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #opA>
  %bm = tile.load %x[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 32, 8>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x8xf16, #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
  %z = arith.constant dense<0.0> : tensor<64x8xf32, #mma>
  %d = tilegpu.dot %a, %bm, %z : tensor<64x32xf16, #opA>, tensor<32x8xf16, #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x8xf32, #mma>
  tile.store %d, %y[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 8>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x8xf32, #mma>, !tile.ptr<f32>
  return
}

// -----

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @through_shared(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.load %x[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<64x32xf32, #mma>
  // expected-error @+1 {{failed to legalize operation 'tilegpu.convert_layout'}}
  %b = tilegpu.convert_layout %s : tensor<64x32xf32, #mma> -> tensor<64x32xf32, #bl>
  tile.store %b, %y[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x32xf32, #bl>, !tile.ptr<f32>
  return
}
