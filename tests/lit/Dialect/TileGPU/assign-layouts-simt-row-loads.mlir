// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s --enable-var-scope
// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt row-load-vectors=false" | %FileCheck %s --check-prefix=OLD --enable-var-scope
// REQUIRES: mlir
// SIMT: a row reduction of loaded rows (softmax, the norms) takes its vectors from the loads
// behind it: 16 bytes of f16 (8 elements) where the rows are aligned, one element per lane
// where they may start anywhere (a warp's scalar loads then read consecutive elements). With
// row-load-vectors=false the f32 tile's own 16 bytes (4 elements), as before.

// f16 rows of a width that is a multiple of 16, widened to f32 and summed: 8-element vectors.
// CHECK-DAG: #[[$ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @aligned_f16
// CHECK: tile.load {{.*}} -> tensor<4x512xf16, #[[$ROWS]]>
// CHECK: tile.rowsum %{{.*}} : tensor<4x512xf32, #[[$ROWS]]> -> tensor<4x1xf32, #[[$ROWS]]>
// OLD-DAG: #[[$ROWS4:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// OLD-LABEL: func.func @aligned_f16
// OLD: tile.rowsum %{{.*}} : tensor<4x512xf32, #[[$ROWS4]]>
func.func @aligned_f16(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x1xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %c4096i = arith.constant 4096 : i32
  %s = scf.for %c = %c0i to %c4096i step %c512i iter_args(%acc = %z) -> (tensor<4x1xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c4, %c4096] {lens = array<i64: 4, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
    %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
    %sq = arith.mulf %x, %x : tensor<4x512xf32>
    %r = tile.rowsum %sq : tensor<4x512xf32> -> tensor<4x1xf32>
    %n = arith.addf %acc, %r : tensor<4x1xf32>
    scf.yield %n : tensor<4x1xf32>
  }
  tile.store %s, %Y[%c0, %c0] extents[%c4, %c1] {lens = array<i64: 4, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  return
}

// -----

// Rows of any width (the extent is an argument): one element per lane and pass.
// CHECK-DAG: #[[$ROWS1:.*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @any_width
// CHECK: tile.rowmax %{{.*}} : tensor<4x512xf32, #[[$ROWS1]]> -> tensor<4x1xf32, #[[$ROWS1]]>
// OLD-DAG: #[[$ROWS4:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// OLD-LABEL: func.func @any_width
// OLD: tile.rowmax %{{.*}} : tensor<4x512xf32, #[[$ROWS4]]>
func.func @any_width(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %W = arith.index_cast %w : i32 to index
  %h = tile.load %X[%c0, %c0] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
  %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
  %m = tile.rowmax %x : tensor<4x512xf32> -> tensor<4x1xf32>
  tile.store %m, %Y[%c0, %c0] extents[%c4, %c1] {lens = array<i64: 4, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  return
}

// -----

// A per-element sum carried through the loop and reduced once after it (layer_norm.ph,
// cross-entropy's picked logit): the reduction sees through the loop to the f16 loads (8-element
// vectors, no 4-element f32 default), and the one zero splat that starts the sum and fills the
// `where` is remade in each layout it is wanted in instead of converted through shared memory.
// CHECK-DAG: #[[$ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @carried_sum
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<4x512xf32, #[[$ROWS]]>)
// CHECK: tile.load {{.*}} -> tensor<4x512xf16, #[[$ROWS]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.rowsum %{{.*}} : tensor<4x512xf32, #[[$ROWS]]>
func.func @carried_sum(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>, %lab: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4096 = arith.constant 4096 : index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x512xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %c4096i = arith.constant 4096 : i32
  %s = scf.for %c = %c0i to %c4096i step %c512i iter_args(%acc = %z) -> (tensor<4x512xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c4, %c4096] {lens = array<i64: 4, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
    %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
    %col = tile.iota 1 : tensor<4x512xi32>
    %t = arith.subi %lab, %c : i32
    %ts = tile.splat %t : tensor<4x512xi32>
    %eq = arith.cmpi eq, %col, %ts : tensor<4x512xi32>
    %p = arith.select %eq, %x, %z : tensor<4x512xi1>, tensor<4x512xf32>
    %n = arith.addf %acc, %p : tensor<4x512xf32>
    scf.yield %n : tensor<4x512xf32>
  }
  %r = tile.rowsum %s : tensor<4x512xf32> -> tensor<4x1xf32>
  tile.store %r, %Y[%c0, %c0] extents[%c4, %c1] {lens = array<i64: 4, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  return
}

// -----

// One zero splat wanted in two layouts: it starts a sum carried through the loop and reduced by
// rows after it (the loads' 8-element rows) and fills a `where` whose result is reduced by
// columns (the column layout). It is made once in each layout, not converted.
// CHECK-LABEL: func.func @splat_two_layouts
// CHECK: %[[Z0:.*]] = tile.splat %{{.*}} : tensor<4x512xf32, #[[L0:.*]]>
// CHECK: %[[Z1:.*]] = tile.splat %{{.*}} : tensor<4x512xf32, #[[L1:.*]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z0]])
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[Z1]] : tensor<4x512xi1, #[[L1]]>, tensor<4x512xf32, #[[L1]]>
// CHECK: tile.colsum %{{.*}} : tensor<4x512xf32, #[[L1]]>
func.func @splat_two_layouts(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>, %Z: !tile.ptr<f32>, %lab: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %c4096 = arith.constant 4096 : index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x512xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %c4096i = arith.constant 4096 : i32
  %s = scf.for %c = %c0i to %c4096i step %c512i iter_args(%acc = %z) -> (tensor<4x512xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c4, %c4096] {lens = array<i64: 4, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
    %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
    %n = arith.addf %acc, %x : tensor<4x512xf32>
    scf.yield %n : tensor<4x512xf32>
  }
  %r = tile.rowsum %s : tensor<4x512xf32> -> tensor<4x1xf32>
  tile.store %r, %Y[%c0, %c0] extents[%c4, %c1] {lens = array<i64: 4, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  %h2 = tile.load %X[%c0, %c0] extents[%c4, %c4096] {lens = array<i64: 4, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
  %x2 = tile.convert %h2 : tensor<4x512xf16> -> tensor<4x512xf32>
  %col = tile.iota 1 : tensor<4x512xi32>
  %ls = tile.splat %lab : tensor<4x512xi32>
  %eq = arith.cmpi eq, %col, %ls : tensor<4x512xi32>
  %p = arith.select %eq, %x2, %z : tensor<4x512xi1>, tensor<4x512xf32>
  %cs = tile.colsum %p : tensor<4x512xf32> -> tensor<1x512xf32>
  tile.store %cs, %Z[%c0, %c0] extents[%c1, %c512] {lens = array<i64: 1, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x512xf32>, !tile.ptr<f32>
  return
}
