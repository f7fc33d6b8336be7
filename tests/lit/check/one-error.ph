// An error is reported once, at its cause: a slice with too many indices makes
// the grid along ctx.block.x impossible to infer, and that stays quiet (issue 16).
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error

@autotune(BR in [16])
kernel too_many_indices(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let r = ctx.block.x * BR
  // CHECK: one-error.ph:[[@LINE+1]]:12: error[E0305]: `X` has rank 2, but the slice has 3 index(es)
  let x = X[r :+ BR, :, 0]
  Y[r :+ BR, :] = x
}

// Without the bad slice, the grid's error is still reported.
kernel no_grid(X: tensor<f32>[N, 8]) {
  // CHECK: one-error.ph:[[@LINE+1]]:11: error[E0406]: cannot infer the grid along `ctx.block.y`
  let b = ctx.block.y + 1
  X[b :+ 8, :] = X[0 :+ 8, :]
}
