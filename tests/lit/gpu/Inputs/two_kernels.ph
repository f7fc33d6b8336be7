// Two small kernels of two configurations each, for the build cache's tests
// (tests/lit/gpu/build-cache.test edits `scale_rows` only).
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
