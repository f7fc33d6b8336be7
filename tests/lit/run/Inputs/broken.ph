kernel broken(X: tensor<f32>[N, 16], Y: tensor<f32>[N, 16]) {
  let t = ctx.block.x * 4
  Y[t :+ 4, :] = X[t :+ 4, :] + undefined_name
}
