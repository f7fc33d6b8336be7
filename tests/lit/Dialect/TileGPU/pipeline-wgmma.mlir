// RUN: ph-opt %s --tilegpu-pipeline="stages=3" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline="stages=3" --tilegpu-allocate-shared | %FileCheck %s --check-prefix=ALLOC
// REQUIRES: mlir
// Operands of a wgmma dot (mma version 3) go to rings of swizzled buffers
// (no padding: rows of 64 bytes for A's K = 32, a 64-byte swizzle; B's rows
// are 256 bytes wide, so two 128-byte column blocks with the 128-byte
// swizzle), a fence orders the landed copies before the async proxy reads
// them, and the dot reads the ring's stage in place (no local_load).

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK: #[[$SB:.*]] = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
// CHECK: #[[$SA:.*]] = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, pad = 0, order = [1, 0]}>
// CHECK-LABEL: func.func @mainloop
// CHECK-DAG: %[[BA:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16, #[[$SA]]>
// CHECK-DAG: %[[BB:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x32x128xf16, #[[$SB]]>
// CHECK: scf.for
// CHECK:   %[[ST:.*]] = arith.remsi %{{.*}}, %c3
// CHECK:   tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK:   tilegpu.async_commit_group
// CHECK-NOT: tilegpu.local_load
// CHECK:   tilegpu.warpgroup_dot %[[BA]][%[[ST]]], %[[BB]][%[[ST]]], %{{.*}} : !tilegpu.memdesc<3x128x32xf16, #[[$SA]]>, !tilegpu.memdesc<3x32x128xf16, #[[$SB]]> -> tensor<128x128xf32, #mma>
// CHECK-NOT: tilegpu.dot
// CHECK: }

// Swizzled buffers start on 1024-byte boundaries (the XOR reads address bits 4-9).
// ALLOC: tilegpu.shared_bytes = 49152 : i64
// ALLOC-DAG: tilegpu.local_alloc {offset = {{0|24576}} : i64} : !tilegpu.memdesc<3x128x32xf16
// ALLOC-DAG: tilegpu.local_alloc {offset = {{0|24576}} : i64} : !tilegpu.memdesc<3x32x128xf16
func.func @mainloop(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %m: i32, %k: i32, %n: i32) -> tensor<128x128xf32, #mma> {
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
