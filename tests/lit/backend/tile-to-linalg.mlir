// RUN: ph-opt %s -split-input-file --tile-to-linalg | %FileCheck %s
// REQUIRES: mlir
// tile-to-linalg: each tile op as tensor/linalg/scf with raw pointers, and the
// grid entry that runs every CTA.

// A masked load, a widening convert and a masked store; the kernel becomes
// @copy_cta with block ids and @copy loops over the grid.
// CHECK-LABEL: func.func private @copy_cta
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !llvm.ptr, %[[Y:[a-z0-9]+]]: !llvm.ptr, %[[N:[a-z0-9]+]]: i32, %[[BX:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32)
// CHECK: %[[ROW32:.*]] = arith.muli %[[BX]], %{{.*}} : i32
// CHECK: %[[ROWI:.*]] = arith.index_cast %[[ROW32]] : i32 to index
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: tensor.generate
// CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: %[[GI:.*]] = arith.addi %[[ROWI]], %[[I]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GI]], %[[NI]] : index
// CHECK: scf.if %[[IN]] -> (f16)
// CHECK: llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f16
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f16
// CHECK: } : tensor<4x8xf16>
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[E:.*]] = tensor.extract %[[W]]
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: llvm.getelementptr %[[Y]]
// CHECK: llvm.store %[[E]], %{{.*}} : f32, !llvm.ptr
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[X2:[a-z0-9]+]]: !llvm.ptr, %[[Y2:[a-z0-9]+]]: !llvm.ptr, %[[N2:[a-z0-9]+]]: i32, %[[GX:[a-z0-9]+]]: i32, %[[GY:[a-z0-9]+]]: i32, %[[GZ:[a-z0-9]+]]: i32)
// CHECK: scf.for %[[Z:.*]] = %{{.*}} to %[[GZ]]
// CHECK: scf.for %[[YI:.*]] = %{{.*}} to %[[GY]]
// CHECK: scf.for %[[XI:.*]] = %{{.*}} to %[[GX]]
// CHECK: func.call @copy_cta(%[[X2]], %[[Y2]], %[[N2]], %[[XI]], %[[YI]], %[[Z]])
func.func @copy(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>, %n: i32) {
  %b = tile.block_id 0
  %c4 = arith.constant 4 : i32
  %r = arith.muli %b, %c4 : i32
  %ri = arith.index_cast %r : i32 to index
  %ni = arith.index_cast %n : i32 to index
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = tile.load %x[%ri, %c0] extents [%ni, %c8] {lens = array<i64: 4, 8>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x8xf16>
  %w = tile.convert %t : tensor<4x8xf16> -> tensor<4x8xf32>
  tile.store %w, %y[%ri, %c0] extents [%ni, %c8] {lens = array<i64: 4, 8>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x8xf32>, !tile.ptr<f32>
  return
}

// -----

// Unmasked accesses have no bounds check; a squeezed dimension adds no loop index.
// CHECK-LABEL: func.func private @unmasked_cta
// CHECK: tensor.generate
// CHECK-NOT: arith.cmpi
// CHECK-NOT: scf.if
// CHECK: llvm.load
// CHECK: } : tensor<8xf32>
func.func @unmasked(%x: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %t = tile.load %x[%c0, %c1] extents [%c8, %c2] {lens = array<i64: 8, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, true>} : !tile.ptr<f32> -> tensor<8xf32>
  return
}

// -----

// dot_t accumulates widened products into a zero-filled f32 tile.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func private @dot_t_cta
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[Z]] : tensor<4x6xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @dot_t(%a: tensor<4x8xf16>, %b: tensor<6x8xf16>) {
  %d = tile.dot %a, %b {transB} : tensor<4x8xf16>, tensor<6x8xf16> -> tensor<4x6xf32>
  return
}

// -----

// dot (not transposed) indexes b as [K, N].
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func private @dot_cta
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$B]], #{{.*}}]
func.func @dot(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %d = tile.dot %a, %b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  return
}

// -----

// Row reductions: max from -inf, sum from 0, into [R, 1].
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func private @reductions_cta
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
func.func @reductions(%s: tensor<4x6xf32>) {
  %m = tile.rowmax %s : tensor<4x6xf32> -> tensor<4x1xf32>
  %l = tile.rowsum %s : tensor<4x6xf32> -> tensor<4x1xf32>
  return
}

// -----

// Column reductions: rows are the reduction (outer), columns parallel, into [1, C].
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COLR:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func private @col_reductions_cta
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$COLR]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$COLR]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.addi
func.func @col_reductions(%s: tensor<4x6xf32>, %t: tensor<4x6xi32>) {
  %m = tile.colmax %s : tensor<4x6xf32> -> tensor<1x6xf32>
  %l = tile.colsum %t : tensor<4x6xi32> -> tensor<1x6xi32>
  return
}

// -----

// Broadcasts read the stretched dimension at index 0; splat is a fill.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func private @broadcast_cta
// CHECK: linalg.generic {indexing_maps = [#[[$COL]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x6xf32>)
func.func @broadcast(%r: tensor<1x6xf32>, %x: f32) {
  %b = tile.broadcast %r : tensor<1x6xf32> -> tensor<4x6xf32>
  %s = tile.splat %x : tensor<4x6xf32>
  return
}

// -----

// mask_cols selects v where j >= n; causal_mask -1e30 where col + j > row + i.
// CHECK-LABEL: func.func private @masks_cta
// CHECK-SAME: (%[[S:[a-z0-9]+]]: tensor<4x6xf32>, %[[N:[a-z0-9]+]]: i32, %[[V:[a-z0-9]+]]: f32
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[PAST:.*]] = arith.cmpi sge, %[[J]], %[[NI]] : index
// CHECK: arith.select %[[PAST]], %[[V]], %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: %[[I2:.*]] = linalg.index 0 : index
// CHECK: %[[J2:.*]] = linalg.index 1 : index
// CHECK: %[[KEY:.*]] = arith.addi %{{.*}}, %[[J2]] : index
// CHECK: %[[QRY:.*]] = arith.addi %{{.*}}, %[[I2]] : index
// CHECK: %[[FUT:.*]] = arith.cmpi sgt, %[[KEY]], %[[QRY]] : index
// CHECK: %[[NEG:.*]] = arith.constant -1.000000e+30 : f32
// CHECK: arith.select %[[FUT]], %[[NEG]], %{{.*}} : f32
func.func @masks(%s: tensor<4x6xf32>, %n: i32, %v: f32) {
  %m = tile.mask_cols %s, %n, %v : tensor<4x6xf32>
  %c = tile.causal_mask %m, %n, %n : tensor<4x6xf32>
  return
}

// -----

// rowargmax: one reduction carrying (best value, its column); a column replaces the best
// when it is larger, or a NaN over a number.
// CHECK-LABEL: func.func private @argmax_cta
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ord
// CHECK: linalg.index 1 : index
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i32
func.func @argmax(%s: tensor<4x6xf32>) {
  %a = tile.rowargmax %s : tensor<4x6xf32> -> tensor<4x1xi32>
  return
}

// -----

// Tile slices become tensor slices (rank-reducing where squeezed).
// CHECK-LABEL: func.func private @slices_cta
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
func.func @slices(%x: tensor<4x8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %r = tile.extract %x[%c0, %i] {lens = array<i64: 1, 8>, squeezed = array<i1: true, false>} : tensor<4x8xf32> -> tensor<8xf32>
  %y = tile.insert %r into %x[%i, %c0] {lens = array<i64: 1, 8>, squeezed = array<i1: true, false>} : tensor<8xf32> into tensor<4x8xf32>
  return
}
