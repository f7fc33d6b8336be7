// RUN: ph-opt %s --tilegpu-pipeline="stages=2" --tilegpu-prefetch-loads | %FileCheck %s --enable-var-scope
// RUN: ph-opt %s --tilegpu-prefetch-loads="fma-dots=1 max-regs=72" | %FileCheck %s --enable-var-scope
// RUN: ph-opt %s --tilegpu-prefetch-loads | %FileCheck %s --check-prefix=OFF
// RUN: ph-opt %s --tilegpu-pipeline="stages=2 vector-dot-regs=32" --tilegpu-prefetch-loads | %FileCheck %s --check-prefix=SMALL
// RUN: ph-opt %s --tilegpu-pipeline="stages=2" | %FileCheck %s --check-prefixes=NORING,MINCTAS
// RUN: not ph-opt %s --tilegpu-pipeline="vector-dot-regs=300" 2>&1 | %FileCheck %s --check-prefix=TOOMANY
// TOOMANY: tilegpu-pipeline needs vector-dot-regs <= 255 (32-bit registers a thread), not 300
// RUN: ph-opt %s --tilegpu-pipeline="stages=2 fma-rings=0 vector-dots-by-registers=0" | %FileCheck %s --check-prefix=NORING
// RUN: ph-opt %s --tilegpu-pipeline="stages=2 vector-dots-by-registers=0" | %FileCheck %s --check-prefix=RING
// REQUIRES: mlir
// Flash-decoding's loop with one query (the SIMT policy's FMA dots, each with one row): by
// default tilegpu-pipeline leaves its K and V blocks to registers and asks for four CTAs an SM
// (vector-dots-by-registers), marking the loop with the registers it counted them in (its
// vector-dot-regs, 64: the blocks take exactly that), and tilegpu-prefetch-loads reads the next
// blocks a block ahead within that budget (fma-dots does it for any FMA loop). A budget of 32
// keeps the ring, and prefetch-loads then leaves the loop alone, as it does an unmarked one. The carried blocks' conversions (where tilegpu-through-shared stores them
// to shared memory) open the iteration, before the next blocks' reads: the registers of this
// block are free before the next block lands (the legacy SIMT emitter's order).

// CHECK-LABEL: func.func @decode
// CHECK: %[[FIRST:.*]]:2 = scf.if
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[K:.*]] = %[[FIRST]]#0, %[[V:.*]] = %[[FIRST]]#1)
// CHECK-NEXT: %[[KF:.*]] = tile.convert %[[K]]
// CHECK-NEXT: %[[KC:.*]] = tilegpu.convert_layout %[[KF]]
// CHECK-NEXT: %[[VF:.*]] = tile.convert %[[V]]
// CHECK-NEXT: %[[VC:.*]] = tilegpu.convert_layout %[[VF]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]]
// CHECK: %[[K1:.*]] = tile.load %arg0
// CHECK: %[[V1:.*]] = tile.load %arg1
// CHECK: tilegpu.dot %arg2, %[[KC]]
// CHECK: %[[PV:.*]] = tilegpu.dot %{{.*}}, %[[VC]], %[[ACC]]
// CHECK: scf.yield %[[PV]], %[[K1]], %[[V1]]

// Unmarked, or marked by neither option, the loop is left as it is (its dots keep it out of the pass).
// OFF-LABEL: func.func @decode
// OFF-NOT: scf.if
// OFF: scf.for
// OFF-NEXT: arith.index_cast
// OFF-NEXT: tile.load %arg0

// NORING-LABEL: func.func @decode
// MINCTAS-SAME: tilegpu.min_ctas = 4 : i32
// NORING-NOT: tilegpu.async_copy
// NORING-NOT: tilegpu.local_alloc
// NORING: tile.load %arg0
// NORING: tile.load %arg1
// MINCTAS: } {tilegpu.vector_dot_regs = 64 : i64}

// SMALL-LABEL: func.func @decode
// SMALL-NOT: tilegpu.min_ctas
// SMALL: tilegpu.async_copy
// SMALL: scf.for
// SMALL-NOT: tilegpu.vector_dot_regs
// SMALL: tilegpu.local_load

// RING-LABEL: func.func @decode
// RING: tilegpu.local_alloc
// RING: tilegpu.async_copy
#kv = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#o = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
func.func @decode(%K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %q: tensor<1x128xf32, #s>, %lo: i32, %hi: i32, %n: index) -> tensor<1x128xf32, #o> attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c64 = arith.constant 64 : i32
  %c0f = arith.constant 0.0 : f32
  %acc0 = tile.splat %c0f : tensor<1x128xf32, #o>
  %r = scf.for %kt = %lo to %hi step %c64 iter_args(%acc = %acc0) -> (tensor<1x128xf32, #o>) : i32 {
    %i = arith.index_cast %kt : i32 to index
    %k = tile.load %K[%i, %c0] extents[%n, %c128] {lens = array<i64: 64, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16, #kv>
    %v = tile.load %V[%i, %c0] extents[%n, %c128] {lens = array<i64: 64, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16, #kv>
    %kf = tile.convert %k : tensor<64x128xf16, #kv> -> tensor<64x128xf32, #kv>
    %kc = tilegpu.convert_layout %kf : tensor<64x128xf32, #kv> -> tensor<64x128xf32, #s>
    %z = arith.constant dense<0.000000e+00> : tensor<1x64xf32, #s>
    %sc = tilegpu.dot %q, %kc, %z {transB} : tensor<1x128xf32, #s>, tensor<64x128xf32, #s> -> tensor<1x64xf32, #s>
    %p = tilegpu.convert_layout %sc : tensor<1x64xf32, #s> -> tensor<1x64xf32, #o>
    %vf = tile.convert %v : tensor<64x128xf16, #kv> -> tensor<64x128xf32, #kv>
    %vc = tilegpu.convert_layout %vf : tensor<64x128xf32, #kv> -> tensor<64x128xf32, #o>
    %pv = tilegpu.dot %p, %vc, %acc : tensor<1x64xf32, #o>, tensor<64x128xf32, #o> -> tensor<1x128xf32, #o>
    scf.yield %pv : tensor<1x128xf32, #o>
  }
  return %r : tensor<1x128xf32, #o>
}
