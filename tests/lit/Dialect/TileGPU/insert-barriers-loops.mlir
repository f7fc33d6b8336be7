// RUN: ph-opt %s --split-input-file --tilegpu-insert-barriers | %FileCheck %s
// REQUIRES: mlir
// tilegpu-insert-barriers around scf.for's back edge: what one iteration left
// pending meets the next iteration's accesses. An offset that advances by at least
// the slice's extent each iteration (the induction variable, or it times a
// constant) keeps iterations apart; a loop-invariant slice in one layout stays with
// its threads; anything else needs a barrier.

#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// In place: the load and the store of one iteration need a barrier, and the next
// iteration's rows (32 on) do not meet the last store's.
// CHECK-LABEL: func.func @in_place
// CHECK: scf.for
// CHECK-NEXT: tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store {{.*$}}
// CHECK-NEXT: }
// CHECK-NOT: tilegpu.barrier
func.func @in_place(%X: !tile.ptr<f32>, %n: index, %y: tensor<32x64xf32, #b>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c32 {
    %x = tile.load %X[%i, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #a>
    tile.store %y, %X[%i, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  }
  return
}

// -----

// Rows advancing by 16 under a 32-row slice: iteration i + 1 overwrites half of
// what iteration i wrote, other threads' elements: a barrier before the store.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @overlapping_iterations
// CHECK: scf.for
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
func.func @overlapping_iterations(%O: !tile.ptr<f32>, %n: index, %v: tensor<32x64xf32, #a>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c16 {
    tile.store %v, %O[%i, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  }
  return
}

// -----

// Columns k = i * 64: two layouts in one iteration need a barrier between them,
// none between iterations. The invariant slice stored in one layout every
// iteration stays with its threads.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @strided
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[O:[a-z0-9]+]]
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[O]]
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[P:[a-z0-9]+]]{{.*$}}
// CHECK-NEXT: }
func.func @strided(%O: !tile.ptr<f32>, %P: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %k = arith.muli %i, %c64 : index
    tile.store %v, %O[%r, %k] extents[%n, %n] {lens = array<i64: 32, 64>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
    tile.store %w, %O[%r, %k] extents[%n, %n] {lens = array<i64: 32, 64>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
    tile.store %w, %P[%r, %c0] extents[%n, %n] {lens = array<i64: 32, 64>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #b>, !tile.ptr<f32>
  }
  return
}

// -----

// A store before the loop read in another layout inside it: one barrier before the
// loop orders it for every iteration (not one each iteration).
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @before_loop
// CHECK: tile.store
// CHECK-NOT: tile.load
// CHECK: tilegpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.load
// CHECK-NOT: tilegpu.barrier
// CHECK: return
func.func @before_loop(%O: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>) -> tensor<32x64xf32, #b> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  %init = arith.constant dense<0.0> : tensor<32x64xf32, #b>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32x64xf32, #b>) {
    %x = tile.load %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #b>
    %y = arith.addf %acc, %x : tensor<32x64xf32, #b>
    scf.yield %y : tensor<32x64xf32, #b>
  }
  return %s : tensor<32x64xf32, #b>
}

// -----

// A load in the loop after a store before it, and a store after the loop (in
// another layout) of what the loop read: the first barrier goes before the loop; the
// store after the loop conflicts with the loop's reads and gets its own.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @around_loop
// CHECK: tile.store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.load {{.*$}}
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.store
func.func @around_loop(%O: !tile.ptr<f32>, %r: index, %n: index, %v: tensor<32x64xf32, #a>, %w: tensor<32x64xf32, #b>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.load %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #b>
  }
  tile.store %v, %O[%r, %c0] extents[%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf32, #a>, !tile.ptr<f32>
  return
}
