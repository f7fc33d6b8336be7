/// fp8 dequantization: `Y = Q * S` in f16 for e4m3 codes `Q` (`[N, C]`) and a scale per row `S`
/// (`[N, 1]`, f32), the inverse of examples/fp8_quantize.ph. A load of fp8 widens exactly to
/// f32, so the product is f32 arithmetic, rounded once to f16 when stored. One CTA per `BR` x
/// `BC` block (the grid is inferred on both axes); blocks past the edges are masked.
@autotune(BR in [4], BC in [256])
kernel fp8_dequantize(Q: tensor<f8e4m3>[N, C], S: tensor<f32>[N, 1], Y: tensor<f16>[N, C]) {
  let r = ctx.block.x * BR
  let c = ctx.block.y * BC
  Y[r :+ BR, c :+ BC] = Q[r :+ BR, c :+ BC] * S[r :+ BR, 0 :+ 1]
}
