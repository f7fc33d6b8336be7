// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_80" --tilegpu-pipeline="mbarriers=1" | %FileCheck %s --check-prefix=MMA
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1" --tilegpu-through-shared --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 stages=2" | %FileCheck %s --check-prefix=TWO
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 once-after-prologue=1" | %FileCheck %s --check-prefix=AFTER
// REQUIRES: mlir
// A ring on mbarriers (flash attention's K and V, 3 stages): every stage has a
// "full" barrier, which each thread's copies into it arrive on when they land
// (cp.async.mbarrier.arrive.noinc, counted in the 128 of its init), and a
// "free" one, which every thread arrives on once it has read the stage. An
// iteration waits for its stage's full phase (parity (i / 3) % 2), and the
// copies run 1 ahead (stages - 2) into the stage read two iterations before,
// after the free phase of that use: one warp can run an iteration ahead of
// another, where a CTA barrier per iteration would keep them in step. Q, copied
// once before the loop, is waited for and published before the ring's prologue;
// with once-after-prologue=1 after it, so that Q and the first stage are in flight
// together (the prologue commits no cp.async group for the wait to cover), but not
// in a ring of 2 stages (a CTA barrier per iteration).

// CHECK-LABEL: func.func @flash_attention
// CHECK-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3xi64, #{{.*}}>
// CHECK-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3xi64, #{{.*}}>
// CHECK-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x32x64xf16, #{{.*}}>
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK: tilegpu.barrier
// CHECK: tilegpu.mbarrier_init %[[FULL:[0-9]+]] count 128
// CHECK-NEXT: tilegpu.mbarrier_init %[[FREE:[0-9]+]] count 128
// Prologue: iteration 0 into stage 0, no free wait (the stage is fresh).
// CHECK: scf.if
// CHECK-NOT: tilegpu.mbarrier_wait
// CHECK:   tilegpu.async_copy {{.*}} into %[[K:[0-9]+]][%[[S0:c0[_0-9]*]]]
// CHECK:   tilegpu.mbarrier_arrive %[[FULL]][%[[S0]]] {copies}
// CHECK-NOT: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK:   %[[ST:.*]] = arith.remui %[[I:.*]], %c3
// CHECK:   %[[PH:.*]] = arith.remui {{.*}}, %c2
// CHECK:   tilegpu.mbarrier_wait %[[FULL]][%[[ST]]], %[[PH]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NOT: tilegpu.barrier
// CHECK:   %[[AH:.*]] = arith.addi %[[I]], %c1 : index
// CHECK:   %[[AST:.*]] = arith.remui %[[AH]], %c3
// CHECK:   scf.if
// CHECK:     %[[FPH:.*]] = arith.xori {{.*}}, %c1
// CHECK:     tilegpu.mbarrier_wait %[[FREE]][%[[AST]]], %[[FPH]]
// CHECK:     tilegpu.async_copy {{.*}} into %[[K]][%[[AST]]]
// CHECK:     tilegpu.mbarrier_arrive %[[FULL]][%[[AST]]] {copies}
// CHECK:   tilegpu.warpgroup_dot
// CHECK:   tilegpu.warpgroup_dot
// CHECK:   tilegpu.mbarrier_arrive %[[FREE]][%[[ST]]] :
// CHECK-NEXT: scf.yield
// After the loop: one barrier (the ring's memory free), no wait for copies (every one was waited for).
// CHECK: }
// CHECK-NEXT: tilegpu.barrier
// CHECK-NOT: tilegpu.async_wait

// mma.sync (ldmatrix reads the stage into registers) takes the same ring, without the proxy fence.
// MMA-LABEL: func.func @flash_attention
// MMA: scf.for
// MMA:   tilegpu.mbarrier_wait
// MMA-NOT: tilegpu.fence_async_shared
// MMA:   tilegpu.local_load
// MMA:   tilegpu.mbarrier_arrive {{.*}} : !tilegpu.memdesc<3xi64

// NVVM: gpu.func @flash_attention
// NVVM-COUNT-6: nvvm.mbarrier.init
// NVVM: nvvm.cp.async.mbarrier.arrive {{.*}} {noinc = true}
// NVVM: nvvm.mbarrier.try_wait.parity
// NVVM: nvvm.fence.proxy
// NVVM: nvvm.mbarrier.try_wait.parity
// NVVM: nvvm.cp.async.mbarrier.arrive {{.*}} {noinc = true}
// NVVM: nvvm.wgmma.mma_async
// NVVM: nvvm.mbarrier.arrive
// NVVM-NOT: nvvm.cp.async.wait.group

// TWO-NOT: tilegpu.mbarrier
// TWO: tilegpu.async_wait {pending = 0 : i32}
// TWO: scf.for

// AFTER-LABEL: func.func @flash_attention
// AFTER: tilegpu.async_copy %arg0
// AFTER-NEXT: tilegpu.async_commit_group
// AFTER-NOT: tilegpu.async_wait
// AFTER: tilegpu.mbarrier_init
// AFTER: scf.if
// AFTER: tilegpu.mbarrier_arrive {{.*}} {copies}
// AFTER: }
// AFTER-NEXT: tilegpu.async_wait {pending = 0 : i32}
// AFTER-NEXT: tilegpu.fence_async_shared
// AFTER-NEXT: tilegpu.barrier
// AFTER-NEXT: scf.for
func.func @flash_attention(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 1, 1>, tile.tensorcore, tile.threads = 128 : i32} {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant -1.000000e+30 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = arith.index_cast %1 : i32 to index
  %3 = arith.index_cast %arg4 : i32 to index
  %4 = tile.load %arg0[%2, %c0] extents[%3, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
  %5 = tile.splat %cst_0 : tensor<64x64xf32>
  %6 = tile.splat %cst : tensor<64x1xf32>
  %7 = tile.splat %cst_0 : tensor<64x1xf32>
  %8:3 = scf.for %arg7 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg8 = %5, %arg9 = %6, %arg10 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>)  : i32 {
    %12 = arith.index_cast %arg7 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = tile.load %arg1[%12, %c0] extents[%13, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x64xf16>
    %15 = tile.load %arg2[%12, %c0] extents[%13, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x64xf16>
    %16 = tile.dot %4, %14 {transB} : tensor<64x64xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
    %17 = tile.splat %arg6 : tensor<64x32xf32>
    %18 = arith.mulf %16, %17 : tensor<64x32xf32>
    %19 = arith.subi %arg5, %arg7 : i32
    %20 = tile.mask_cols %18, %19, %cst : tensor<64x32xf32>
    %21 = tile.rowmax %20 : tensor<64x32xf32> -> tensor<64x1xf32>
    %22 = arith.maximumf %arg9, %21 : tensor<64x1xf32>
    %23 = tile.broadcast %22 : tensor<64x1xf32> -> tensor<64x32xf32>
    %24 = arith.subf %20, %23 : tensor<64x32xf32>
    %25 = math.exp %24 : tensor<64x32xf32>
    %26 = arith.subf %arg9, %22 : tensor<64x1xf32>
    %27 = math.exp %26 : tensor<64x1xf32>
    %28 = arith.mulf %arg10, %27 : tensor<64x1xf32>
    %29 = tile.rowsum %25 : tensor<64x32xf32> -> tensor<64x1xf32>
    %30 = arith.addf %28, %29 : tensor<64x1xf32>
    %31 = tile.broadcast %27 : tensor<64x1xf32> -> tensor<64x64xf32>
    %32 = arith.mulf %arg8, %31 : tensor<64x64xf32>
    %33 = tile.convert %25 : tensor<64x32xf32> -> tensor<64x32xf16>
    %34 = tile.dot %33, %15 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %35 = arith.addf %32, %34 : tensor<64x64xf32>
    scf.yield %35, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%2, %c0] extents[%3, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}
