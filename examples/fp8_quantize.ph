/// Per-row fp8 quantization of `X` (`[N, C]`, f16, any C) into e4m3 codes `Q` and a scale per
/// row `S` (`[N, 1]`, f32), as fp8 inference stores activations and KV caches: `s = max|x| / 448`
/// over the row (448 is e4m3's largest finite value) and `q = x / s`, rounded to nearest even
/// when stored, so that `q * s` (examples/fp8_dequantize.ph) gives x back to e4m3's precision.
/// One CTA per `BR` rows: the first loop finds each row's absolute maximum over blocks of `BC`
/// columns (columns past C load as zeros), the second writes the codes. An all-zero row gets
/// a tiny scale and zero codes.
@autotune(BR in [4], BC in [128])
kernel fp8_quantize(X: tensor<f16>[N, C], Q: tensor<f8e4m3>[N, C], S: tensor<f32>[N, 1]) {
  let r = ctx.block.x * BR
  var amax: tile<f32>[BR, 1] = 0.0
  for c in range(0, extent(X, 1), BC) {
    var x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
    amax = tmax(amax, rowmax(abs(x)))
  }
  let s = tmax(amax, 1.0e-30) / 448.0
  S[r :+ BR, 0 :+ 1] = s
  for c in range(0, extent(X, 1), BC) {
    let x = X[r :+ BR, c :+ BC]
    Q[r :+ BR, c :+ BC] = x / s
  }
}
