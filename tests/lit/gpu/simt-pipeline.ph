// The SIMT policy's streaming loop (docs/tilegpu.md, "The SIMT policy's dots on rings"): K's
// block, an operand of both FMA dots, goes by cp.async into a two-stage ring, the first block
// before the loop and the next one inside it, issued before this block's dots read the ring.
// (This test pinned the legacy SIMT emitter's register prefetch until that emitter was deleted
// on 2026-12-06.)
// REQUIRES: mlir
// RUN: ph emit %s --kernel stream --stage gpu | %FileCheck %s

// CHECK-LABEL: gpu.func @stream
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: math.exp
// CHECK: scf.yield
kernel stream(Q: tensor<f32>[1, 64], K: tensor<f16>[N, 64], O: tensor<f32>[1, 64]) {
  let q = Q[0 :+ 1, :]
  var acc: tile<f32>[1, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[1, 32] = dot_t(q, k)
    s = exp(s * 0.5)
    acc = acc * 0.9 + dot(s, k)
  }
  O[0 :+ 1, :] = acc
}
