// std/masks.ph's functions and `where`s of their forms (tests/lit/emit/std-masks.test).
kernel k_mask(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32) {
  var s = X[0 :+ 4, :]
  mask_cols(s, n, -1.0e30)
  Y[0 :+ 4, :] = s
}
kernel k_causal(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], kt: i32) {
  let row = ctx.block.x * 4
  var s = X[row :+ 4, :]
  causal_mask(s, row, kt)
  Y[row :+ 4, :] = s
}
kernel k_mirrored(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32, kt: i32) {
  let row = ctx.block.x * 4
  var s = X[row :+ 4, :]
  s = where(n > col_ids(s), s, 0.5)
  s = where(row_ids(s) + row >= col_ids(s) + kt, s, -1.0e30)
  Y[row :+ 4, :] = s
}
kernel k_other(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32, kt: i32) {
  let row = ctx.block.x * 4
  var s = X[row :+ 4, :]
  s = where(col_ids(s) <= n, s, 0.5)
  s = where(kt + col_ids(s) <= row + row_ids(s), s, -5.0)
  Y[row :+ 4, :] = s
}
