// `dot` of i32 tiles is refused by the checker (E0321): no target multiplies integer
// tiles, and it used to reach users as a `tile.dot` verifier error.
// RUN: not ph check %s 2>&1 | %FileCheck %s

kernel k(A: tensor<i32>[N, 16], B: tensor<i32>[16, 16], C: tensor<f32>[N, 16]) {
  let r = ctx.block.x * 16
  let a = A[r :+ 16, :]
  // CHECK: dot-integer.ph:[[@LINE+1]]:36: error[E0321]: `dot` multiplies float tiles (f16, bf16, f32), found `tile<i32>[16, 16]`
  var acc: tile<f32>[16, 16] = dot(a, B[:, :])
  // CHECK: dot-integer.ph:[[@LINE+1]]:16: error[E0321]: `dot_t` multiplies float tiles (f16, bf16, f32), found `tile<i32>[16, 16]`
  acc += dot_t(a, B[:, :])
  C[r :+ 16, :] = acc
}
