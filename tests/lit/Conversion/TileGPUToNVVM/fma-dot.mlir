// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// Regression: a module with no math op yet crashed ph-opt in math::FmaOp::create (the
// pass did not declare the math dialect it builds into, so it was not loaded).
// tilegpu.fma_dot: K steps unrolled over the thread's 8 accumulator registers
// ([1, 4] per thread, 4x8 lanes, 4 warps over 32x32: two passes along the rows).
// A's rows (padded by 16 bytes) are read along K 8 steps at a time, one 16-byte vector
// per row the thread holds (2); B ([K, N]) once per column (4) and step; the f16
// operands are widened to f32 and each step does one fma per register (8 x 8 a vector).

#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// CHECK-LABEL: gpu.func @fma
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-COUNT-32: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> f16
// CHECK-COUNT-64: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: math.fma
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-COUNT-32: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> f16
// CHECK-COUNT-64: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: math.fma
// CHECK-NOT: tilegpu.
func.func @fma(%y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<32x16xf16, #sh>
  %b = tilegpu.local_alloc {offset = 1536 : i64} : !tilegpu.memdesc<16x32xf16, #sh>
  %z = arith.constant dense<0.0> : tensor<32x32xf32, #bl>
  %d = tilegpu.fma_dot %a, %b, %z : !tilegpu.memdesc<32x16xf16, #sh>, !tilegpu.memdesc<16x32xf16, #sh> -> tensor<32x32xf32, #bl>
  tile.store %d, %y[%c0, %c0] extents[%c32, %c32] {lens = array<i64: 32, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<32x32xf32, #bl>, !tile.ptr<f32>
  return
}

// With partials: 4 warps repeat a [1, 64] accumulator; each sums its quarter of K = 128
// (32 steps, from zero: 4 vectors of 8 along K per register), then a barrier, its 2
// registers' sums stored, a barrier, and the 4 groups' sums added in order to the
// accumulator it was given.
#one = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#pad = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#flat = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [2, 1, 0]}>

// CHECK-LABEL: gpu.func @split
// CHECK-COUNT-64: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.barrier
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT: math.fma
func.func @split(%y: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %acc = arith.constant dense<1.0> : tensor<1x64xf32, #one>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<1x128xf16, #pad>
  %b = tilegpu.local_alloc {offset = 384 : i64} : !tilegpu.memdesc<64x128xf16, #pad>
  %p = tilegpu.local_alloc {offset = 17792 : i64} : !tilegpu.memdesc<4x1x64xf32, #flat>
  %d = tilegpu.fma_dot %a, %b, %acc partials %p : !tilegpu.memdesc<4x1x64xf32, #flat> {transB} : !tilegpu.memdesc<1x128xf16, #pad>, !tilegpu.memdesc<64x128xf16, #pad> -> tensor<1x64xf32, #one>
  tile.store %d, %y[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x64xf32, #one>, !tile.ptr<f32>
  return
}
