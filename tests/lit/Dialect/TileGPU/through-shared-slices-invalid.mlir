// RUN: ph-opt %s --tilegpu-through-shared --verify-diagnostics
// REQUIRES: mlir
#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// A run-time offset is refused at the op, saying why.
func.func @dynamic(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %o: index) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %d = tile.load %X[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<16x32xf32, #bl>
  // expected-error @+1 {{the GPU target takes a part of a tile only at constant offsets; this one starts at a run-time offset}}
  %p = tile.extract %d[%c0, %o] {lens = array<i64: 16, 8>, squeezed = array<i1: false, false>} : tensor<16x32xf32, #bl> -> tensor<16x8xf32, #bl>
  tile.store %p, %Y[%c0, %c0] extents[%c16, %c32] {lens = array<i64: 16, 8>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<16x8xf32, #bl>, !tile.ptr<f32>
  return
}
