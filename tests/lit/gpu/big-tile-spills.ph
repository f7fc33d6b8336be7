// An elementwise kernel over a tile too big for shared memory (256 x 256 f32): the legacy
// SIMT emitter, which stages tiles in shared memory, refuses it (E0501); the TileGPU SIMT
// policy, the default, keeps it in registers and compiles it, and `ph build` warns that
// it spills (W0502, with the kernel's range).
// REQUIRES: mlir
// RUN: ph build %s --target sm_90 -o %t --no-cache 2>&1 | %FileCheck %s
// RUN: env PH_GPU_LOWERING=legacy not ph build %s --target sm_90 -o %t.legacy --no-cache 2>&1 | %FileCheck %s --check-prefix=LEGACY

// CHECK: big-tile-spills.ph:[[@LINE+2]]:1: warning[W0502]: kernel `big` spills {{[0-9]+}} bytes to local memory
// LEGACY: error[E0501]: kernel `big` needs {{[0-9]+}} bytes of shared memory, more than the 232448 that sm_90 allows
kernel big(X: tensor<f32>[N, 256], Y: tensor<f32>[N, 256]) {
  let r = ctx.block.x * 256
  var x = X[r :+ 256, :]
  Y[r :+ 256, :] = x * 2.0
}
