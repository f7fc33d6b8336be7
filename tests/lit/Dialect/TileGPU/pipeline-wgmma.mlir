// RUN: ph-opt %s --tilegpu-pipeline | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline="mbarriers=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared | %FileCheck %s --check-prefix=ALLOC
// RUN: ph-opt %s --tilegpu-pipeline="wgmma-stages=2" | %FileCheck %s --check-prefix=SYNC
// RUN: ph-opt %s --tilegpu-pipeline="ring-bytes=49152" | %FileCheck %s --check-prefix=FIT
// The mma.sync rings' fit to shared-per-block (pipeline-fit-shared.mlir) leaves wgmma's alone:
// its depth is wgmma-stages within ring-bytes.
// RUN: ph-opt %s --tilegpu-pipeline="shared-per-block=40000" | %FileCheck %s
// REQUIRES: mlir
// Operands of a wgmma dot (mma version 3) go to rings of swizzled buffers
// (no padding: rows of 64 bytes for A's K = 32, a 64-byte swizzle; B's rows
// are 256 bytes wide, so two 128-byte column blocks with the 128-byte
// swizzle), a fence orders the landed copies before the async proxy reads
// them, and the dot reads the ring's stage in place (no local_load).
// With 4 stages the dot stays in flight for one iteration (async, wait 1):
// the copies run 2 ahead, into the stage read two iterations before, and a
// wait 0 on the loop's result retires the last group before it is read.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bla = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blb = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK: #[[$SB:.*]] = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
// CHECK: #[[$SA:.*]] = #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, pad = 0, order = [1, 0]}>
// CHECK-LABEL: func.func @mainloop
// CHECK-DAG: %[[BA:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x128x32xf16, #[[$SA]]>
// CHECK-DAG: %[[BB:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x32x128xf16, #[[$SB]]>
// Prologue: iterations 0 and 1.
// CHECK-COUNT-2: tilegpu.async_commit_group
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %{{.*}} : i32
// CHECK: %[[G:.*]] = scf.if %[[RUNS]] -> (tensor<128x128xf32, #mma>) {
// CHECK: %[[R:.*]] = scf.for
// CHECK:   %[[ST:.*]] = arith.remui %{{.*}}, %c4
// CHECK:   tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK:   %[[AHEAD:.*]] = arith.addi %{{.*}}, %c2 : index
// CHECK:   %[[AST:.*]] = arith.remui %[[AHEAD]], %c4
// CHECK:   tilegpu.async_copy {{.*}} into %[[BA]][%[[AST]]]
// CHECK:   tilegpu.async_commit_group
// CHECK-NOT: tilegpu.local_load
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %[[BA]][%[[ST]]], %[[BB]][%[[ST]]], %{{.*}} {async} : !tilegpu.memdesc<4x128x32xf16, #[[$SA]]>, !tilegpu.memdesc<4x32x128xf16, #[[$SB]]> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: tilegpu.warpgroup_wait 1
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: %[[W:.*]] = tilegpu.warpgroup_wait 0 %[[R]] : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: scf.yield %[[W]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %cst
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: tilegpu.dot

// Two stages: the copies run one ahead, the dot waits for itself.
// SYNC-LABEL: func.func @mainloop
// SYNC: tilegpu.local_alloc : !tilegpu.memdesc<2x128x32xf16
// SYNC: scf.for
// SYNC: tilegpu.async_wait {pending = 0 : i32}
// SYNC: tilegpu.warpgroup_dot
// SYNC-NOT: {async}
// SYNC-NOT: tilegpu.warpgroup_wait

// 16 KiB a stage: a 48 KiB budget holds 3.
// FIT: tilegpu.local_alloc : !tilegpu.memdesc<3x128x32xf16
// FIT: tilegpu.warpgroup_dot {{.*}} {async}

// Swizzled buffers start on 1024-byte boundaries (the XOR reads address bits 4-9).
// ALLOC: tilegpu.shared_bytes = 65536 : i64
// ALLOC-DAG: tilegpu.local_alloc {offset = {{0|32768}} : i64} : !tilegpu.memdesc<4x128x32xf16
// ALLOC-DAG: tilegpu.local_alloc {offset = {{0|32768}} : i64} : !tilegpu.memdesc<4x32x128xf16
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
