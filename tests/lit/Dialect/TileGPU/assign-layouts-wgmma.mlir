// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90" | %FileCheck %s --check-prefix=SM90
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=mma" | %FileCheck %s --check-prefix=SM90
// REQUIRES: mlir
// On sm_90a a GEMM (both dot operands loaded from global memory, no row
// reductions) takes the wgmma policy: the accumulator in the mma version 3
// layout (4 warps = one warpgroup along the rows, instrShape [64, N]), the
// operands converted to dot_op layouts of it (tilegpu-pipeline puts them in
// shared memory, where wgmma reads them), the epilogue in the accumulator's
// layout. sm_90 (no `a`) and policy=mma keep mma.sync.

// CHECK: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// CHECK: #dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK: #dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: tilegpu.policy = "wgmma"
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #mma>)
// CHECK:   tilegpu.convert_layout {{.*}} -> tensor<128x32xf16, #dot_op>
// CHECK:   tilegpu.convert_layout {{.*}} -> tensor<32x128xf16, #dot_op1>
// CHECK:   tilegpu.dot {{.*}} -> tensor<128x128xf32, #mma>
// CHECK: tile.load {{.*}} -> tensor<1x128xf16, #mma>
// CHECK: tile.store {{.*}} : tensor<128x128xf16, #mma>, !tile.ptr<f16>

// SM90: #mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// SM90: tilegpu.policy = "mma"
func.func @gemm(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>,
                %arg4: i32, %arg5: i32, %arg6: i32)
    attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 128, 32, 128>, tile.tensorcore, tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c128_i32 = arith.constant 128 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c128_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c128_i32 : i32
  %4 = tile.splat %cst : tensor<128x128xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg8 = %4) -> (tensor<128x128xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 128, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x32xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%17, %21] extents[%19, %22] {lens = array<i64: 32, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x128xf16>
    %24 = tile.dot %20, %23 : tensor<128x32xf16>, tensor<32x128xf16> -> tensor<128x128xf32>
    %25 = arith.addf %arg8, %24 : tensor<128x128xf32>
    scf.yield %25 : tensor<128x128xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %8 = tile.load %arg2[%c0, %6] extents[%c1, %7] {lens = array<i64: 1, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x128xf16>
  %9 = tile.convert %8 : tensor<1x128xf16> -> tensor<1x128xf32>
  %10 = tile.broadcast %9 : tensor<1x128xf32> -> tensor<128x128xf32>
  %11 = arith.addf %5, %10 : tensor<128x128xf32>
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %14 = arith.maximumf %11, %4 : tensor<128x128xf32>
  %15 = tile.convert %14 : tensor<128x128xf32> -> tensor<128x128xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 128, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<128x128xf16>, !tile.ptr<f16>
  return
}
