// RUN: ph-opt %s --tilegpu-pipeline="stages=3" --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// Shared-memory addressing of a GEMM's K loop on mma.sync (128 threads, A 128x32, B 32x128 f16):
// a copy's chunks of one thread lie 32 rows apart for A (4 chunks a row), 8 for B (16), so only the
// first chunk's addresses are computed in full; every next source is the last plus one
// loop-invariant step of those rows and every next destination the first plus a constant
// (those rows padded to 40 or 136 halves). ldmatrix's per-matrix offsets are constants after
// the thread's base, which LLVM folds into the instruction's immediate.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @gemm
// CHECK: scf.for
// A: four chunks, one step of 32 rows of K elements, 2560 bytes (32 x 40 x 2) apart in shared memory.
// CHECK: %[[SA0:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK: %[[DA0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK: %[[STA:.*]] = arith.muli %c32{{.*}}, %{{.*}} : index
// CHECK: %[[STA64:.*]] = arith.index_cast %[[STA]] : index to i64
// CHECK: nvvm.cp.async.shared.global %[[DA0]], %[[SA0]], 16
// CHECK-NEXT: %[[SA1:.*]] = llvm.getelementptr %[[SA0]][%[[STA64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT: %[[C1:.*]] = arith.constant 2560 : index
// CHECK-NEXT: %[[C1_64:.*]] = arith.index_cast %[[C1]] : index to i64
// CHECK-NEXT: %[[DA1:.*]] = llvm.getelementptr %[[DA0]][%[[C1_64]]]
// CHECK-NEXT: nvvm.cp.async.shared.global %[[DA1]], %[[SA1]], 16
// CHECK-NEXT: %[[SA2:.*]] = llvm.getelementptr %[[SA1]][%[[STA64]]]
// CHECK: arith.constant 5120 : index
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SA2]], 16
// CHECK: arith.constant 7680 : index
// CHECK: nvvm.cp.async.shared.global
// B: 16 chunks a row, so 8 rows (8 x 136 x 2 = 2176 bytes) between a thread's chunks.
// CHECK: %[[SB0:.*]] = llvm.getelementptr %arg1[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SB0]], 16
// CHECK-NEXT: llvm.getelementptr %[[SB0]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT: arith.constant 2176 : index
// CHECK: nvvm.cp.async.commit.group
// ldmatrix of A: the thread's part, then the matrix's constant offset.
// CHECK: %[[T:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[OFF:.*]] = arith.index_cast %c{{[0-9]+}}{{.*}} : index to i64
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[T]][%[[OFF]]]
// CHECK-NEXT: nvvm.ldmatrix %[[P]]
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
