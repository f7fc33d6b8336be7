// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store --tilegpu-allocate-shared | %FileCheck %s
// REQUIRES: mlir
// tilegpu-tma-store's edges (a review of the change found each): an f32 output tile larger than
// the rings takes their bytes but never the mbarriers' (initialized barriers would need an
// mbarrier.inval before their bytes held anything else); an output of 48 f16 columns (96-byte
// rows, for which neither TMA nor the buffer has a swizzle) keeps its direct stores; and so does an
// output that the kernel also reads through a ring's TMA copy (its tile.load is gone by then).

// CHECK-LABEL: func.func @gemm_f32(
// CHECK-SAME: tilegpu.shared_bytes = 65568
// CHECK: tilegpu.local_alloc {offset = 0 : i64, tilegpu.after_dead} : !tilegpu.memdesc<64x256xf32, #shared{{[0-9]*}}>
// CHECK: tilegpu.local_alloc {offset = 65536 : i64} : !tilegpu.memdesc<4xi64
// CHECK: tilegpu.tma_store
// CHECK-LABEL: func.func @gemm_n48(
// CHECK-NOT: tilegpu.tma_store
// CHECK: tile.store
// CHECK-LABEL: func.func @gemm_inplace(
// CHECK-NOT: tilegpu.tma_store
// CHECK: tile.store
func.func @gemm_f32(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg3: !tile.ptr<f32>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 64, 64, 256>, tile.tensorcore, tile.threads = 128 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c256_i32 = arith.constant 256 : i32
  %c64_i32 = arith.constant 64 : i32
  %c16_i32 = arith.constant 16 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c256_i32 : i32
  %4 = tile.splat %cst : tensor<64x256xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c16_i32 iter_args(%arg8 = %4) -> (tensor<64x256xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 16>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x16xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%17, %21] extents[%19, %22] {lens = array<i64: 16, 256>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<16x256xf16>
    %24 = tile.dot %20, %23 : tensor<64x16xf16>, tensor<16x256xf16> -> tensor<64x256xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x256xf32>
    scf.yield %25 : tensor<64x256xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  tile.store %5, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 256>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x256xf32>, !tile.ptr<f32>
  return
}

func.func @gemm_n48(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 64, 64, 64>, tile.tensorcore, tile.threads = 128 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c48_i32 = arith.constant 48 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c48_i32 : i32
  %4 = tile.splat %cst : tensor<64x48xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %4) -> (tensor<64x48xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%21, %17] extents[%22, %19] {lens = array<i64: 48, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<48x64xf16>
    %24 = tile.dot %20, %23 {transB} : tensor<64x64xf16>, tensor<48x64xf16> -> tensor<64x48xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x48xf32>
    scf.yield %25 : tensor<64x48xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %15 = tile.convert %5 : tensor<64x48xf32> -> tensor<64x48xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 48>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<64x48xf16>, !tile.ptr<f16>
  return
}

func.func @gemm_inplace(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 64, 128>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.grid = array<i64: 1, 0, 64, 1, 1, 2, 128, 1, 0, 0, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c128_i32 : i32
  %4 = tile.splat %cst : tensor<64x128xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %4) -> (tensor<64x128xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg3[%17, %21] extents[%19, %22] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %24 = tile.dot %20, %23 : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x128xf32>
    scf.yield %25 : tensor<64x128xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %8 = tile.load %arg2[%c0, %6] extents[%c1, %7] {lens = array<i64: 1, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x128xf16>
  %9 = tile.convert %8 : tensor<1x128xf16> -> tensor<1x128xf32>
  %10 = tile.broadcast %9 : tensor<1x128xf32> -> tensor<64x128xf32>
  %11 = arith.addf %5, %10 : tensor<64x128xf32>
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %14 = arith.maximumf %11, %4 : tensor<64x128xf32>
  %15 = tile.convert %14 : tensor<64x128xf32> -> tensor<64x128xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x128xf16>, !tile.ptr<f16>
  return
}

