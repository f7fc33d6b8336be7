// Comparisons, conditions, where, row_ids and col_ids: what is accepted and what is
// reported (issue 16). Each error is reported once, at its cause.
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error

@autotune(BR in [16])
kernel conditions(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], L: tensor<i32>[N, 1], n: i32) {
  let r = ctx.block.x * BR
  var x = X[r :+ BR, :]
  let i = r + row_ids(x)
  let j = col_ids(x)
  x = where(j <= i && !(j == 3) || x > 0.5, x, -1.0e30)
  x = where(col_ids(x) < n, x * 2.0, 0.0)
  let lab = L[r :+ BR, 0 :+ 1]
  x = where(j == lab, x, tanh(x) + sigmoid(x) * erf(x) + sin(x) * cos(x) + log2(abs(x) + 1.0) + floor(x))
  // CHECK: conditions.ph:[[@LINE+1]]:13: error[E0308]: expected numbers to add (a condition selects, with `where(c, a, b)`), found `tile<bool>[BR, 8]`
  let bad = (x < 0.0) + 1.0
  // CHECK: conditions.ph:[[@LINE+1]]:13: error[E0308]: expected a condition (a comparison such as `s < 0.0`) for `where`, found `tile<f32>[BR, 8]`
  x = where(x, x, 0.0)
  // CHECK: conditions.ph:[[@LINE+1]]:13: error[E0308]: expected conditions (comparisons) for `&&`, found `tile<f32>[BR, 8]`
  x = where(x && j < 2, x, 0.0)
  // CHECK: conditions.ph:[[@LINE+1]]:19: error[E0308]: expected numbers to store (a condition selects, with `where(c, a, b)`), found `tile<bool>[BR, 8]`
  Y[r :+ BR, :] = x < 1.0
  // CHECK: conditions.ph:[[@LINE+1]]:19: error[E0311]: `row_ids` needs a 2-D tile, found `i32`
  let k = row_ids(r)
  // CHECK: conditions.ph:[[@LINE+1]]:7: error[E0301]: cannot select with the condition of `where` against its branches: `tile<bool>[2, 2] = [2, 2]` and `tile<f32>[BR, 8] = [16, 8]`: shapes do not broadcast
  x = where(j[0 :+ 2, 0 :+ 2] < 1, x, 0.0)
  // CHECK: conditions.ph:[[@LINE+1]]:27: error[E0322]: the float literal `0.5` would be truncated to an integer: it meets `tile<i32>[BR, 8]`, which is i32
  let half = col_ids(x) * 0.5
  // CHECK: conditions.ph:[[@LINE+1]]:7: error[E0203]: `where` takes 3 argument(s), but 2 were given
  x = where(x < 0.0, x)
  Y[r :+ BR, :] = x
}
