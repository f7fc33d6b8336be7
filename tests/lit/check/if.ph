// `if` / `else` and the step-3 builtins: what is accepted and what is reported
// (issue 16), each error once, at its cause.
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error

kernel branches(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], L: tensor<i32>[N, 1], n: i32, s: f32) {
  let r = ctx.block.x * 16
  var x = X[r :+ 16, :]
  if n > 0 && s < 1.0 {
    x = x * s
  } else if !(n == 0) {
    let y = exp(x)
    x = y
  }
  else {
    x = colmax(x) + rowmin(x) + colsum(x)
  }
  for kt in range(0, extent(X, 0), 16) {
    if kt + 16 > extent(X, 0) { x = where(col_ids(x) < n, x, 0.0) }
  }
  // CHECK: if.ph:[[@LINE+1]]:6: error[E0323]: `if` takes one condition for the whole CTA, found the tile `x > 0.0: tile<bool>[16, 8]`; select elementwise with `where(c, a, b)`
  if x > 0.0 {
    x = -x
  }
  // CHECK: if.ph:[[@LINE+1]]:6: error[E0308]: expected a condition (a comparison such as `n > 0`) for `if`, found `n + 1: i32`
  if n + 1 {
  }
  // A name bound in a branch is not seen after it.
  // CHECK: if.ph:[[@LINE+1]]:7: error[E0201]: unknown name `y`
  x = y
  // CHECK: if.ph:[[@LINE+1]]:18: error[E0311]: `colsum` needs a 2-D tile, found `f32`
  let c = colsum(s)
  // CHECK: if.ph:[[@LINE+1]]:15: error[E0308]: expected numbers to convert with `f16` (a condition selects, with `where(c, a, b)`), found `tile<bool>[16, 8]`
  let h = f16(x < 1.0)
  let ok: tile<i32>[16, 1] = rowargmax(x) + i32(s)
  let w: tile<f16>[16, 8] = f16(x)
  Y[r :+ 16, :] = x + f32(w) + f32(ok)
}
