/// Layer norm of each row of `X` (`[N, C]`, any C): `y = (x - mean) / sqrt(var + eps) * W + B`
/// with `W` and `B` of shape `[1, C]`, as `torch.nn.functional.layer_norm`. One CTA per `BR`
/// rows; the first loop sums x and x² over blocks of `BC` columns (f32), the second writes the
/// normalised rows. Loads past C read zeros, which add nothing to the sums. `A = 8`: 16-byte loads
/// where C is a multiple of 8 (softmax.ph). The sums are kept per element (`[BR, BC]`, a few
/// registers a thread) and reduced across the row once, after the loop: a `rowsum` in the loop
/// would combine the warps of a row (shuffles and barriers) on every block (0.83 -> 0.92 of the
/// copy bandwidth on an H100, docs/tilegpu.md).
@autotune(BR in [1, 4], BC in [1024, 2048], A in [1, 8])
@aligned(C = A)
kernel layer_norm(X: tensor<f16>[N, C], W: tensor<f16>[1, C], B: tensor<f16>[1, C], Y: tensor<f16>[N, C],
                  eps: f32) {
  let r = ctx.block.x * BR
  var s: tile<f32>[BR, BC] = 0.0
  var s2: tile<f32>[BR, BC] = 0.0
  for c in range(0, extent(X, 1), BC) {
    let x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    s += x
    s2 += x * x
  }
  var mean = rowsum(s) / extent(X, 1)
  var rstd = rsqrt(rowsum(s2) / extent(X, 1) - mean * mean + eps)
  for c in range(0, extent(X, 1), BC) {
    let x = X[r :+ BR, c :+ BC]
    Y[r :+ BR, c :+ BC] = (x - mean) * rstd * W[0 :+ 1, c :+ BC] + B[0 :+ 1, c :+ BC]
  }
}
