// RUN: ph-opt %s --split-input-file --tilegpu-through-shared --tilegpu-allocate-shared | %FileCheck %s
// RUN: ph-opt %s --split-input-file --tilegpu-through-shared --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// REQUIRES: mlir
// A part of a tile (tile.extract: `x[:, 3 :+ 4]`) and a tile with a part replaced
// (tile.insert: `x[:, 3 :+ 4] = v`) go through a buffer of the whole tile: the
// part's offsets are the local_store's or local_load's `tilegpu.window`. Before,
// no pattern lowered either on the TileGPU path, and a kernel with index tiles
// (which only TileGPU takes) and a partial assignment failed to build (difftest
// `tilegpu-iota-insert`).

#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @insert
// CHECK: %[[B:.*]] = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<16x32xf32, #{{.*}}>
// CHECK: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{[0-9]+}}, %[[B]] : tensor<16x32xf32, #blocked>, !tilegpu.memdesc<16x32xf32, #shared>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[B]] {tilegpu.squeezed = array<i1: false, false>, tilegpu.window = array<i64: 0, 3>} : tensor<16x4xf32, #blocked>, !tilegpu.memdesc<16x32xf32, #shared>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: %[[R:.*]] = tilegpu.local_load %[[B]] : {{.*}} -> tensor<16x32xf32, #blocked>
// CHECK-NOT: tile.insert
// The part's store adds the window's column offset (3) to each element's column.
// NVVM-LABEL: gpu.func @insert
// NVVM-NOT: tile.insert
// NVVM: llvm.store {{.*}} : f32, !llvm.ptr<3>
// NVVM: arith.constant 3 : index
// NVVM: llvm.store {{.*}} : f32, !llvm.ptr<3>
// NVVM: gpu.barrier
// NVVM: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @insert(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %d = tile.load %X[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x32xf32, #bl>
  %v = tile.load %X[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 4>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x4xf32, #bl>
  %r = tile.insert %v into %d[%c0, %c3] {lens = array<i64: 16, 4>, squeezed = array<i1: false, false>} : tensor<16x4xf32, #bl> into tensor<16x32xf32, #bl>
  tile.store %r, %Y[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<16x32xf32, #bl>, !tile.ptr<f32>
  return
}

// -----

#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @extract
// CHECK: %[[B:.*]] = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<16x32xf32, #{{.*}}>
// CHECK: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[B]] : tensor<16x32xf32, #blocked>, !tilegpu.memdesc<16x32xf32, #shared>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load %[[B]] {tilegpu.squeezed = array<i1: false, false>, tilegpu.window = array<i64: 0, 8>} : {{.*}} -> tensor<16x8xf32, #blocked>
// CHECK-NOT: tile.extract
// NVVM-LABEL: gpu.func @extract
// NVVM-NOT: tile.extract
// NVVM: gpu.barrier
// NVVM: arith.constant 8 : index
// NVVM: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @extract(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %d = tile.load %X[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x32xf32, #bl>
  %p = tile.extract %d[%c0, %c8] {lens = array<i64: 16, 8>, squeezed = array<i1: false, false>} : tensor<16x32xf32, #bl> -> tensor<16x8xf32, #bl>
  tile.store %p, %Y[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 8>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<16x8xf32, #bl>, !tile.ptr<f32>
  return
}

