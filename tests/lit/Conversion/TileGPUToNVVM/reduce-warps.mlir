// RUN: ph-opt %s --tilegpu-allocate-shared | %FileCheck %s --check-prefix=ALLOC
// RUN: ph-opt %s --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// A row split over warps along the columns (the SIMT policy's one row over 4 warps): each
// thread adds its registers, the lanes of a warp add theirs with butterfly shuffles, then the
// first lane of each warp writes its partial to the start of shared memory between two
// barriers and every thread adds the 4 partials in warp order. allocate-shared keeps those
// bytes (1 row x 4 warps x 4 bytes) before any buffer.

#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#rows2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>

// ALLOC-LABEL: func.func @rowsum_over_warps
// ALLOC-SAME: tilegpu.shared_bytes = 16 : i64
// CHECK-LABEL: gpu.func @rowsum_over_warps
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: gpu.return
func.func @rowsum_over_warps(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %h = tile.load %x[%c0, %c0] extents[%c1, %c1024] {lens = array<i64: 1, 1024>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x1024xf16, #rows>
  %f = tile.convert %h : tensor<1x1024xf16, #rows> -> tensor<1x1024xf32, #rows>
  %s = tile.rowsum %f : tensor<1x1024xf32, #rows> -> tensor<1x1xf32, #rows>
  tile.store %s, %y[%c0, %c0] extents[%c1, %c1] {lens = array<i64: 1, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x1xf32, #rows>, !tile.ptr<f32>
  return
}

// Two rows over 2 x 2 warps: 2 rows x 2 warp columns x 4 bytes, and each thread adds 2 partials.
// ALLOC-LABEL: func.func @rowmax_two_rows
// ALLOC-SAME: tilegpu.shared_bytes = 16 : i64
// CHECK-LABEL: gpu.func @rowmax_two_rows
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3>
// CHECK: gpu.return
func.func @rowmax_two_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c512 = arith.constant 512 : index
  %f = tile.load %x[%c0, %c0] extents[%c2, %c512] {lens = array<i64: 2, 512>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<2x512xf32, #rows2>
  %m = tile.rowmax %f : tensor<2x512xf32, #rows2> -> tensor<2x1xf32, #rows2>
  tile.store %m, %y[%c0, %c0] extents[%c2, %c1] {lens = array<i64: 2, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<2x1xf32, #rows2>, !tile.ptr<f32>
  return
}
