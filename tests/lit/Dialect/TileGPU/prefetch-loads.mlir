// RUN: ph-opt %s --split-input-file --tilegpu-prefetch-loads | %FileCheck %s --enable-var-scope
// REQUIRES: mlir
// A row loop that reduces each block reads the next block while this one is reduced: the first
// block before the loop (only when the loop runs), the next one at the top of each iteration,
// at iv + step, or at iv itself on the last iteration (never past the end).

#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#row = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>

// CHECK-LABEL: func.func @row_sums
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : i32
// CHECK: %[[FIRST:.*]] = scf.if %[[RUNS]] -> (tensor<1x1024xf16, #{{.*}}>) {
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[LB]] : i32 to index
// CHECK-NEXT: %[[X0:.*]] = tile.load %arg0[%{{.*}}, %[[I0]]]
// CHECK-NEXT: scf.yield %[[X0]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<1x1024xf16, #{{.*}}>
// CHECK-NEXT: scf.yield %[[Z]]
// CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[ST:.*]] iter_args(%{{.*}} = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %[[ST]] : i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK-NEXT: %[[AT:.*]] = arith.select %[[IN]], %[[NEXT]], %[[IV]] : i32
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[AT]] : i32 to index
// CHECK-NEXT: %[[X1:.*]] = tile.load %arg0[%{{.*}}, %[[I1]]]
// CHECK-NOT: tile.load
// CHECK: tile.convert %[[CUR]]
// CHECK: scf.yield %{{.*}}, %[[X1]]
func.func @row_sums(%X: !tile.ptr<f16>, %Y: !tile.ptr<f32>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %W = arith.index_cast %w : i32 to index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<1x1xf32, #row>
  %c0i = arith.constant 0 : i32
  %c1024i = arith.constant 1024 : i32
  %s = scf.for %c = %c0i to %w step %c1024i iter_args(%acc = %z) -> (tensor<1x1xf32, #row>) : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c1, %W] {lens = array<i64: 1, 1024>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x1024xf16, #bl>
    %x = tile.convert %h : tensor<1x1024xf16, #bl> -> tensor<1x1024xf32, #bl>
    %r = tile.rowsum %x : tensor<1x1024xf32, #bl> -> tensor<1x1xf32, #bl>
    %rr = tilegpu.convert_layout %r : tensor<1x1xf32, #bl> -> tensor<1x1xf32, #row>
    %n = arith.addf %acc, %rr : tensor<1x1xf32, #row>
    scf.yield %n : tensor<1x1xf32, #row>
  }
  tile.store %s, %Y[%c0, %c0] extents[%c1, %c1] {lens = array<i64: 1, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x1xf32, #row>, !tile.ptr<f32>
  return
}

// -----

// A loop that stores may write what the next block's read would see (the tensors may alias):
// its loads stay where they are.
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @stores
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: tile.load
func.func @stores(%X: !tile.ptr<f16>, %Y: !tile.ptr<f16>, %w: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %W = arith.index_cast %w : i32 to index
  %c0i = arith.constant 0 : i32
  %c1024i = arith.constant 1024 : i32
  scf.for %c = %c0i to %w step %c1024i : i32 {
    %ci = arith.index_cast %c : i32 to index
    %h = tile.load %X[%c0, %ci] extents[%c1, %W] {lens = array<i64: 1, 1024>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x1024xf16, #bl>
    tile.store %h, %Y[%c0, %ci] extents[%c1, %W] {lens = array<i64: 1, 1024>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<1x1024xf16, #bl>, !tile.ptr<f16>
  }
  return
}

// -----

// A load whose address comes from the loop's carried values cannot be read ahead; nor can one
// over the register budget (4 x 4096 f16 over 128 threads: 64 registers a thread > 32).
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#row = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @not_ahead
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.load
func.func @not_ahead(%X: !tile.ptr<f16>, %w: i32) -> (tensor<1x1xf32, #row>, tensor<4x1xf32, #row>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %W = arith.index_cast %w : i32 to index
  %c0f = arith.constant 0.0 : f32
  %z = tile.splat %c0f : tensor<1x1xf32, #row>
  %z4 = tile.splat %c0f : tensor<4x1xf32, #row>
  %c0i = arith.constant 0 : i32
  %c1024i = arith.constant 1024 : i32
  %s:3 = scf.for %c = %c0i to %w step %c1024i iter_args(%acc = %z, %acc4 = %z4, %at = %c0) -> (tensor<1x1xf32, #row>, tensor<4x1xf32, #row>, index) : i32 {
    %h = tile.load %X[%c0, %at] extents[%c1, %W] {lens = array<i64: 1, 1024>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x1024xf16, #bl>
    %x = tile.convert %h : tensor<1x1024xf16, #bl> -> tensor<1x1024xf32, #bl>
    %r = tile.rowsum %x : tensor<1x1024xf32, #bl> -> tensor<1x1xf32, #bl>
    %rr = tilegpu.convert_layout %r : tensor<1x1xf32, #bl> -> tensor<1x1xf32, #row>
    %n = arith.addf %acc, %rr : tensor<1x1xf32, #row>
    %ci = arith.index_cast %c : i32 to index
    %big = tile.load %X[%c0, %ci] extents[%c4, %W] {lens = array<i64: 4, 4096>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x4096xf16, #bl>
    %bx = tile.convert %big : tensor<4x4096xf16, #bl> -> tensor<4x4096xf32, #bl>
    %br = tile.rowsum %bx : tensor<4x4096xf32, #bl> -> tensor<4x1xf32, #bl>
    %brr = tilegpu.convert_layout %br : tensor<4x1xf32, #bl> -> tensor<4x1xf32, #row>
    %n4 = arith.addf %acc4, %brr : tensor<4x1xf32, #row>
    %nat = arith.addi %at, %W : index
    scf.yield %n, %n4, %nat : tensor<1x1xf32, #row>, tensor<4x1xf32, #row>, index
  }
  return %s#0, %s#1 : tensor<1x1xf32, #row>, tensor<4x1xf32, #row>
}
