// RUN: ph-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir
// The tile dialect's kernel attributes are registered (TileDialect.td, discardableAttrs) and
// verified wherever they appear: one spelling, one type, a value `@launch`, `@tensorcore` and
// `@aligned` could have given.

// A kernel as KirToTile makes it: every attribute valid (no diagnostic).
func.func @ok(%x: !tile.ptr<f32>, %n: i32)
    attributes {tile.threads = 256 : i32, tile.tensorcore, tile.divisibility = array<i64: 1, 64>, tile.shared_bytes = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{`tile.threads` must be a multiple of 32 from 32 to 1024 (`@launch`), found 100}}
func.func @threads_not_warps(%x: !tile.ptr<f32>) attributes {tile.threads = 100 : i32} { return }

// -----

// expected-error @+1 {{`tile.threads` must be a multiple of 32 from 32 to 1024 (`@launch`), found 2048}}
func.func @threads_too_many(%x: !tile.ptr<f32>) attributes {tile.threads = 2048 : i32} { return }

// -----

// expected-error @+1 {{`tile.threads` must be an i32 integer, found "128"}}
func.func @threads_as_text(%x: !tile.ptr<f32>) attributes {tile.threads = "128"} { return }

// -----

// expected-error @+1 {{`tile.tensorcore` is a unit attribute, found true}}
func.func @tensorcore_bool(%x: !tile.ptr<f32>) attributes {tile.tensorcore = true} { return }

// -----

// expected-error @+1 {{`tile.divisibility` has 3 entries for 2 arguments}}
func.func @divisibility_too_long(%x: !tile.ptr<f32>, %n: i32) attributes {tile.divisibility = array<i64: 1, 1, 1>} { return }

// -----

// expected-error @+1 {{`tile.divisibility` holds divisors, which are positive; found 0}}
func.func @divisibility_zero(%x: !tile.ptr<f32>, %n: i32) attributes {tile.divisibility = array<i64: 1, 0>} { return }

// -----

func.func @on_an_op(%x: !tile.ptr<f32>) {
  // expected-error @+1 {{carries `tile.threads`, which belongs on a kernel function}}
  %c = arith.constant {tile.threads = 128 : i32} 0 : i32
  return
}

// -----

// expected-error @+1 {{unknown attribute `tile.thread` of the tile dialect}}
func.func @misspelt(%x: !tile.ptr<f32>) attributes {tile.thread = 128 : i32} { return }
