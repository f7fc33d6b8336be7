// Inputs of autotune-threads.test and build-where.test: an `@autotune` space cut by a
// `where` condition, and a thread count that is an autotune parameter.
@autotune(D in [64, 128], BR in [64, 128], BC in [32, 64], where D * BC == 4096)
kernel shift(X: tensor<f32>[N, D], Y: tensor<f32>[N, D]) {
  let r = ctx.block.x * BR
  Y[r :+ BR, :] = X[r :+ BR, :] + BC
}

@autotune(BR in [1], BC in [2048], T in [128, 256, 512])
@launch(T)
kernel rows(X: tensor<f32>[N, BC], Y: tensor<f32>[N, BC]) {
  let r = ctx.block.x * BR
  let x = X[r :+ BR, :]
  Y[r :+ BR, :] = x - rowmax(x)
}
