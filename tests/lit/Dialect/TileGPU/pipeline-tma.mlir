// RUN: ph-opt %s --tilegpu-pipeline="tma=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline | %FileCheck %s --check-prefix=OFF
// REQUIRES: mlir
// With `tma`, a wgmma K loop that keeps one group in flight fills its rings by TMA:
// the kernel takes one tensor map per tensor and box after its other arguments
// (`tilegpu.tma` says which tensor, the box, the swizzle: A's 128x64 tile is one
// 128-byte-swizzled box, B's 64x256 four boxes of 64 columns), each stage has a
// full mbarrier counting one arrival per copy (the issuing thread's expect_tx),
// and each iteration waits for its stage's phase, then a CTA barrier (every
// warpgroup has retired the group that read the stage refilled next) before the
// copies two ahead. No cp.async groups, no fence (TMA writes by the async proxy
// wgmma reads by). B's masked N costs nothing: TMA writes zeros past the extent.
// A tensor whose rows are not known to be whole 16-byte chunks keeps cp.async.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 256]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[A:[^:]*]]: !tile.ptr<f16>, %[[B:[^:]*]]: !tile.ptr<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %[[MA:[^:]*]]: !tile.ptr<i8>, %[[MB:[^:]*]]: !tile.ptr<i8>)
// CHECK-SAME: tilegpu.tma = [{box = array<i64: 128, 64>, swizzle = 128 : i64, tensor = 0 : i64}, {box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 1 : i64}]
// CHECK-DAG: %[[BA:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x128x64xf16
// CHECK-DAG: %[[BB:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x64x256xf16
// CHECK-DAG: %[[FULL:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4xi64
// CHECK: tilegpu.mbarrier_init %[[FULL]] count 2 {tma}
// Prologue: iterations 0 and 1, each into its stage onto that stage's barrier.
// CHECK: tilegpu.tma_copy %[[MA]][%{{.*}}, %{{.*}}] into %[[BA]][%[[S0:.*]]] on %[[FULL]][%[[S0]]]
// CHECK: tilegpu.tma_copy %[[MB]][%{{.*}}, %{{.*}}] into %[[BB]][%[[S0]]] on %[[FULL]][%[[S0]]]
// CHECK: tilegpu.tma_copy %[[MA]]
// CHECK: tilegpu.tma_copy %[[MB]]
// CHECK: scf.for
// CHECK:   %[[ST:.*]] = arith.remui %{{.*}}, %c4
// CHECK:   tilegpu.mbarrier_wait %[[FULL]][%[[ST]]], %{{.*}}
// CHECK-NEXT: tilegpu.barrier
// CHECK:   %[[AST:.*]] = arith.remui %{{.*}}, %c4
// CHECK:   tilegpu.tma_copy %[[MA]][%{{.*}}, %{{.*}}] into %[[BA]][%[[AST]]] on %[[FULL]][%[[AST]]]
// CHECK:   tilegpu.tma_copy %[[MB]][%{{.*}}, %{{.*}}] into %[[BB]][%[[AST]]] on %[[FULL]][%[[AST]]]
// CHECK:   tilegpu.warpgroup_dot %[[BA]][%[[ST]]], %[[BB]][%[[ST]]], %{{.*}} {async}
// CHECK-NEXT: tilegpu.warpgroup_wait 1
// CHECK: tilegpu.warpgroup_wait 0
// CHECK: tilegpu.barrier
// CHECK-NEXT: return
// CHECK-NOT: tilegpu.async_copy
// CHECK-NOT: tilegpu.async_commit_group
// CHECK-NOT: tilegpu.async_wait
// CHECK-NOT: tilegpu.fence_async_shared

// CHECK-LABEL: func.func @unaligned(
// CHECK-NOT: !tile.ptr<i8>
// CHECK-NOT: tilegpu.tma
// CHECK: tilegpu.async_copy
// CHECK: tilegpu.async_commit_group

// OFF-LABEL: func.func @gemm
// OFF-NOT: tilegpu.tma
// OFF: tilegpu.async_copy
func.func @gemm(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %m: i32, %k: i32, %n: i32) -> tensor<128x256xf32, #mma> attributes {tile.divisibility = array<i64: 1, 1, 1, 64, 8>, tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #mma>
  %M = arith.index_cast %m : i32 to index
  %K = arith.index_cast %k : i32 to index
  %N = arith.index_cast %n : i32 to index
  %r = scf.for %kk = %c0_i32 to %k step %c64_i32 iter_args(%acc = %zero) -> (tensor<128x256xf32, #mma>) : i32 {
    %ki = arith.index_cast %kk : i32 to index
    %a = tile.load %A[%c0, %ki] extents[%M, %K] {lens = array<i64: 128, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x64xf16, #bla>
    %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bla> -> tensor<128x64xf16, #opA>
    %b = tile.load %B[%ki, %c0] extents[%K, %N] {lens = array<i64: 64, 256>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x256xf16, #blb>
    %cb = tilegpu.convert_layout %b : tensor<64x256xf16, #blb> -> tensor<64x256xf16, #opB>
    %d = tilegpu.dot %ca, %cb, %acc : tensor<128x64xf16, #opA>, tensor<64x256xf16, #opB> -> tensor<128x256xf32, #mma>
    scf.yield %d : tensor<128x256xf32, #mma>
  }
  return %r : tensor<128x256xf32, #mma>
}

func.func @unaligned(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %m: i32, %k: i32, %n: i32) -> tensor<128x256xf32, #mma> attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %c64_i32 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32, #mma>
  %M = arith.index_cast %m : i32 to index
  %K = arith.index_cast %k : i32 to index
  %N = arith.index_cast %n : i32 to index
  %r = scf.for %kk = %c0_i32 to %k step %c64_i32 iter_args(%acc = %zero) -> (tensor<128x256xf32, #mma>) : i32 {
    %ki = arith.index_cast %kk : i32 to index
    %a = tile.load %A[%c0, %ki] extents[%M, %K] {lens = array<i64: 128, 64>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x64xf16, #bla>
    %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bla> -> tensor<128x64xf16, #opA>
    %b = tile.load %B[%ki, %c0] extents[%K, %N] {lens = array<i64: 64, 256>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x256xf16, #blb>
    %cb = tilegpu.convert_layout %b : tensor<64x256xf16, #blb> -> tensor<64x256xf16, #opB>
    %d = tilegpu.dot %ca, %cb, %acc : tensor<128x64xf16, #opA>, tensor<64x256xf16, #opB> -> tensor<128x256xf32, #mma>
    scf.yield %d : tensor<128x256xf32, #mma>
  }
  return %r : tensor<128x256xf32, #mma>
}

