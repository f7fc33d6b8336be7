// RUN: ph-opt %s --canonicalize | %FileCheck %s
// REQUIRES: mlir
// tile.mask_cols(s, N - j, v) in a key loop `for j = 0 to N step 128` over 128 columns, N a
// multiple of 128 (`@aligned(N = 128)`, tile.divisibility): every block is whole, j + 128 <= N,
// so no column is masked and the op goes (mha.ph's 128 x 128 blocks: 64 selects a thread a block
// on the GPU). It stays where N is not known to be such a multiple, where the step is narrower
// than the tile, where the lower bound is not a multiple of the step, where n is not ub - iv, and
// in a loop of unsigned bounds (ub past 2^31 makes ub - iv negative as the mask's signed n).

// CHECK-LABEL: func.func @aligned
// CHECK-NOT: tile.mask_cols
// CHECK: tile.rowmax %{{.*}} :
func.func @aligned(%n: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 128, 1>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for %j = %c0 to %n step %c128 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %n, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}

// CHECK-LABEL: func.func @unaligned
// CHECK: tile.mask_cols
func.func @unaligned(%n: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 64, 1>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for %j = %c0 to %n step %c128 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %n, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}

// CHECK-LABEL: func.func @narrow_step
// CHECK: tile.mask_cols
func.func @narrow_step(%n: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 128, 1>} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for %j = %c0 to %n step %c64 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %n, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}

// CHECK-LABEL: func.func @odd_start
// CHECK: tile.mask_cols
func.func @odd_start(%n: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 128, 1>} {
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for %j = %c1 to %n step %c128 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %n, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}

// CHECK-LABEL: func.func @not_the_bound
// CHECK: tile.mask_cols
func.func @not_the_bound(%n: i32, %k: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 128, 128, 1>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for %j = %c0 to %n step %c128 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %k, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}

// CHECK-LABEL: func.func @unsigned_loop
// CHECK: tile.mask_cols
func.func @unsigned_loop(%n: i32, %x: f32) -> tensor<128x1xf32> attributes {tile.divisibility = array<i64: 128, 1>} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %ninf = arith.constant -1.0e+30 : f32
  %init = tile.splat %x : tensor<128x1xf32>
  %r = scf.for unsigned %j = %c0 to %n step %c128 iter_args(%m = %init) -> (tensor<128x1xf32>) : i32 {
    %s = tile.splat %x : tensor<128x128xf32>
    %left = arith.subi %n, %j : i32
    %masked = tile.mask_cols %s, %left, %ninf : tensor<128x128xf32>
    %row = tile.rowmax %masked : tensor<128x128xf32> -> tensor<128x1xf32>
    scf.yield %row : tensor<128x1xf32>
  }
  return %r : tensor<128x1xf32>
}
