// RUN: ph-opt %s --tilegpu-pipeline="stages=3 chained-stages=4 shared-per-sm=233472 shared-per-block=232448" | %FileCheck %s --check-prefix=KEEP
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 chained-stages=6 shared-per-sm=80000 shared-per-block=99000" | %FileCheck %s --check-prefix=DEEP
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 chained-stages=4 shared-per-sm=80000 shared-per-block=80000" | %FileCheck %s --check-prefix=KEEP
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 chained-stages=4" | %FileCheck %s --check-prefix=KEEP
// REQUIRES: mlir
// A K loop that chains its accumulator gets a deeper ring only while the CTAs per SM
// that shared memory allows stay as many. One stage here is 128 x 40 x 2 + 32 x 136 x 2 =
// 18,944 bytes (and 1 KiB per CTA is reserved):
// - H100's 233,472 bytes per SM hold 4 CTAs of 3 stages but 3 of 4 stages: 3 stages (KEEP);
// - 80,000 bytes per SM hold one CTA of 3 stages and one of 4, none of 5: 4 stages (DEEP);
// - the same, but 4 stages and 8 KiB would pass the 80,000 a CTA may take: 3 (KEEP);
// - without the SM's size (shared-per-sm = 0): `stages` (KEEP).

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// KEEP-LABEL: func.func @mainloop
// KEEP-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16
// KEEP-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x32x128xf16
// KEEP: arith.remui %{{.*}}, %c3
// DEEP-LABEL: func.func @mainloop
// DEEP-DAG: tilegpu.local_alloc : !tilegpu.memdesc<4x128x32xf16
// DEEP-DAG: tilegpu.local_alloc : !tilegpu.memdesc<4x32x128xf16
// The copies run stages - 1 = 3 iterations ahead: three guarded prologue copies of A.
// DEEP-COUNT-3: tilegpu.async_copy {{.*}} : !tile.ptr<f16>, !tilegpu.memdesc<4x128x32xf16
// DEEP: scf.for
// DEEP: arith.remui %{{.*}}, %c4
// DEEP: tilegpu.async_wait {pending = 2 : i32}
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
