// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s
// REQUIRES: mlir
// SIMT: a tile whose rows are reduced keeps each row in one warp (all 4 warps along
// the rows, lanes along the columns, one element each: the rows, of any width, may start
// anywhere, assign-layouts-simt-row-loads.mlir), and the [R, 1] statistics
// made before it (the loop's running maximum) take that layout too, replicated along
// the columns, instead of their own default that would split the rows over warps
// (ReduceToNVVM reduces within a warp only).

// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: func.func @rows
// CHECK: tile.splat %{{.*}} : tensor<4x1xf32, #[[ROWS]]>
// CHECK: tile.rowmax %{{.*}} : tensor<4x128xf32, #[[ROWS]]> -> tensor<4x1xf32, #[[ROWS]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @rows(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %n: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %N = arith.index_cast %n : i32 to index
  %lo = arith.constant -1.0e30 : f32
  %m0 = tile.splat %lo : tensor<4x1xf32>
  %c0i = arith.constant 0 : i32
  %c128i = arith.constant 128 : i32
  %r = scf.for %c = %c0i to %n step %c128i iter_args(%m = %m0) -> (tensor<4x1xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %x = tile.load %X[%c0, %ci] extents[%c4, %N] {lens = array<i64: 4, 128>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x128xf32>
    %e = math.exp %x : tensor<4x128xf32>
    %mx = tile.rowmax %e : tensor<4x128xf32> -> tensor<4x1xf32>
    %mn = arith.maximumf %m, %mx : tensor<4x1xf32>
    scf.yield %mn : tensor<4x1xf32>
  }
  %c1 = arith.constant 1 : index
  tile.store %r, %Y[%c0, %c0] extents[%c4, %c1] {lens = array<i64: 4, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  return
}
