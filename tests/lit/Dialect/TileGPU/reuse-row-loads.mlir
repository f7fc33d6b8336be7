// RUN: ph-opt %s --split-input-file --tilegpu-reuse-row-loads | %FileCheck %s --enable-var-scope
// REQUIRES: mlir
// A two-pass row kernel (statistics in one loop, the rows written in a second loop over the
// same blocks): the first loop also yields its block, and the second runs, when the range is
// one block, as a copy that uses it instead of loading it again.

// CHECK-LABEL: func.func @two_pass
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x512xf16>
// CHECK: %[[L1:.*]]:2 = scf.for %{{.*}} = %[[LB:.*]] to %[[UB:.*]] step %[[ST:.*]] iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[ZERO]])
// CHECK: %[[X1:.*]] = tile.load %arg0
// CHECK: scf.yield %{{.*}}, %[[X1]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]]
// CHECK: %[[ONE:.*]] = arith.cmpi sle, %[[SPAN]], %[[ST]]
// CHECK: scf.if %[[ONE]] {
// CHECK-NEXT: scf.for
// CHECK-NOT: tile.load %arg0
// CHECK: tile.convert %[[L1]]#1
// CHECK: tile.store
// CHECK: } else {
// CHECK-NEXT: scf.for
// CHECK: tile.load %arg0
// CHECK: tile.store
func.func @two_pass(%X: !tile.ptr<f16>, %Y: !tile.ptr<f16>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %W = arith.index_cast %w : i32 to index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x1xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %s = scf.for %c = %c0i to %w step %c512i iter_args(%acc = %z) -> (tensor<4x1xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
    %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
    %r = tile.rowsum %x : tensor<4x512xf32> -> tensor<4x1xf32>
    %n = arith.addf %acc, %r : tensor<4x1xf32>
    scf.yield %n : tensor<4x1xf32>
  }
  scf.for %c = %c0i to %w step %c512i : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x512xf16>
    %x = tile.convert %h : tensor<4x512xf16> -> tensor<4x512xf32>
    %b = tile.broadcast %s : tensor<4x1xf32> -> tensor<4x512xf32>
    %d = arith.subf %x, %b : tensor<4x512xf32>
    %o = tile.convert %d : tensor<4x512xf32> -> tensor<4x512xf16>
    tile.store %o, %Y[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<4x512xf16>, !tile.ptr<f16>
  }
  return
}

// -----

// A store to the tensor between the loops: the second loop must read again.
// CHECK-LABEL: func.func @store_between
// CHECK-NOT: scf.if
func.func @store_between(%X: !tile.ptr<f32>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %W = arith.index_cast %w : i32 to index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x1xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %s = scf.for %c = %c0i to %w step %c512i iter_args(%acc = %z) -> (tensor<4x1xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %x = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x512xf32>
    %r = tile.rowsum %x : tensor<4x512xf32> -> tensor<4x1xf32>
    %n = arith.addf %acc, %r : tensor<4x1xf32>
    scf.yield %n : tensor<4x1xf32>
  }
  %c1 = arith.constant 1 : index
  tile.store %s, %X[%c0, %c0] extents[%c4, %W] {lens = array<i64: 4, 1>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<4x1xf32>, !tile.ptr<f32>
  scf.for %c = %c0i to %w step %c512i : i32 {
    %ci = arith.index_cast %c : i32 to index
    %x = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x512xf32>
    %b = tile.broadcast %s : tensor<4x1xf32> -> tensor<4x512xf32>
    %d = arith.subf %x, %b : tensor<4x512xf32>
    tile.store %d, %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<4x512xf32>, !tile.ptr<f32>
  }
  return
}

// -----

// Different blocks (the second loop reads the next one): no reuse.
// CHECK-LABEL: func.func @other_block
// CHECK-NOT: scf.if
func.func @other_block(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  %W = arith.index_cast %w : i32 to index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<4x1xf32>
  %c0i = arith.constant 0 : i32
  %c512i = arith.constant 512 : i32
  %s = scf.for %c = %c0i to %w step %c512i iter_args(%acc = %z) -> (tensor<4x1xf32>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %x = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x512xf32>
    %r = tile.rowsum %x : tensor<4x512xf32> -> tensor<4x1xf32>
    %n = arith.addf %acc, %r : tensor<4x1xf32>
    scf.yield %n : tensor<4x1xf32>
  }
  scf.for %c = %c0i to %w step %c512i : i32 {
    %ci = arith.index_cast %c : i32 to index
    %cn = arith.addi %ci, %c512 : index
    %x = tile.load %X[%c0, %cn] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x512xf32>
    %b = tile.broadcast %s : tensor<4x1xf32> -> tensor<4x512xf32>
    %d = arith.subf %x, %b : tensor<4x512xf32>
    tile.store %d, %Y[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 512>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<4x512xf32>, !tile.ptr<f32>
  }
  return
}
