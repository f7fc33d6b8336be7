// A kernel whose tiles do not fit in shared memory (a dot's operands: both lowerings stage them
// there) is refused at compile time, naming the largest tile and the bytes against the limit.
// REQUIRES: mlir
// RUN: not ph build %s --target sm_90 -o %t 2>&1 | %FileCheck %s --check-prefix=SM90
// RUN: not ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=SM80

kernel big(X: tensor<f32>[N, 256], Y: tensor<f32>[N, 256]) {
  let r = ctx.block.x * 256
  // SM90: shared-memory-exceeded.ph:[[@LINE+3]]:11: error[E0501]: kernel `big` needs {{[0-9]+}} bytes of shared memory, more than the 232448 that sm_90 allows; largest tile: `tensor<256x256xf32>` ({{26[0-9]+}} bytes)
  // SM90: note: in kernel `big`
  // SM80: error[E0501]: kernel `big` needs {{[0-9]+}} bytes of shared memory, more than the 166912 that sm_80 allows
  var x = X[r :+ 256, :]
  Y[r :+ 256, :] = dot(x, x) * 2.0
}
