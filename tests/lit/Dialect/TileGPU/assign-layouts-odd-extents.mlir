// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s
// RUN: ph-opt %s --split-input-file --tilegpu-assign-layouts="arch=sm_90 policy=simt" --tilegpu-through-shared --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// REQUIRES: mlir
// Extents that are not powers of two (24 columns, 12 rows, 3 warps) take blocked
// layouts too (they had none: "extent 24 ... is not a multiple of the layout's 16").
// A reduced dimension is covered exactly: 24 columns of f32 are 2 lanes of 4, three
// passes of 8, and the row reduction shuffles over those 2 lanes only (xor 1).
// A dimension that is not reduced may wrap: 12 rows under 3 warps of 16 lanes (a pass
// of 48) hold rows 0-11 four times; positions are taken modulo the extent.

// CHECK: #blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @rows24
// CHECK: tile.load {{.*}} -> tensor<16x24xf32, #blocked>
// CHECK: tile.rowsum %{{.*}} : tensor<16x24xf32, #blocked> -> tensor<16x1xf32, #blocked>
// NVVM-LABEL: gpu.func @rows24
// NVVM: gpu.shuffle  xor %{{.*}}, %c1_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// NVVM-NOT: gpu.shuffle
// NVVM: gpu.return
func.func @rows24(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %x = tile.load %X[%c0, %c0] extents[%c16, %c24] {lens = array<i64: 16, 24>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x24xf32>
  %s = tile.rowsum %x : tensor<16x24xf32> -> tensor<16x1xf32>
  tile.store %s, %Y[%c0, %c0] extents[%c16, %c1] {lens = array<i64: 16, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<16x1xf32>, !tile.ptr<f32>
  return
}

// -----

// A column reduction of 12 rows: 4 lanes along the rows (the largest power of two
// dividing 12), three passes; the 3 warps along the columns.
// CHECK: #blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 3], order = [1, 0]}>
// CHECK-LABEL: func.func @cols12
// CHECK: tile.colsum %{{.*}} : tensor<12x48xf16, #blocked> -> tensor<1x48xf16, #blocked>
// NVVM-LABEL: gpu.func @cols12
// NVVM: gpu.shuffle  xor %{{.*}}, %c8_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// NVVM: gpu.shuffle  xor %{{.*}}, %c16_i32{{[_0-9]*}}, %c32_i32{{[_0-9]*}} : f32
// NVVM: gpu.return
func.func @cols12(%X: !tile.ptr<f16>, %Y: !tile.ptr<f16>) attributes {tile.threads = 96 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c48 = arith.constant 48 : index
  %x = tile.load %X[%c0, %c0] extents[%c12, %c48] {lens = array<i64: 12, 48>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<12x48xf16>
  %s = tile.colsum %x : tensor<12x48xf16> -> tensor<1x48xf16>
  tile.store %s, %Y[%c0, %c0] extents[%c1, %c48] {lens = array<i64: 1, 48>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x48xf16>, !tile.ptr<f16>
  return
}

// -----

// Not reduced: the default layout, 8-wide f16 vectors (48 = 6 x 8), lanes along the
// columns only as far as they divide 6 (2), the rest along the rows; the 12 rows wrap
// under the pass of 16 lanes (positions modulo 12: `arith.remui`).
// CHECK: #blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 3], order = [1, 0]}>
// CHECK-LABEL: func.func @plain
// CHECK: math.exp %{{.*}} : tensor<12x48xf16, #blocked>
// NVVM-LABEL: gpu.func @plain
// NVVM: arith.remui %{{.*}}, %c12{{[_0-9]*}} : index
// NVVM: gpu.return
func.func @plain(%X: !tile.ptr<f16>, %Y: !tile.ptr<f16>) attributes {tile.threads = 96 : i32} {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  %c48 = arith.constant 48 : index
  %x = tile.load %X[%c0, %c0] extents[%c12, %c48] {lens = array<i64: 12, 48>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<12x48xf16>
  %e = math.exp %x : tensor<12x48xf16>
  tile.store %e, %Y[%c0, %c0] extents[%c12, %c48] {lens = array<i64: 12, 48>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<12x48xf16>, !tile.ptr<f16>
  return
}
