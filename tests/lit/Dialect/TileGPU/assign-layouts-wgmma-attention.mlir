// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90" | %FileCheck %s --check-prefix=SM90
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a" | %FileCheck %s --check-prefix=SM90
// RUN: sed 's/64x64x/64x128x/g; s/32x64x/32x128x/g; s/64, 64>/64, 128>/g; s/32, 64>/32, 128>/g; s/%c64 = arith.constant 64 : index/%c64 = arith.constant 128 : index/' %s | ph-opt --tilegpu-assign-layouts="arch=sm_90a" | %FileCheck %s --check-prefix=AUTO128
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline | %FileCheck %s --check-prefix=PIPE
// REQUIRES: mlir
// Flash attention (examples/flash_attention.ph, D = 64, BR = 64, BC = 32) on
// sm_90a takes the wgmma policy: S = Q K^T and O += P V share one version 3
// accumulator layout (instrShape [64, 8]: the two dots' N differ, and the
// registers do not depend on it); Q, K and V are converted to dot_op layouts
// of it (tilegpu-pipeline puts them in swizzled shared memory, where wgmma
// reads them), and P, computed in registers from S, is converted to the
// opIdx 0 layout, which wgmma takes from registers. The row statistics stay
// in the accumulator's layout. sm_90 keeps mma.sync, and so does `auto` on
// sm_90a at D = 64 (the softmax, which the wgmmas do not overlap yet, is a
// larger share there: docs/tilegpu.md has the figures); at D = 128 (the same
// kernel with 128 columns, AUTO128) `auto` takes wgmma.

// CHECK: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 8]}>
// CHECK: #dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK: #dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, trans = 1}>
// CHECK: #dot_op2 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @flash_attention
// CHECK-SAME: tilegpu.policy = "wgmma"
// CHECK: tilegpu.convert_layout {{.*}} -> tensor<64x64xf16, #dot_op>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>)
// CHECK:   tilegpu.dot {{.*}} {transB} : tensor<64x64xf16, #dot_op>, tensor<32x64xf16, #dot_op1> -> tensor<64x32xf32, #mma>
// CHECK:   tile.rowmax {{.*}} : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
// CHECK:   tilegpu.convert_layout {{.*}} : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
// CHECK:   tilegpu.dot {{.*}} : tensor<64x32xf16, #dot_op>, tensor<32x64xf16, #dot_op2> -> tensor<64x64xf32, #mma>

// AUTO128: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 8]}>
// AUTO128: tilegpu.policy = "wgmma"
// AUTO128: tilegpu.dot {{.*}} : tensor<64x32xf16, #dot_op>, tensor<32x128xf16, #dot_op2> -> tensor<64x128xf32, #mma>

// SM90: #mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// SM90: tilegpu.policy = "mma"

// After tilegpu-pipeline: Q in one swizzled buffer, K and V in rings of the
// mma.sync depth (3: no wgmma of the loop is left in flight); S from
// two buffers, P V with A from registers.
// PIPE-DAG: tilegpu.local_alloc : !tilegpu.memdesc<64x64xf16, #shared>
// PIPE-DAG: tilegpu.local_alloc : !tilegpu.memdesc<3x32x64xf16, #shared>
// PIPE: scf.for
// PIPE:   tilegpu.warpgroup_dot %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} {transB} : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<{{.*}}> -> tensor<64x32xf32, #mma>
// PIPE:   tilegpu.warpgroup_dot %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} : tensor<64x32xf16, #dot_op>, !tilegpu.memdesc<{{.*}}> -> tensor<64x64xf32, #mma>
// PIPE-NOT: tilegpu.dot
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
