// A kernel whose tiles do not fit in shared memory (a dot's operands: the SIMT policy's FMA dot
// reads them there) is refused at compile time, naming the largest buffer, at the op that needs
// it, and the bytes against the limit.
// REQUIRES: mlir
// RUN: not ph build %s --target sm_90 -o %t 2>&1 | %FileCheck %s --check-prefix=SM90
// RUN: not ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=SM80

kernel big(X: tensor<f32>[N, 256], Y: tensor<f32>[N, 256]) {
  let r = ctx.block.x * 256
  var x = X[r :+ 256, :]
  // SM90: shared-memory-exceeded.ph:[[@LINE+4]]:20: error[E0501]: kernel `big` needs {{[0-9]+}} bytes of shared memory, more than the 232448 that sm_90 allows; largest tile: `tensor<256x256xf32>` ({{26[0-9]+}} bytes)
  // SM90: shared-memory-exceeded.ph:8:1: note: in kernel `big`
  // SM80: shared-memory-exceeded.ph:[[@LINE+2]]:20: error[E0501]: kernel `big` needs {{[0-9]+}} bytes of shared memory, more than the 166912 that sm_80 allows
  // SM80: largest tile: `tensor<256x256xf32>`
  Y[r :+ 256, :] = dot(x, x) * 2.0
}
