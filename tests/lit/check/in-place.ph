// A fn that changes its first parameter in place (std/masks.ph's mask_cols and causal_mask,
// or a user's) needs a tile variable or a slice there: a value is E0211 at the argument,
// and the fn's body stays quiet.
// RUN: not ph check %s 2>&1 | %FileCheck %s --implicit-check-not=error

fn scale_rows(x, f) {
  x = x * f
}

@autotune(BR in [16])
kernel values(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32) {
  let r = ctx.block.x * BR
  var s = X[r :+ BR, :]
  // CHECK: in-place.ph:[[@LINE+1]]:13: error[E0211]: `mask_cols` changes its first argument in place: it must be a tile variable, found `s * 2.0` (tile<f32>[BR, 8])
  mask_cols(s * 2.0, n, 0.0)
  // CHECK: in-place.ph:[[@LINE+1]]:15: error[E0211]: `causal_mask` changes its first argument in place: it must be a tile variable, found `n` (i32)
  causal_mask(n, r, 0)
  // CHECK: in-place.ph:[[@LINE+1]]:14: error[E0211]: `scale_rows` changes its first argument in place: it must be a tile variable, found `3.0` (float)
  scale_rows(3.0, 2.0)
  let t = X[r :+ BR, :]
  // CHECK: in-place.ph:[[@LINE+1]]:13: error[E0204]: cannot assign to `t`: it is bound with `let`
  mask_cols(t, n, 0.0)
  // A tile variable and a slice of a tensor are written in place: no error.
  mask_cols(s, n, 0.0)
  scale_rows(Y[r :+ BR, :], 0.5)
  Y[r :+ BR, :] = s
}
