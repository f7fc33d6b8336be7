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
