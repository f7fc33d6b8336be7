// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="overlap-softmax=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="overlap-softmax=1 stages=2" | %FileCheck %s --check-prefix=TWO
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline | %FileCheck %s --check-prefix=OFF
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="overlap-softmax=1" --tilegpu-allocate-shared --tilegpu-insert-barriers | %FileCheck %s --check-prefix=BAR
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="overlap-softmax=1 mbarriers=1 tma=1" | %FileCheck %s --check-prefix=MB
// REQUIRES: mlir
// P·V under the next block's softmax (FlashAttention-3's intra-warpgroup pipelining;
// docs/tilegpu.md, "P·V under the next softmax"), on flash attention (examples/flash_attention.ph,
// D = 64, BR = 64, BC = 32, as assign-layouts-wgmma-attention.mlir has it):
// - iteration 0 is peeled under `lb < ub`: S waited for, the softmax, no P·V;
// - the loop runs from lb + step and carries, beside acc, m and l, P (f16, opIdx 0 layout)
//   and V's stage; each iteration issues S_j, then P_{j-1}·V_{j-1} on the carried acc,
//   both async, waits for S_j only (`warpgroup_wait 1`), runs the softmax (P_j converted
//   too), then waits for P·V with P_{j-1}'s registers (`warpgroup_wait 0`) and rescales;
// - the last P·V follows the loop, waited for;
// - V_j is read an iteration later, so the copies run stages - 2 = 1 ahead (wait for all).
// A two-stage ring leaves the loop as it is (TWO), as does the default (OFF).

// CHECK-LABEL: func.func @flash_attention
// CHECK-DAG: %[[V:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x32x64xf16, #shared>
// CHECK-DAG: %[[K:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<3x32x64xf16, #shared>
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0_i32, %arg5 : i32
// CHECK: %[[G:.*]]:3 = scf.if %[[RUNS]] -> (tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>) {
// CHECK:   %[[ST0:.*]] = arith.remui %{{.*}}, %c3 : index
// CHECK:   tilegpu.async_wait {pending = 0 : i32}
// CHECK:   %[[S0:.*]] = tilegpu.warpgroup_dot %{{.*}}, %[[K]][%[[ST0]]], %{{.*}} {transB}
// CHECK:   math.exp %{{.*}} : tensor<64x32xf32, #mma>
// CHECK-NOT: tilegpu.warpgroup_dot
// CHECK:   %[[P0:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
// CHECK:   %[[NEXT:.*]] = arith.addi %c0_i32, %c32_i32 : i32
// CHECK:   %[[L:.*]]:5 = scf.for %{{.*}} = %[[NEXT]] to %arg5 step %c32_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[P:.*]] = %[[P0]], %[[VST:.*]] = %[[ST0]]) -> (tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x32xf16, #dot_op>, index)
// CHECK:     %[[ST:.*]] = arith.remui %{{.*}}, %c3 : index
// CHECK:     tilegpu.async_wait {pending = 0 : i32}
// CHECK:     tilegpu.async_copy
// CHECK:     %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}, %[[K]][%[[ST]]], %{{.*}} {async, transB}
// CHECK-NEXT: %[[PV:.*]] = tilegpu.warpgroup_dot %[[P]], %[[V]][%[[VST]]], %[[ACC]] {async}
// CHECK-NEXT: %[[SW:.*]] = tilegpu.warpgroup_wait 1 %[[S]]
// CHECK:     arith.mulf %[[SW]]
// CHECK:     %[[E:.*]] = math.exp %{{.*}} : tensor<64x32xf32, #mma>
// CHECK:     %[[PN:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
// CHECK-NEXT: %[[W:.*]]:2 = tilegpu.warpgroup_wait 0 %[[PV]], %[[P]]
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[W]]#0, %{{.*}} : tensor<64x64xf32, #mma>
// CHECK-NEXT: scf.yield %[[R]], %{{.*}}, %{{.*}}, %[[PN]], %[[ST]]
// CHECK:   }
// CHECK:   %[[LAST:.*]] = tilegpu.warpgroup_dot %[[L]]#3, %[[V]][%[[L]]#4], %[[L]]#0 :
// CHECK-NEXT: scf.yield %[[LAST]], %[[L]]#1, %[[L]]#2
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK: }
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.barrier

// TWO: tilegpu.local_alloc : !tilegpu.memdesc<2x32x64xf16
// TWO: scf.for
// TWO-NOT: {async
// TWO-NOT: tilegpu.warpgroup_wait
// TWO: return

// OFF: scf.for
// OFF: tilegpu.async_wait {pending = 1 : i32}
// OFF-NOT: {async
// OFF-NOT: tilegpu.warpgroup_wait
// OFF: return

// The barrier analysis adds none: the ring's barrier at the top of each iteration retires the
// stage read two iterations before, which the copies refill.
// A loop whose P·V overwrites what it carries instead of accumulating onto it (nothing would
// wait for a P·V left in flight) stays as it is.
// CHECK-LABEL: func.func @overwrite
// CHECK-NOT: {async
// CHECK-NOT: tilegpu.warpgroup_wait
// CHECK: return

// BAR: scf.for
// BAR: tilegpu.barrier
// BAR-NOT: tilegpu.barrier
// BAR: scf.yield
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

func.func @overwrite(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 1, 1>, tile.tensorcore, tile.threads = 128 : i32} {
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
    scf.yield %34, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%2, %c0] extents[%3, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}

// On mbarriers (sm_90a's default, the ring filled by TMA), V_{j-1}'s stage is read by the P·V
// that iteration j waits for: the release at the end of iteration j is of the previous
// iteration's stage, after that wait (the peeled iteration 0 releases nothing: its guard,
// iteration > 0, is false there). A loop left as it is releases its own stage.
// MB-LABEL: func.func @flash_attention
// MB: tilegpu.mbarrier_init %[[FULL:[0-9]+]] count 2 {tma}
// MB-NEXT: tilegpu.mbarrier_init %[[FREE:[0-9]+]] count 128
// MB: scf.for
// MB:   tilegpu.mbarrier_wait %[[FULL]]
// MB:   tilegpu.mbarrier_wait %[[FREE]]
// MB:   tilegpu.warpgroup_dot {{.*}} {async, transB}
// MB:   tilegpu.warpgroup_dot {{.*}} {async}
// MB:   tilegpu.warpgroup_wait 1
// MB:   %[[LATER:.*]] = arith.cmpi ugt
// MB:   tilegpu.warpgroup_wait 0
// MB:   scf.if %[[LATER]] {
// MB:     %[[PREV:.*]] = arith.remui
// MB:     tilegpu.mbarrier_arrive %[[FREE]][%[[PREV]]] :
// MB:   }
// MB-NEXT: scf.yield
// MB-LABEL: func.func @overwrite
// MB: scf.for
// MB-NOT: tilegpu.warpgroup_wait
// MB: tilegpu.mbarrier_arrive %{{.*}}[%[[OWN:[0-9]+]]] :
// MB-NEXT: scf.yield
