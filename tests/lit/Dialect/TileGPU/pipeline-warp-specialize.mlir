// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 warp-specialize=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 warp-specialize=1" --tilegpu-through-shared --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_80" --tilegpu-pipeline="mbarriers=1 warp-specialize=1" | %FileCheck %s --check-prefix=MMA
// REQUIRES: mlir
// Warp specialization (FlashAttention-3's): the K/V ring's copies move to a
// producer warpgroup of 128 threads, which runs the loop's iterations by
// itself (bounds and address arithmetic cloned, from the arguments and
// constants), waiting for each stage's free barrier and arriving on its full
// barrier when its copies land (full counts the 128 producers, free the 128
// consumers). The consumers, the kernel as written (Q's load and barrier, the
// loop, the epilogue), only wait for full stages and release them. The
// producer gives registers back (setmaxnreg.dec 56), the consumers take them
// (setmaxnreg.inc 224); the launch grows to 256 threads, and the consumers'
// CTA barriers become named barrier 1 over their 128 threads. mma.sync keeps
// the copies in every thread (no producer: its operands go through registers).

// CHECK-LABEL: func.func @flash_attention
// CHECK-SAME: tilegpu.consumer_threads = 128 : i32
// CHECK-SAME: tilegpu.launch_threads = 256 : i32
// CHECK: tilegpu.mbarrier_init %[[FULL:[0-9]+]] count 128
// CHECK-NEXT: tilegpu.mbarrier_init %[[FREE:[0-9]+]] count 128
// CHECK-NEXT: tilegpu.warp_specialize {consumerRegs = 224 : i32, consumerThreads = 128 : i32, producerRegs = 56 : i32} consumer {
// CHECK:   tilegpu.async_copy
// CHECK:   tilegpu.barrier
// CHECK:   scf.for
// CHECK:     tilegpu.mbarrier_wait %[[FULL]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NOT: tilegpu.async_copy
// CHECK:     tilegpu.warpgroup_dot
// CHECK:     tilegpu.warpgroup_dot
// CHECK:     tilegpu.mbarrier_arrive %[[FREE]][%{{.*}}] :
// CHECK-NEXT: scf.yield
// CHECK:   tile.store
// CHECK: } producer {
// CHECK:   scf.for
// CHECK:     %[[FP:.*]] = arith.xori
// CHECK:     tilegpu.mbarrier_wait %[[FREE]][%[[S:.*]]], %[[FP]]
// CHECK:     tilegpu.async_copy {{.*}} into %{{.*}}[%[[S]]] {{{.*}}tilegpu.thread_base = 128 : i64, tilegpu.threads = 128 : i64}
// CHECK:     tilegpu.async_copy {{.*}} into %{{.*}}[%[[S]]] {{{.*}}tilegpu.thread_base = 128 : i64, tilegpu.threads = 128 : i64}
// CHECK:     tilegpu.mbarrier_arrive %[[FULL]][%[[S]]] {copies}
// CHECK-NOT: tilegpu.warpgroup_dot
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: return

// NVVM: gpu.func @flash_attention
// NVVM-SAME: known_block_size = array<i32: 256, 1, 1>
// NVVM: nvvm.mbarrier.init
// NVVM: gpu.barrier
// NVVM: scf.if
// NVVM:   nvvm.setmaxregister  increase 224
// NVVM:   nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// NVVM:   nvvm.mbarrier.try_wait.parity
// NVVM:   nvvm.wgmma.mma_async
// NVVM:   nvvm.mbarrier.arrive
// NVVM: } else {
// NVVM:   nvvm.setmaxregister  decrease 56
// NVVM:   nvvm.mbarrier.try_wait.parity
// NVVM:   nvvm.cp.async.shared.global
// NVVM:   nvvm.cp.async.mbarrier.arrive {{.*}} {noinc = true}
// NVVM-NOT: nvvm.wgmma

// MMA-LABEL: func.func @flash_attention
// MMA-NOT: tilegpu.warp_specialize
// MMA: tilegpu.mbarrier_wait
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
