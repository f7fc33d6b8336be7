// RUN: ph-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir
// The tile dialect's discardable attributes are registered (TileDialect.td): a
// misspelt or mistyped `tile.*` attribute is a verifier error, not a pass that
// silently falls back to its default.

// The four registered attributes, each with its type, verify.
func.func @registered(%x: !tile.ptr<f32>, %n: i32) attributes {tile.threads = 128 : i32, tile.tensorcore, tile.divisibility = array<i64: 1, 32>, tile.shared_bytes = 4096 : i64} {
  return
}

// -----

// Negative: a misspelt name.
// expected-error @+1 {{unknown attribute `tile.thread` of the tile dialect (known: tile.threads, tile.tensorcore, tile.divisibility, tile.shared_bytes)}}
func.func @misspelt() attributes {tile.thread = 128 : i32} { return }

// -----

// Negative: the thread count as a string.
// expected-error @+1 {{`tile.threads` must be an i32 thread count, found "128"}}
func.func @threads_string() attributes {tile.threads = "128"} { return }

// -----

// Negative: the thread count as i64.
// expected-error @+1 {{`tile.threads` must be an i32 thread count, found 128 : i64}}
func.func @threads_i64() attributes {tile.threads = 128 : i64} { return }

// -----

// Negative: not a whole number of warps.
// expected-error @+1 {{`tile.threads` must be a multiple of 32 in [32, 1024], found 100}}
func.func @threads_partial_warp() attributes {tile.threads = 100 : i32} { return }

// -----

// Negative: `tile.tensorcore` with a value.
// expected-error @+1 {{`tile.tensorcore` must be a unit attribute, found true}}
func.func @tensorcore_bool() attributes {tile.tensorcore = true} { return }

// -----

// Negative: divisibility as an i32 array.
// expected-error @+1 {{`tile.divisibility` must be an array<i64> with one entry per function argument, found array<i32: 1, 32>}}
func.func @divisibility_i32(%x: !tile.ptr<f32>, %n: i32) attributes {tile.divisibility = array<i32: 1, 32>} { return }

// -----

// Negative: more entries than arguments.
// expected-error @+1 {{`tile.divisibility` has 3 entries but the function has 2 arguments}}
func.func @divisibility_long(%x: !tile.ptr<f32>, %n: i32) attributes {tile.divisibility = array<i64: 1, 32, 1>} { return }

// -----

// Negative: a zero entry.
// expected-error @+1 {{`tile.divisibility` entries must be positive, found 0}}
func.func @divisibility_zero(%x: !tile.ptr<f32>, %n: i32) attributes {tile.divisibility = array<i64: 1, 0>} { return }

// -----

// Negative: shared bytes as i32.
// expected-error @+1 {{`tile.shared_bytes` must be a non-negative i64 byte count, found 4096 : i32}}
func.func @shared_i32() attributes {tile.shared_bytes = 4096 : i32} { return }

// -----

// Negative: `tile.launch` (an explicit @launch) with a value.
// expected-error @+1 {{`tile.launch` must be a unit attribute, found 128 : i32}}
func.func @launch_value() attributes {tile.launch = 128 : i32} { return }
