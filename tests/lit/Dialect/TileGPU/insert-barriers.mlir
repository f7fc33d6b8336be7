// RUN: ph-opt %s --split-input-file --tilegpu-insert-barriers | %FileCheck %s
// REQUIRES: mlir
// tilegpu-insert-barriers on global tensors: a barrier between two accesses of one
// tensor (one a write) that may overlap and may be different threads' elements
// (another layout, or one that holds elements twice), and none otherwise. Difftest
// seed 202261 on sm_90a stored one slice twice in two layouts without one.

#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @two_layouts
// CHECK: tile.store %{{.*}} : tensor<32x64xf32, #{{.*}}>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
// CHECK-NOT: tilegpu.barrier
// CHECK: return
func.func @two_layouts(%O: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  tile.store %w, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  return
}

// -----

// One slice in one layout that holds each element once: every element stays with
// its thread, no barrier. Another tensor, or disjoint columns: none either.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @no_race
// CHECK-NOT: tilegpu.barrier
// CHECK: return
func.func @no_race(%O: !tile.ptr<f32>, %P: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) -> tensor<32x64xf32, #a> {
  %c128 = arith.constant 128 : index
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r1 = arith.addi %r, %c64 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  tile.store %v, %O[%r, %c0] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  %x = tile.load %O[%r, %c0] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #a>
  tile.store %w, %P[%r, %c0] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  tile.store %w, %O[%r, %c64] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  tile.store %w, %O[%r1, %c0] extents[%n, %c128] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  return %x : tensor<32x64xf32, #a>
}

// -----

// A barrier already there suffices; reads after reads need none.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @existing
// CHECK: tile.load
// CHECK-NEXT: tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
// CHECK-NOT: tilegpu.barrier
// CHECK: return
func.func @existing(%O: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>) -> (tensor<32x64xf32, #a>, tensor<32x64xf32, #b>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %x = tile.load %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #a>
  %y = tile.load %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #b>
  tilegpu.barrier
  tile.store %x, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  tilegpu.barrier
  tile.store %y, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  return %x, %y : tensor<32x64xf32, #a>, tensor<32x64xf32, #b>
}

// -----

// A store then a load of what it wrote (read after write), and a load then a store
// over what it read (write after read), in other layouts: a barrier each.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @raw_war
// CHECK: tile.store %{{[a-z0-9]+}}, %[[O:[a-z0-9]+]]
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.load %[[O]]
// CHECK-NEXT: tile.load %[[X:[a-z0-9]+]]
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[X]]
func.func @raw_war(%O: !tile.ptr<f32>, %X: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) -> (tensor<32x64xf32, #b>, tensor<32x64xf32, #a>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  %y = tile.load %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #b>
  %x = tile.load %X[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #a>
  tile.store %w, %X[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  return %y, %x : tensor<32x64xf32, #b>, tensor<32x64xf32, #a>
}

// -----

// A layout that holds elements twice (64 columns of a 128-column pass wrap around:
// two threads store each element) races with itself: the second store of the same
// slice in the same layout still needs a barrier.
#w = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @wrapped
// CHECK: tile.store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
func.func @wrapped(%O: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<4x64xf32, #w>, %u: tensor<4x64xf32, #w>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32, #w>, !tile.ptr<f32>
  tile.store %u, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32, #w>, !tile.ptr<f32>
  return
}

// -----

// Branches: a store in one branch of an scf.if races with a store after it.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @branch
// CHECK: scf.if
// CHECK-NEXT: tile.store {{.*$}}
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
func.func @branch(%O: !tile.ptr<f32>, %r: index, %n: index, %c: i1, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  scf.if %c {
    tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  }
  tile.store %w, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  return
}
