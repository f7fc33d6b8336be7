// An elementwise kernel over a tile too big for shared memory (256 x 256 f32): the legacy
// SIMT emitter (deleted on 2026-12-06), which staged tiles in shared memory, refused it
// (E0501); the TileGPU SIMT policy keeps it in registers and compiles it, and `ph build`
// warns that it spills (W0502, with the kernel's range).
// REQUIRES: mlir
// RUN: ph build %s --target sm_90 -o %t --no-cache 2>&1 | %FileCheck %s

// CHECK: big-tile-spills.ph:[[@LINE+1]]:1: warning[W0502]: kernel `big` spills {{[0-9]+}} bytes to local memory
kernel big(X: tensor<f32>[N, 256], Y: tensor<f32>[N, 256]) {
  let r = ctx.block.x * 256
  var x = X[r :+ 256, :]
  Y[r :+ 256, :] = x * 2.0
}
