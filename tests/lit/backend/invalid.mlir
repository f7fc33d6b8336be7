// RUN: ph-opt %s -split-input-file -verify-diagnostics
// REQUIRES: mlir
// Every verifier message of the tile dialect, one negative case each.

// Negative: a load with fewer extents than dimensions.
func.func @load_missing_extent(%p: !tile.ptr<f32>, %i: index) {
  // expected-error @+1 {{expects one extent and mask flag per dimension (2), got 1 extents and 2 mask flags}}
  %t = tile.load %p[%i, %i] extents [%i] {lens = array<i64: 4, 4>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x4xf32>
  return
}

// -----

// Negative: one offset for a rank-2 slice.
func.func @load_missing_offset(%p: !tile.ptr<f32>, %i: index) {
  // expected-error @+1 {{expects one offset, length and squeeze flag per dimension (2), got 1 offsets, 2 lengths and 2 squeeze flags}}
  %t = tile.load %p[%i] extents [%i, %i] {lens = array<i64: 4, 4>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x4xf32>
  return
}

// -----

// Negative: a zero-length slice.
func.func @load_zero_length(%p: !tile.ptr<f32>, %i: index) {
  // expected-error @+1 {{slice length 0 along dimension 1 is not positive}}
  %t = tile.load %p[%i, %i] extents [%i, %i] {lens = array<i64: 4, 0>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x0xf32>
  return
}

// -----

// Negative: a squeezed (indexed) dimension must have length 1.
func.func @load_squeeze_len(%p: !tile.ptr<f32>, %i: index) {
  // expected-error @+1 {{squeezed dimension 1 has length 2, expected 1}}
  %t = tile.load %p[%i, %i] extents [%i, %i] {lens = array<i64: 4, 2>, masked = array<i1: true, true>, squeezed = array<i1: false, true>} : !tile.ptr<f32> -> tensor<4xf32>
  return
}

// -----

// Negative: the result's shape is not the slice's.
func.func @load_shape(%p: !tile.ptr<f32>, %i: index) {
  // expected-error @+1 {{result shape [4, 8] does not match the slice's [4, 4]}}
  %t = tile.load %p[%i, %i] extents [%i, %i] {lens = array<i64: 4, 4>, masked = array<i1: true, true>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x8xf32>
  return
}

// -----

// Negative: loads do not convert; a tile.convert follows the load.
func.func @load_elem(%p: !tile.ptr<f16>, %i: index) {
  // expected-error @+1 {{result element type 'f32' differs from the tensor's 'f16'}}
  %t = tile.load %p[%i] extents [%i] {lens = array<i64: 4>, masked = array<i1: true>, squeezed = array<i1: false>} : !tile.ptr<f16> -> tensor<4xf32>
  return
}

// -----

// Negative: stores do not narrow; the value must already have the tensor's type.
func.func @store_elem(%p: !tile.ptr<f16>, %i: index, %v: tensor<4xf32>) {
  // expected-error @+1 {{stored tile element type 'f32' differs from the tensor's 'f16'}}
  tile.store %v, %p[%i] extents [%i] {lens = array<i64: 4>, masked = array<i1: true>, squeezed = array<i1: false>} : tensor<4xf32>, !tile.ptr<f16>
  return
}

// -----

// Negative: a tile slice longer than the tile.
func.func @extract_too_long(%x: tensor<8x8xf32>, %i: index) {
  // expected-error @+1 {{slice length 16 exceeds extent 8 of dimension 1}}
  %a = tile.extract %x[%i, %i] {lens = array<i64: 8, 16>, squeezed = array<i1: false, false>} : tensor<8x8xf32> -> tensor<8x16xf32>
  return
}

// -----

// Negative: a constant offset that runs past the tile.
func.func @extract_outside(%x: tensor<8x8xf32>, %i: index) {
  %c6 = arith.constant 6 : index
  // expected-error @+1 {{slice 6 :+ 4 is outside dimension 1 of extent 8}}
  %a = tile.extract %x[%i, %c6] {lens = array<i64: 8, 4>, squeezed = array<i1: false, false>} : tensor<8x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// Negative: extract keeps the element type.
func.func @extract_elem(%x: tensor<8x8xf32>, %i: index) {
  // expected-error @+1 {{result element type 'f16' differs from the source's 'f32'}}
  %a = tile.extract %x[%i, %i] {lens = array<i64: 8, 4>, squeezed = array<i1: false, false>} : tensor<8x8xf32> -> tensor<8x4xf16>
  return
}

// -----

// Negative: the inserted tile must have the slice's shape.
func.func @insert_shape(%x: tensor<8x8xf32>, %v: tensor<8x2xf32>, %i: index) {
  // expected-error @+1 {{inserted tile shape [8, 2] does not match the slice's [8, 4]}}
  %y = tile.insert %v into %x[%i, %i] {lens = array<i64: 8, 4>, squeezed = array<i1: false, false>} : tensor<8x2xf32> into tensor<8x8xf32>
  return
}

// -----

// Negative: [4,8]·[4,8] needs transB.
func.func @dot_contraction(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{contraction mismatch: a is [4, 8], b is [4, 8]}}
  %c = tile.dot %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Negative: dot_t of [4,8] and [6,8] gives [4,6].
func.func @dot_result(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) {
  // expected-error @+1 {{result shape [4, 8], expected [4, 6]}}
  %c = tile.dot %a, %b {transB} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Negative: integer operands with a float accumulator.
func.func @dot_mixed(%a: tensor<4x8xi32>, %b: tensor<8x4xi32>) {
  // expected-error @+1 {{mixes integer and float operands ('i32', 'i32' -> 'f32')}}
  %c = tile.dot %a, %b : tensor<4x8xi32>, tensor<8x4xi32> -> tensor<4x4xf32>
  return
}

// -----

// Negative: column reductions give [1, C].
func.func @colsum_shape(%s: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape [4, 1], expected [1, 8]}}
  %m = tile.colsum %s : tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

// Negative: row reductions give [R, 1].
func.func @rowmax_shape(%s: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape [4, 8], expected [4, 1]}}
  %m = tile.rowmax %s : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Negative: rowsum too.
func.func @rowsum_shape(%s: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape [1, 1], expected [4, 1]}}
  %m = tile.rowsum %s : tensor<4x8xf32> -> tensor<1x1xf32>
  return
}

// -----

// Negative: only extent-1 dimensions stretch.
func.func @broadcast_bad(%s: tensor<4x2xf32>) {
  // expected-error @+1 {{cannot broadcast [4, 2] to [4, 8]: only extent-1 dimensions stretch}}
  %b = tile.broadcast %s : tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

// Negative: convert changes the element type only.
func.func @convert_shape(%s: tensor<4x2xf32>) {
  // expected-error @+1 {{converts 'tensor<4x2xf32>' to 'tensor<4x4xf16>': shapes differ}}
  %b = tile.convert %s : tensor<4x2xf32> -> tensor<4x4xf16>
  return
}

// -----

// Negative: the splatted scalar has the tile's element type.
func.func @splat_elem(%x: f16) {
  // expected-error @+1 {{failed to verify that element type matches the scalar}}
  %b = "tile.splat"(%x) : (f16) -> tensor<4x4xf32>
  return
}

// -----

// Negative: rowargmax gives one i32 column.
func.func @rowargmax_shape(%s: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape [4, 8], expected [4, 1]}}
  %a = tile.rowargmax %s : tensor<4x8xf32> -> tensor<4x8xi32>
  return
}

// -----

// Negative: the mask value has the tile's element type.
func.func @mask_cols_value(%s: tensor<4x4xf32>, %n: i32, %v: f16) {
  // expected-error @+1 {{failed to verify that value has the element type}}
  %m = "tile.mask_cols"(%s, %n, %v) : (tensor<4x4xf32>, i32, f16) -> tensor<4x4xf32>
  return
}

// -----

// Negative: three grid axes, x, y and z.
func.func @block_axis() {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint}}
  %b = tile.block_id 3
  return
}
