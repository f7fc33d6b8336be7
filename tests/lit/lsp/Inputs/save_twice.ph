// Two kernels of two configurations each; compile-on-save-cache.test saves this text,
// then Inputs/save_twice_edited.ph's (the same lines with `scale_rows` edited).
@autotune(BR in [8, 16])
kernel scale_rows(X: tensor<f32>[T, 64], Y: tensor<f32>[T, 64]) {
  let t = ctx.block.x * BR
  let x = X[t :+ BR, :]
  Y[t :+ BR, :] = x * 0.5
}

@autotune(BR in [8, 16])
kernel add_rows(X: tensor<f32>[T, 64], Z: tensor<f32>[T, 64], Y: tensor<f32>[T, 64]) {
  let t = ctx.block.x * BR
  let x = X[t :+ BR, :]
  let z = Z[t :+ BR, :]
  Y[t :+ BR, :] = x + z
}
