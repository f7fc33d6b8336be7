// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a" | %FileCheck %s
// REQUIRES: mlir
// wgmma reads both operands of a GEMM from shared memory, where cp.async (or TMA) puts them in
// whole, aligned 16-byte chunks. A load whose rows are not such chunks (a K or N without
// `@aligned`, so its extent is only known to be a multiple of 1) cannot get there: the kernel
// takes mma.sync, whose operands may pass through registers, instead of failing to legalize
// `tilegpu.async_copy` (examples/gemm.ph's gemm_relu_f16_ragged on sm_90a). @gemm_aligned is
// the same kernel with K and N multiples of 32 and 128: wgmma.

// CHECK-LABEL: func.func @gemm_unaligned_k
// CHECK-SAME: tilegpu.policy = "mma"
// CHECK: tensor<128x128xf32, #mma>
// CHECK-LABEL: func.func @gemm_unaligned_n
// CHECK-SAME: tilegpu.policy = "mma"
// CHECK-LABEL: func.func @gemm_aligned
// CHECK-SAME: tilegpu.policy = "wgmma"

func.func @gemm_unaligned_k(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>,
                %arg4: i32, %arg5: i32, %arg6: i32)
    attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 128, 1, 128>, tile.tensorcore, tile.threads = 128 : i32} {
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

func.func @gemm_unaligned_n(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>,
                %arg4: i32, %arg5: i32, %arg6: i32)
    attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 128, 32, 1>, tile.tensorcore, tile.threads = 128 : i32} {
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

func.func @gemm_aligned(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>,
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
