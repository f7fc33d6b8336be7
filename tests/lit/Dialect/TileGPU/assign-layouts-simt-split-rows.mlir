// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s --enable-var-scope
// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt split-row-warps=false" | %FileCheck %s --check-prefix=OFF --enable-var-scope
// REQUIRES: mlir
// SIMT: a reduced tile with fewer rows than warps spreads the spare warps along its columns
// where they cover them exactly (ReduceToNVVM adds the warps' partials through shared memory),
// instead of every warp holding the same rows. split-row-warps=false: the warps replicate.

// One 4096-column row of aligned f16 over 4 warps: 8-element vectors, 4 warps along the row.
// CHECK-DAG: #[[$ONE:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @one_row
// CHECK: tile.rowmax %{{.*}} : tensor<1x4096xf32, #[[$ONE]]> -> tensor<1x1xf32, #[[$ONE]]>
// OFF-DAG: #[[$REP:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// OFF-LABEL: func.func @one_row
// OFF: tile.rowmax %{{.*}} : tensor<1x4096xf32, #[[$REP]]>
func.func @one_row(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %h = tile.load %X[%c0, %c0] extents[%c1, %c4096] {lens = array<i64: 1, 4096>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x4096xf16>
  %x = tile.convert %h : tensor<1x4096xf16> -> tensor<1x4096xf32>
  %m = tile.rowmax %x : tensor<1x4096xf32> -> tensor<1x1xf32>
  tile.store %m, %Y[%c0, %c0] extents[%c1, %c1] {lens = array<i64: 1, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x1xf32>, !tile.ptr<f32>
  return
}

// -----

// Two rows: 2 warps along the rows, 2 along the columns.
// CHECK-DAG: #[[$TWO:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-LABEL: func.func @two_rows
// CHECK: tile.rowsum %{{.*}} : tensor<2x1024xf32, #[[$TWO]]>
func.func @two_rows(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c1024 = arith.constant 1024 : index
  %h = tile.load %X[%c0, %c0] extents[%c2, %c1024] {lens = array<i64: 2, 1024>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<2x1024xf16>
  %x = tile.convert %h : tensor<2x1024xf16> -> tensor<2x1024xf32>
  %s = tile.rowsum %x : tensor<2x1024xf32> -> tensor<2x1xf32>
  tile.store %s, %Y[%c0, %c0] extents[%c2, %c1] {lens = array<i64: 2, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<2x1xf32>, !tile.ptr<f32>
  return
}

// -----

// A row too short for the spare warps (64 f32 columns are 16 lanes of 4): they replicate it.
// CHECK-DAG: #[[$SHORT:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @short_row
// CHECK: tile.rowsum %{{.*}} : tensor<1x64xf32, #[[$SHORT]]>
func.func @short_row(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = tile.load %X[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<1x64xf32>
  %s = tile.rowsum %x : tensor<1x64xf32> -> tensor<1x1xf32>
  tile.store %s, %Y[%c0, %c0] extents[%c1, %c1] {lens = array<i64: 1, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x1xf32>, !tile.ptr<f32>
  return
}
