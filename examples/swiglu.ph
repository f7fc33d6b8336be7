/// SwiGLU's gate, elementwise: `y = silu(g) * u = g * sigmoid(g) * u` for `G` and `U` of shape
/// `[N, C]`, as LLaMA's MLP computes between its two projections. One CTA per `BR` x `BC` block
/// (the grid is inferred on both axes); blocks past the edges are masked. `A = 8`: 16-byte
/// loads where C is a multiple of 8 (softmax.ph).
@autotune(BR in [1, 4], BC in [1024, 2048], A in [1, 8])
@aligned(C = A)
kernel swiglu(G: tensor<f16>[N, C], U: tensor<f16>[N, C], Y: tensor<f16>[N, C]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  var g: tile<f32>[BR, BC] = G[r :+ BR, c :+ BC]
  let u = U[r :+ BR, c :+ BC]
  Y[r :+ BR, c :+ BC] = g * sigmoid(g) * u
}
