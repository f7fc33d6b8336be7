// RUN: ph-opt %s --tilegpu-pipeline="stages=3" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline="stages=3" --tilegpu-allocate-shared | %FileCheck %s --check-prefix=ALLOC
// REQUIRES: mlir
// Dot operands loaded in a K loop go to a ring of 3 shared buffers by cp.async,
// two iterations ahead: a prologue of 2 guarded copies, then per iteration a
// wait for the current stage, one barrier, the copy 2 ahead, and ldmatrix-able
// reads of the current stage.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK: #shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @mainloop
// CHECK-DAG: %[[BA:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16, #shared>
// CHECK-DAG: %[[BB:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x32x128xf16
// Prologue: stages 0 and 1, each guarded by `iteration < K`, one commit group each.
// CHECK: scf.if
// CHECK:   tilegpu.async_copy {{.*}} into %[[BA]][%{{.*}}]
// CHECK:   tilegpu.async_copy {{.*}} into %[[BB]][%{{.*}}]
// CHECK: tilegpu.async_commit_group
// CHECK: scf.if
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK:   %[[ST:.*]] = arith.remui %{{.*}}, %c3
// CHECK:   tilegpu.async_wait {pending = 1 : i32}
// CHECK:   tilegpu.barrier
// CHECK:   scf.if
// CHECK:     tilegpu.async_copy
// CHECK:   tilegpu.async_commit_group
// CHECK:   tilegpu.local_load %[[BA]][%[[ST]]] {{.*}} -> tensor<128x32xf16, #{{.*}}>
// CHECK:   tilegpu.local_load %[[BB]][%[[ST]]]
// CHECK-NOT: tile.load
// CHECK:   tilegpu.dot
// CHECK: }
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK: tilegpu.barrier

// Two buffers live together: 3 x 128 x 40 x 2 = 30720 bytes, then 3 x 32 x 136 x 2 = 26112.
// ALLOC: tilegpu.shared_bytes = 56832 : i64
// ALLOC-DAG: tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<3x128x32xf16
// ALLOC-DAG: tilegpu.local_alloc {offset = 30720 : i64} : !tilegpu.memdesc<3x32x128xf16
// The sizes are multiples of 32 (what `@aligned` writes as tile.divisibility): rows of whole
// 16-byte chunks, which cp.async needs (an operand without that fact stays in registers).
func.func @mainloop(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %m: i32, %k: i32, %n: i32) -> tensor<128x128xf32, #mma> attributes {tile.divisibility = array<i64: 1, 1, 32, 32, 32>} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %M = arith.index_cast %m : i32 to index
  %K = arith.index_cast %k : i32 to index
  %N = arith.index_cast %n : i32 to index
  %r = scf.for %kk = %c0_i32 to %k step %c32_i32 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
    %ki = arith.index_cast %kk : i32 to index
    %a = tile.load %A[%c0, %ki] extents[%M, %K] {lens = array<i64: 128, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x32xf16, #bla>
    %ca = tilegpu.convert_layout %a : tensor<128x32xf16, #bla> -> tensor<128x32xf16, #opA>
    %b = tile.load %B[%ki, %c0] extents[%K, %N] {lens = array<i64: 32, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x128xf16, #blb>
    %cb = tilegpu.convert_layout %b : tensor<32x128xf16, #blb> -> tensor<32x128xf16, #opB>
    %d = tilegpu.dot %ca, %cb, %acc : tensor<128x32xf16, #opA>, tensor<32x128xf16, #opB> -> tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  return %r : tensor<128x128xf32, #mma>
}
