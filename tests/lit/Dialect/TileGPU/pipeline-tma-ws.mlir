// RUN: ph-opt %s --tilegpu-pipeline="tma=1 warp-specialize=1" | %FileCheck %s --check-prefix=WS
// REQUIRES: mlir
// With `warp-specialize`, a producer warpgroup's first thread (128, after the consumers)
// issues the boxes once a stage is free; the consumers wait for full stages, keep one wgmma
// group in flight and release the previous iteration's stage after `warpgroup_wait 1`.
// WS-LABEL: func.func @gemm_ws(
// WS-SAME: tilegpu.launch_threads = 256 : i32
// WS-SAME: tilegpu.tma = [
// WS: tilegpu.mbarrier_init %[[FULL:[^ ]*]] count 2 {tma}
// WS-NEXT: tilegpu.mbarrier_init %[[FREE:[^ ]*]] count 128 :
// WS-NEXT: tilegpu.warp_specialize
// WS: scf.for
// WS:   tilegpu.mbarrier_wait %[[FULL]][%[[CST:.*]]], %{{.*}}
// WS-NOT: tilegpu.fence_async_shared
// WS:   tilegpu.warpgroup_dot {{.*}}[%[[CST]]], {{.*}}[%[[CST]]], %{{.*}} {async}
// WS-NEXT: tilegpu.warpgroup_wait 1
// WS:   %[[LATER:.*]] = arith.cmpi ugt
// WS-NEXT: scf.if %[[LATER]] {
// WS:     %[[PREV:.*]] = arith.remui
// WS-NEXT: tilegpu.mbarrier_arrive %[[FREE]][%[[PREV]]]
// WS: tilegpu.warpgroup_wait 0
// WS: producer
// WS: scf.for
// WS:   tilegpu.mbarrier_wait %[[FREE]]
// WS:   tilegpu.tma_copy {{.*}} on %[[FULL]][%{{.*}}] {issuer = 128 : i64
// WS:   tilegpu.tma_copy {{.*}} on %[[FULL]][%{{.*}}] {issuer = 128 : i64
// WS-NOT: tilegpu.mbarrier_arrive

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 256]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

func.func @gemm_ws(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, %m: i32, %k: i32, %n: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 8>, tile.threads = 128 : i32} {
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
  tile.store %r, %C[%c0, %c0] extents[%M, %N] {lens = array<i64: 128, 256>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : tensor<128x256xf32, #mma>, !tile.ptr<f32>
  return
}
