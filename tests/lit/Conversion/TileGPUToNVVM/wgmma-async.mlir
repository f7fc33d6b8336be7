// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// The pipelined K loop keeps one wgmma group in flight: commit without wait 0,
// then wait 1 (the previous iteration's group); on the loop's exit, inside the
// guard, wait 0 and an empty asm that takes and gives back each accumulator
// register (so no read of them moves above the wait), 32 registers an asm.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @mainloop
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,
// CHECK-COUNT-3: llvm.inline_asm has_side_effects asm_dialect = att ""
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.cp.async.wait.group 0
func.func @mainloop(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %k = arith.constant 256 : i32
  %K = arith.constant 256 : index
  %r = scf.for %kk = %c0_i32 to %k step %c32_i32 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
    %ki = arith.index_cast %kk : i32 to index
    %a = tile.load %A[%c0, %ki] extents[%c128, %K] {lens = array<i64: 128, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x32xf16, #bl>
    %ca = tilegpu.convert_layout %a : tensor<128x32xf16, #bl> -> tensor<128x32xf16, #opA>
    %b = tile.load %B[%ki, %c0] extents[%K, %c128] {lens = array<i64: 32, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x128xf16, #bl>
    %cb = tilegpu.convert_layout %b : tensor<32x128xf16, #bl> -> tensor<32x128xf16, #opB>
    %d = tilegpu.dot %ca, %cb, %acc : tensor<128x32xf16, #opA>, tensor<32x128xf16, #opB> -> tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.store %r, %C[%c0, %c0] extents[%c128, %c128] {lens = array<i64: 128, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<128x128xf32, #mma>, !tile.ptr<f32>
  return
}
