// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s
// REQUIRES: mlir
// A column reduction anchors its tile and its [1, C] result in colBlocked: every warp
// along the columns, lanes along the rows only as far as the 16 rows go (and the rest
// along the columns), 16-byte vectors; ColReduceToNVVM then never crosses a warp.

// CHECK-DAG: #[[COLS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK: func.func @cols
// CHECK: tile.load {{.*}} -> tensor<16x32xf32, #[[COLS]]>
// CHECK: tile.colsum %{{.*}} : tensor<16x32xf32, #[[COLS]]> -> tensor<1x32xf32, #[[COLS]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @cols(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %x = tile.load %X[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x32xf32>
  %s = tile.colsum %x : tensor<16x32xf32> -> tensor<1x32xf32>
  tile.store %s, %Y[%c0, %c0] extents[%c1, %c32] {lens = array<i64: 1, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x32xf32>, !tile.ptr<f32>
  return
}

// -----

// scf.if: the result takes the layout a branch yields (the row reduction's rowBlocked,
// from the then branch), and the else branch's load, whose only user is the yield, is
// read in it directly (no conversion through shared memory).
// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: func.func @branch
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<2x128xf32, #[[ROWS]]>) {
// CHECK:   scf.yield %{{.*}} : tensor<2x128xf32, #[[ROWS]]>
// CHECK: } else {
// CHECK-NOT: tilegpu.convert_layout
// CHECK:   %[[C:.*]] = tile.load {{.*}} -> tensor<2x128xf32, #[[ROWS]]>
// CHECK:   scf.yield %[[C]] : tensor<2x128xf32, #[[ROWS]]>
// CHECK: tile.store %[[R]]
func.func @branch(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %n: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %n, %z : i32
  %r = scf.if %p -> (tensor<2x128xf32>) {
    %x = tile.load %X[%c0, %c0] extents[%c2, %c128] {lens = array<i64: 2, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<2x128xf32>
    %m = tile.rowmax %x : tensor<2x128xf32> -> tensor<2x1xf32>
    %b = tile.broadcast %m : tensor<2x1xf32> -> tensor<2x128xf32>
    %d = arith.subf %x, %b : tensor<2x128xf32>
    scf.yield %d : tensor<2x128xf32>
  } else {
    %y = tile.load %Y[%c0, %c0] extents[%c2, %c128] {lens = array<i64: 2, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<2x128xf32>
    scf.yield %y : tensor<2x128xf32>
  }
  tile.store %r, %Y[%c0, %c0] extents[%c2, %c128] {lens = array<i64: 2, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<2x128xf32>, !tile.ptr<f32>
  return
}
