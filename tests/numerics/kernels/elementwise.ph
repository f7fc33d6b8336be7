// Elementwise math and row reductions over a partial last block of rows: the
// unary builtins, broadcasting of [R, 1] and [1, C] tiles, and an f16 output.
kernel elementwise(X: tensor<f32>[N, 16], B: tensor<f32>[1, 16], Y: tensor<f16>[N, 16], S: tensor<f32>[N, 1]) {
  let r = ctx.block.x * 4
  let x = X[r :+ 4, :]
  let b = B[0 :+ 1, :]
  var t = abs(x) + b * b
  var e = exp(x - rowmax(x)) + sqrt(t) * rsqrt(t + 1.0) + log(t + 1.0) + exp2(tmin(x, 0.5))
  Y[r :+ 4, :] = e
  S[r :+ 4, :] = rowsum(e)
}
