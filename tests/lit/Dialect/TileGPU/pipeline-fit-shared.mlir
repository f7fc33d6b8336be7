// RUN: ph-opt %s --tilegpu-pipeline="stages=3 shared-per-block=232448" | %FileCheck %s --check-prefix=THREE
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 shared-per-block=40000" | %FileCheck %s --check-prefix=TWO
// RUN: ph-opt %s --tilegpu-pipeline="stages=3 shared-per-block=20000" | %FileCheck %s --check-prefix=TWO
// RUN: ph-opt %s --tilegpu-pipeline="stages=3" | %FileCheck %s --check-prefix=THREE
// REQUIRES: mlir
// A ring as deep as the CTA's shared memory holds: one stage of @mainloop's rings is
// 128 x (32 + 8) + 32 x (128 + 8) f16 = 18,944 bytes, so 3 stages (56,832) fit in 232,448 bytes,
// and in 40,000 only 2 do. Below 2 the ring stays at 2 (the kernel is then refused for its
// shared memory, as before). D = 128 attention with 128 x 128 blocks on mma.sync is the case:
// 244 KiB at 3 stages, 174 KiB at 2 (bench/gpu/attention_tc.ph, which the legacy emitter took).

// THREE-LABEL: func.func @mainloop
// THREE-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16
// THREE-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x32x128xf16
// TWO-LABEL: func.func @mainloop
// TWO-DAG: tilegpu.local_alloc : !tilegpu.memdesc<2x128x32xf16
// TWO-DAG: tilegpu.local_alloc : !tilegpu.memdesc<2x32x128xf16

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

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
