// RUN: ph-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir
// The TileGPU dialect's discardable attributes are registered (TileGPUDialect.td):
// a misspelt, mistyped or misplaced `tilegpu.*` attribute is a verifier error, not a
// pass or pattern that silently falls back to its default.

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// The eleven registered attributes, each where its pass puts it, verify: a window on a
// staged local_load (tilegpu-prefetch-fragments' K steps) and a squeezed window on a
// single buffer (tilegpu-through-shared) included.
func.func @registered(%A: !tile.ptr<f16>, %m: index, %k: index, %s: index, %v: tensor<64x16xf16, #blocked>) attributes {tilegpu.policy = "mma", tilegpu.shared_bytes = 40960 : i64, tilegpu.consumer_threads = 128 : i32, tilegpu.launch_threads = 256 : i32, tilegpu.min_ctas = 2 : i32, tilegpu.tma = [{tensor = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<3x64x32xf16, #shared>
  tilegpu.async_copy %A[%c0, %c0] extents [%m, %k] into %ring[%s] {lens = array<i64: 64, 32>, masked = array<i1: true, false>, squeezed = array<i1: false, false>, tilegpu.threads = 128 : i64, tilegpu.thread_base = 128 : i64, tilegpu.divisibility = 8 : i64} : !tile.ptr<f16>, !tilegpu.memdesc<3x64x32xf16, #shared>
  %x = tilegpu.local_load %ring[%s] {tilegpu.window = array<i64: 0, 16>} : !tilegpu.memdesc<3x64x32xf16, #shared> -> tensor<64x16xf16, #blocked>
  %one = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  tilegpu.local_store %v, %one {tilegpu.window = array<i64: 0, 16>, tilegpu.squeezed = array<i1: false, false>} : tensor<64x16xf16, #blocked>, !tilegpu.memdesc<64x32xf16, #shared>
  %y = tile.load %A[%c0, %c0] extents[%m, %k] {lens = array<i64: 16, 32>, masked = array<i1: true, true>, squeezed = array<i1: false, false>, tilegpu.divisibility = 1 : i64} : !tile.ptr<f16> -> tensor<16x32xf16>
  return
}

// -----

// Negative: a misspelt name.
// expected-error @+1 {{unknown attribute `tilegpu.polcy` of the tilegpu dialect (known: tilegpu.policy, tilegpu.shared_bytes, tilegpu.consumer_threads, tilegpu.launch_threads, tilegpu.min_ctas, tilegpu.threads, tilegpu.thread_base, tilegpu.window, tilegpu.squeezed, tilegpu.divisibility, tilegpu.tma, tilegpu.vector_dot_regs, tilegpu.grid, tilegpu.tile_loop)}}
func.func @misspelt() attributes {tilegpu.polcy = "mma"} { return }

// -----

// Negative: a policy assign-layouts does not have.
// expected-error @+1 {{`tilegpu.policy` must be one of "simt", "mma", "wgmma", found "tma"}}
func.func @policy_unknown() attributes {tilegpu.policy = "tma"} { return }

// -----

// Negative: the policy on an op instead of the kernel.
func.func @policy_misplaced() {
  // expected-error @+1 {{`tilegpu.policy` belongs on a kernel function, not on `tilegpu.barrier`}}
  tilegpu.barrier {tilegpu.policy = "mma"}
  return
}

// -----

// Negative: shared bytes as i32.
// expected-error @+1 {{`tilegpu.shared_bytes` must be a non-negative i64 byte count, found 4096 : i32}}
func.func @shared_i32() attributes {tilegpu.shared_bytes = 4096 : i32} { return }

// -----

// Negative: a negative byte count.
// expected-error @+1 {{`tilegpu.shared_bytes` must be a non-negative i64 byte count, found -1 : i64}}
func.func @shared_negative() attributes {tilegpu.shared_bytes = -1 : i64} { return }

// -----

// Negative: consumers that are not whole warps.
// expected-error @+1 {{`tilegpu.consumer_threads` must be an i32 thread count, a multiple of 32 in [32, 1024], found 100 : i32}}
func.func @consumers_partial_warp() attributes {tilegpu.consumer_threads = 100 : i32} { return }

// -----

// Negative: a launch of no threads.
// expected-error @+1 {{`tilegpu.launch_threads` must be an i32 thread count, a multiple of 32 in [32, 1024], found 0 : i32}}
func.func @launch_zero() attributes {tilegpu.launch_threads = 0 : i32} { return }

// -----

// Negative: registers fitted to no CTA at all.
// expected-error @+1 {{`tilegpu.min_ctas` must be an i32 count of CTAs per SM in [1, 32], found 0 : i32}}
func.func @min_ctas_zero() attributes {tilegpu.min_ctas = 0 : i32} { return }

// -----

// Negative: the launch's threads as i64.
// expected-error @+1 {{`tilegpu.launch_threads` must be an i32 thread count, a multiple of 32 in [32, 1024], found 256 : i64}}
func.func @launch_i64() attributes {tilegpu.launch_threads = 256 : i64} { return }

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// Negative: a producer copy over no threads.
func.func @copy_threads_zero(%A: !tile.ptr<f16>, %m: index, %k: index, %s: index) {
  %c0 = arith.constant 0 : index
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<3x64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.threads` must be an i64 thread count in [1, 1024], found 0 : i64}}
  tilegpu.async_copy %A[%c0, %c0] extents [%m, %k] into %ring[%s] {lens = array<i64: 64, 32>, masked = array<i1: true, false>, squeezed = array<i1: false, false>, tilegpu.threads = 0 : i64} : !tile.ptr<f16>, !tilegpu.memdesc<3x64x32xf16, #shared>
  return
}

// -----

// Negative: copy threads on the kernel, where no copy reads them.
// expected-error @+1 {{`tilegpu.threads` belongs on `tilegpu.async_copy`, not on `func.func`}}
func.func @threads_misplaced() attributes {tilegpu.threads = 128 : i64} { return }

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// Negative: a negative first thread.
func.func @copy_base_negative(%A: !tile.ptr<f16>, %m: index, %k: index, %s: index) {
  %c0 = arith.constant 0 : index
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<3x64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.thread_base` must be an i64 thread index in [0, 1024), found -128 : i64}}
  tilegpu.async_copy %A[%c0, %c0] extents [%m, %k] into %ring[%s] {lens = array<i64: 64, 32>, masked = array<i1: true, false>, squeezed = array<i1: false, false>, tilegpu.thread_base = -128 : i64} : !tile.ptr<f16>, !tilegpu.memdesc<3x64x32xf16, #shared>
  return
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// Negative: a window of i32 offsets.
func.func @window_i32() -> tensor<64x16xf16, #blocked> {
  %one = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.window` must be an array<i64> of offsets, one per dimension of the buffer or its stage, found array<i32: 0, 16>}}
  %x = tilegpu.local_load %one {tilegpu.window = array<i32: 0, 16>} : !tilegpu.memdesc<64x32xf16, #shared> -> tensor<64x16xf16, #blocked>
  return %x : tensor<64x16xf16, #blocked>
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// Negative: a window before the buffer's start.
func.func @window_negative() -> tensor<64x16xf16, #blocked> {
  %one = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.window` offsets must be non-negative, found -16}}
  %x = tilegpu.local_load %one {tilegpu.window = array<i64: 0, -16>} : !tilegpu.memdesc<64x32xf16, #shared> -> tensor<64x16xf16, #blocked>
  return %x : tensor<64x16xf16, #blocked>
}

// -----

// Negative: a window on an op that reads no buffer.
func.func @window_misplaced() {
  // expected-error @+1 {{`tilegpu.window` belongs on `tilegpu.local_load` or `tilegpu.local_store`, not on `tilegpu.barrier`}}
  tilegpu.barrier {tilegpu.window = array<i64: 0, 0>}
  return
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// Negative: squeeze flags without the window they describe.
func.func @squeezed_alone() -> tensor<64x32xf16, #blocked> {
  %one = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.squeezed` says which dimensions of a `tilegpu.window` the tile drops, and this op has no window}}
  %x = tilegpu.local_load %one {tilegpu.squeezed = array<i1: false, false>} : !tilegpu.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return %x : tensor<64x32xf16, #blocked>
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// Negative: squeeze flags as i64.
func.func @squeezed_i64() -> tensor<64x16xf16, #blocked> {
  %one = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{`tilegpu.squeezed` must be an array<i1> of flags, one per dimension of the window, found array<i64: 0, 0>}}
  %x = tilegpu.local_load %one {tilegpu.window = array<i64: 0, 16>, tilegpu.squeezed = array<i64: 0, 0>} : !tilegpu.memdesc<64x32xf16, #shared> -> tensor<64x16xf16, #blocked>
  return %x : tensor<64x16xf16, #blocked>
}

// -----

// Negative: a divisibility of zero.
func.func @divisibility_zero(%A: !tile.ptr<f16>, %m: index, %k: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{`tilegpu.divisibility` must be a positive i64, found 0 : i64}}
  %y = tile.load %A[%c0, %c0] extents[%m, %k] {lens = array<i64: 16, 32>, masked = array<i1: true, true>, squeezed = array<i1: false, false>, tilegpu.divisibility = 0 : i64} : !tile.ptr<f16> -> tensor<16x32xf16>
  return
}

// -----

// Negative: a divisibility on the kernel (the tile dialect's per-argument one is `tile.divisibility`).
// expected-error @+1 {{`tilegpu.divisibility` belongs on `tile.load`, `tile.store` or `tilegpu.async_copy`, not on `func.func`}}
func.func @divisibility_misplaced(%n: i32) attributes {tilegpu.divisibility = 8 : i64} { return }

// -----

// Negative: a TMA map whose swizzle TMA does not have.
// expected-error @+1 {{`tilegpu.tma` must be an array of {tensor: i64 >= 0, box: array<i64> of 1 to 5 extents in [1, 256], swizzle: 0, 32, 64 or 128}, one per trailing TMA map argument}}
func.func @tma_swizzle(%m: !tile.ptr<i8>) attributes {tilegpu.tma = [{tensor = 0 : i64, box = array<i64: 128, 64>, swizzle = 48 : i64}]} { return }

// -----

// Negative: a TMA map on an op.
func.func @tma_misplaced(%A: !tile.ptr<f16>, %m: index, %k: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{`tilegpu.tma` belongs on a kernel function, not on `tile.load`}}
  %y = tile.load %A[%c0, %c0] extents[%m, %k] {lens = array<i64: 16, 32>, masked = array<i1: true, true>, squeezed = array<i1: false, false>, tilegpu.tma = []} : !tile.ptr<f16> -> tensor<16x32xf16>
  return
}

// -----

// Negative: tilegpu-pipeline's register budget for tilegpu-prefetch-loads belongs on a loop.
// expected-error @+1 {{`tilegpu.vector_dot_regs` belongs on `scf.for`, not on `func.func`}}
func.func @vector_dot_regs_misplaced() attributes {tilegpu.vector_dot_regs = 64 : i64} { return }

// -----

// Negative: a budget past ptxas's 255 registers a thread.
func.func @vector_dot_regs_range(%lo: index, %hi: index, %s: index) {
  // expected-error @+1 {{`tilegpu.vector_dot_regs` must be an i64 register count in [1, 255]}}
  scf.for %i = %lo to %hi step %s {
  } {tilegpu.vector_dot_regs = 300 : i64}
  return
}
