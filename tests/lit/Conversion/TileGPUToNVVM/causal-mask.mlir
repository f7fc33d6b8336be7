// RUN: ph-opt %s --convert-tilegpu-to-nvvm="causal-mask-diff=0" | %FileCheck %s --check-prefix=SUM
// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=DIFF
// REQUIRES: mlir
// tile.causal_mask (std/masks.ph's causal_mask) on a blocked tile: a uniform branch skips the
// selects when the last column is on or left of the first row's diagonal; otherwise each register
// is set to -1e30 where col + j > row + i. With causal-mask-diff=0 (PH_TILEGPU_MASK_DIFF=0) each
// register adds its column to `col` and its row to `row` (SUM). By default (causal-mask-diff, on
// since an H100 run checked it) one difference, (row - col) - (base_c - base_r), frozen so that LLVM sees no
// induction variable in it, is compared with each register's constant column-minus-row offset
// (DIFF): 16 registers a thread here, column offsets 0..3 in each of four rows 16 apart.

// SUM-LABEL: gpu.func @cm
// SUM: arith.cmpi sle, %{{.*}}, %arg3 : i32
// SUM: scf.if
// SUM-COUNT-16: arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// SUM-NOT: llvm.freeze

// DIFF-LABEL: gpu.func @cm
// DIFF: scf.if
// DIFF: %[[D:.*]] = arith.subi %arg3, %arg4 : i32
// DIFF: %[[B:.*]] = arith.subi
// DIFF: %[[E0:.*]] = arith.subi %[[D]], %[[B]] : i32
// DIFF: %[[E:.*]] = llvm.freeze %[[E0]] : i32
// DIFF: %[[K0:.*]] = arith.constant 0 : i32
// DIFF-NEXT: arith.cmpi sgt, %[[K0]], %[[E]] : i32
// DIFF: %[[K1:.*]] = arith.constant 1 : i32
// DIFF-NEXT: arith.cmpi sgt, %[[K1]], %[[E]] : i32
// DIFF: %[[K16:.*]] = arith.constant -16 : i32
// DIFF-NEXT: arith.cmpi sgt, %[[K16]], %[[E]] : i32
// DIFF-NOT: llvm.freeze
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module {
  func.func @cm(%S: !tile.ptr<f32>, %O: !tile.ptr<f32>, %n: i32, %row: i32, %col: i32) attributes {tile.threads = 128 : i32, tilegpu.policy = "simt"} {
    %c32 = arith.constant 32 : index
    %c0 = arith.constant 0 : index
    %r = arith.index_cast %row : i32 to index
    %ni = arith.index_cast %n : i32 to index
    %s = tile.load %S[%r, %c0] extents[%ni, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<64x32xf32, #blocked>
    %m = tile.causal_mask %s, %row, %col : tensor<64x32xf32, #blocked>
    tile.store %m, %O[%r, %c0] extents[%ni, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x32xf32, #blocked>, !tile.ptr<f32>
    return
  }
}
