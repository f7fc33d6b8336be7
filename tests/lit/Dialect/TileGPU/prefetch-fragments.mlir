// RUN: ph-opt %s --tilegpu-pipeline="stages=3" --tilegpu-prefetch-fragments | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline="stages=3" --tilegpu-prefetch-fragments --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 mbarriers=true" --tilegpu-prefetch-fragments | %FileCheck %s --check-prefix=ATTN
// REQUIRES: mlir
// A GEMM's K loop of 32 (two 16-deep mma.sync steps) after tilegpu-pipeline: the first
// stage is waited for, published and its first step read before the loop; in the loop the
// copies two ahead, step 1's reads, step 0's dot, then the wait and barrier for the next
// stage, its step 0 read (carried to the next iteration), and step 1's dot.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[BA:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16
// CHECK-DAG: %[[BB:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x32x128xf16
// CHECK: tilegpu.async_commit_group
// CHECK: tilegpu.async_commit_group
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.barrier
// CHECK: %[[A0:.*]] = tilegpu.local_load %[[BA]][%{{.*}}] {tilegpu.window = array<i64: 0, 0>} {{.*}} -> tensor<128x16xf16, #{{.*}}>
// CHECK: %[[B0:.*]] = tilegpu.local_load %[[BB]][%{{.*}}] {tilegpu.window = array<i64: 0, 0>} {{.*}} -> tensor<16x128xf16, #{{.*}}>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[FA:.*]] = %[[A0]], %[[FB:.*]] = %[[B0]])
// CHECK:   %[[ST:.*]] = arith.remui %[[IT:.*]], %c3
// CHECK-NOT: tilegpu.barrier
// CHECK:   tilegpu.async_copy
// CHECK:   tilegpu.async_commit_group
// CHECK:   %[[A1:.*]] = tilegpu.local_load %[[BA]][%[[ST]]] {tilegpu.window = array<i64: 0, 16>}
// CHECK:   %[[B1:.*]] = tilegpu.local_load %[[BB]][%[[ST]]] {tilegpu.window = array<i64: 16, 0>}
// CHECK:   %[[D0:.*]] = tilegpu.dot %[[FA]], %[[FB]], %[[ACC]] : tensor<128x16xf16
// CHECK:   tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.barrier
// CHECK:   %[[NX:.*]] = arith.remui %{{.*}}, %c3
// CHECK:   %[[NA:.*]] = tilegpu.local_load %[[BA]][%[[NX]]] {tilegpu.window = array<i64: 0, 0>}
// CHECK:   %[[NB:.*]] = tilegpu.local_load %[[BB]][%[[NX]]] {tilegpu.window = array<i64: 0, 0>}
// CHECK:   %[[D1:.*]] = tilegpu.dot %[[A1]], %[[B1]], %[[D0]]
// CHECK:   scf.yield %[[D1]], %[[NA]], %[[NB]]
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK: tilegpu.barrier

// Lowered: before the loop the wait, the barrier and 8 ldmatrix.x4 (one K step: A's 4 row
// blocks, B's 4 pairs of column blocks); in the loop step 1's 8 ldmatrix before step 0's 32
// mma.sync, then the wait and barrier for the next stage and its step 0's 8 ldmatrix before
// step 1's 32 mma.sync.
// NVVM: nvvm.cp.async.wait.group
// NVVM-NEXT: gpu.barrier
// NVVM-COUNT-8: nvvm.ldmatrix
// NVVM: scf.for
// NVVM-NOT: nvvm.mma.sync
// NVVM-COUNT-8: nvvm.ldmatrix
// NVVM-NOT: nvvm.ldmatrix
// NVVM-COUNT-32: nvvm.mma.sync
// NVVM-NOT: nvvm.mma.sync
// NVVM: nvvm.cp.async.wait.group
// NVVM-NEXT: gpu.barrier
// NVVM-NOT: nvvm.mma.sync
// NVVM-COUNT-8: nvvm.ldmatrix
// NVVM-NOT: nvvm.ldmatrix
// NVVM-COUNT-32: nvvm.mma.sync
// NVVM-NOT: nvvm.ldmatrix
// NVVM: scf.yield
func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %m: i32, %k: i32, %n: i32) -> tensor<128x128xf32, #mma> attributes {tile.divisibility = array<i64: 1, 1, 32, 32, 32>} {
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

// Attention's S = Q K^T starts from zero every iteration (no accumulator carried): the pass
// leaves it as the pipeline made it.
// ATTN-LABEL: func.func @scores
// ATTN: scf.for
// ATTN-NOT: tilegpu.window
// ATTN: tilegpu.dot
func.func @scores(%Q: !tile.ptr<f16>, %Kp: !tile.ptr<f16>, %n: i32) -> tensor<64x64xf32, #mma> attributes {tile.divisibility = array<i64: 1, 1, 64>} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %N = arith.index_cast %n : i32 to index
  %c64 = arith.constant 64 : index
  %r = scf.for %kk = %c0_i32 to %n step %c64_i32 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %ki = arith.index_cast %kk : i32 to index
    %q = tile.load %Q[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16, #bla>
    %cq = tilegpu.convert_layout %q : tensor<64x64xf16, #bla> -> tensor<64x64xf16, #opA>
    %kt = tile.load %Kp[%ki, %c0] extents[%N, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16, #blb>
    %ck = tilegpu.convert_layout %kt : tensor<64x64xf16, #blb> -> tensor<64x64xf16, #opB>
    %s = tilegpu.dot %cq, %ck, %zero {transB} : tensor<64x64xf16, #opA>, tensor<64x64xf16, #opB> -> tensor<64x64xf32, #mma>
    %t = arith.addf %acc, %s : tensor<64x64xf32, #mma>
    scf.yield %t : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
