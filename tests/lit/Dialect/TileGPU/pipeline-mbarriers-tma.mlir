// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-through-shared --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_80" --tilegpu-pipeline="mbarriers=1 tma=1" | %FileCheck %s --check-prefix=MMA
// REQUIRES: mlir
// Attention's K and V rings on mbarriers, filled by TMA (docs/tilegpu.md, "K and V by TMA"): the
// full barrier of a stage counts one arrival per copy (thread 0's expect_tx with the box's bytes)
// instead of every thread's cp.async arrivals; the free barrier and its wait before a stage is
// refilled stay as they are (every thread releases what it read); the iteration waits for its
// stage's full phase and reads it with no proxy fence (TMA writes through the async proxy that
// wgmma reads by) and no CTA barrier. The masked key rows need nothing: TMA writes zeros past N.
// Q, loaded once before the loop, keeps cp.async. mma.sync operands (ldmatrix) keep cp.async.

// CHECK-LABEL: func.func @flash_attention
// CHECK-SAME: %arg7: !tile.ptr<i8>, %arg8: !tile.ptr<i8>
// CHECK-SAME: tilegpu.tma = [{box = array<i64: 32, 64>, swizzle = 128 : i64, tensor = 1 : i64}, {box = array<i64: 32, 64>, swizzle = 128 : i64, tensor = 2 : i64}]
// CHECK: tilegpu.async_copy %arg0
// CHECK: tilegpu.mbarrier_init %[[FULL:[0-9]+]] count 2 {tma}
// CHECK-NEXT: tilegpu.mbarrier_init %[[FREE:[0-9]+]] count 128
// Prologue: iteration 0 into stage 0, no free wait (the stage is fresh).
// CHECK: scf.if
// CHECK-NOT: tilegpu.mbarrier_wait
// CHECK:   tilegpu.tma_copy %arg7[{{.*}}] into %[[K:[0-9]+]][%[[S0:c0[_0-9]*]]] on %[[FULL]][%[[S0]]]
// CHECK:   tilegpu.tma_copy %arg8[{{.*}}] into %[[V:[0-9]+]][%[[S0]]] on %[[FULL]][%[[S0]]]
// CHECK-NOT: tilegpu.mbarrier_arrive
// CHECK: scf.for
// CHECK:   %[[ST:.*]] = arith.remui %[[I:.*]], %c3
// CHECK:   %[[PH:.*]] = arith.remui {{.*}}, %c2
// CHECK:   tilegpu.mbarrier_wait %[[FULL]][%[[ST]]], %[[PH]]
// CHECK-NOT: tilegpu.fence_async_shared
// CHECK-NOT: tilegpu.barrier
// CHECK:   %[[AST:.*]] = arith.remui {{.*}}, %c3
// CHECK:   scf.if
// CHECK:     tilegpu.mbarrier_wait %[[FREE]][%[[AST]]]
// CHECK:     tilegpu.tma_copy %arg7[{{.*}}] into %[[K]][%[[AST]]] on %[[FULL]][%[[AST]]]
// CHECK:     tilegpu.tma_copy %arg8[{{.*}}] into %[[V]][%[[AST]]] on %[[FULL]][%[[AST]]]
// CHECK-NOT: tilegpu.mbarrier_arrive %[[FULL]]
// CHECK:   tilegpu.warpgroup_dot
// CHECK:   tilegpu.warpgroup_dot
// CHECK:   tilegpu.mbarrier_arrive %[[FREE]][%[[ST]]] :
// CHECK-NEXT: scf.yield
// CHECK: }
// CHECK-NEXT: tilegpu.barrier
// CHECK-NOT: tilegpu.async_wait

// NVVM: gpu.func @flash_attention
// NVVM: nvvm.cp.async.shared.global
// NVVM: nvvm.mbarrier.init {{.*}}, %c2_i32
// NVVM: nvvm.fence.mbarrier.init
// NVVM: nvvm.mbarrier.init {{.*}}, %c128_i32
// NVVM: gpu.barrier
// NVVM: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c4096_i32
// NVVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// NVVM: nvvm.mbarrier.try_wait.parity
// NVVM-NOT: nvvm.fence.proxy
// NVVM: nvvm.mbarrier.try_wait.parity
// NVVM: nvvm.mbarrier.arrive.expect_tx
// NVVM: nvvm.wgmma.mma_async
// NVVM: nvvm.mbarrier.arrive
// NVVM-NOT: nvvm.cp.async.wait.group

// MMA-LABEL: func.func @flash_attention
// MMA-NOT: tilegpu.tma
// MMA: tilegpu.mbarrier_init {{.*}} count 128
// MMA: tilegpu.async_copy
// MMA: tilegpu.mbarrier_arrive {{.*}} {copies}
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
