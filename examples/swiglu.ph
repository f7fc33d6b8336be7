/// SwiGLU's gate, elementwise: `y = silu(g) * u = g * sigmoid(g) * u` for `G` and `U` of shape
/// `[N, C]`, as LLaMA's MLP computes between its two projections. One CTA per `BR` x `BC` block
/// (the grid is inferred on both axes); blocks past the edges are masked.
@autotune(BR in [4], BC in [256])
kernel swiglu(G: tensor<f16>[N, C], U: tensor<f16>[N, C], Y: tensor<f16>[N, C]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  var g: tile<f32>[BR, BC] = G[r :+ BR, c :+ BC]
  let u = U[r :+ BR, c :+ BC]
  Y[r :+ BR, c :+ BC] = g * sigmoid(g) * u
}
