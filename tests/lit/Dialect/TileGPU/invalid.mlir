// RUN: ph-opt %s --split-input-file --verify-diagnostics
// REQUIRES: mlir
// The layouts' and ops' verifiers say what is wrong.

// expected-error @+1 {{threadsPerWarp must multiply to 32 lanes, not 16}}
func.func @lanes(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>) { return }

// -----

// expected-error @+1 {{order must be a permutation of the dimensions}}
func.func @order(%x: tensor<8x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]}>>) { return }

// -----

// expected-error @+1 {{mma.sync's instrShape is [16, 8]}}
func.func @instr(%x: tensor<16x16xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 16]}>>) { return }

// -----

// expected-error @+1 {{only a B operand is transposed}}
func.func @transA(%x: tensor<16x16xf16, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2, trans = 1}>>) { return }

// -----

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @dot(%a: tensor<16x16xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{A is 16x16 but B's K is 32}}
  %d = tilegpu.dot %a, %b, %c : tensor<16x16xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
func.func @stage() -> tensor<64x32xf16> {
  %buf = tilegpu.local_alloc : !tilegpu.memdesc<3x64x32xf16, #shared>
  // expected-error @+1 {{a multi-buffer needs a stage index}}
  %t = tilegpu.local_load %buf : !tilegpu.memdesc<3x64x32xf16, #shared> -> tensor<64x32xf16>
  return %t : tensor<64x32xf16>
}

// -----

#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
func.func @shape() -> tensor<32x32xf16> {
  %buf = tilegpu.local_alloc : !tilegpu.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{the tile's shape is not the buffer's}}
  %t = tilegpu.local_load %buf : !tilegpu.memdesc<64x32xf16, #shared> -> tensor<32x32xf16>
  return %t : tensor<32x32xf16>
}

// -----

#sw = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
#bar = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [0]}>
func.func @tma_squeezed_inner(%map: !tile.ptr<i8>, %i: index) {
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<2x64x64xf16, #sw>
  %full = tilegpu.local_alloc : !tilegpu.memdesc<2xi64, #bar>
  // expected-error @+1 {{copies a tile of the tensor's last two dimensions}}
  tilegpu.tma_copy %map[%i, %i, %i] into %ring[%i] on %full[%i] {squeezed = array<i1: false, false, true>} : !tile.ptr<i8>, !tilegpu.memdesc<2x64x64xf16, #sw>, !tilegpu.memdesc<2xi64, #bar>
  return
}

// -----

#pad = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#bar = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [0]}>
func.func @tma_padded(%map: !tile.ptr<i8>, %i: index) {
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<2x64x64xf16, #pad>
  %full = tilegpu.local_alloc : !tilegpu.memdesc<2xi64, #bar>
  // expected-error @+1 {{needs a ring of 2-D stages without padding}}
  tilegpu.tma_copy %map[%i, %i] into %ring[%i] on %full[%i] {squeezed = array<i1: false, false>} : !tile.ptr<i8>, !tilegpu.memdesc<2x64x64xf16, #pad>, !tilegpu.memdesc<2xi64, #bar>
  return
}

// -----

func.func @turn_kind() {
  // expected-error @+1 {{kind must be init, wait, pass or fini, not `go`}}
  tilegpu.warpgroup_turn "go" {barrier = 2 : i32}
  return
}

// -----

func.func @turn_barrier() {
  // expected-error @+1 {{barrier must be in [1, 14], not 15}}
  tilegpu.warpgroup_turn "wait" {barrier = 15 : i32}
  return
}
