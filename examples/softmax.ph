/// Row softmax of `X` (`[N, C]`, any C) into `Y`: one CTA per `BR` rows. A row that fits one
/// block (C <= BC) is read once, kept in registers and written from them. A longer row takes
/// two loops: the first keeps each row's running maximum `m` and denominator `l` over blocks of
/// `BC` columns (the online softmax: one read of X), the second writes `exp(x - m) * (1 / l)`
/// (one division a row), reading each block again. Columns past C are masked to -1.0e30, so they
/// add nothing. `A = 8` promises rows that start 16 bytes apart (C a multiple of 8: 16-byte
/// loads), and the bench takes it only where C keeps the promise. BR = 1 spreads a row over
/// the CTA's warps, BR = 4 gives each warp one; `T` threads a CTA, 256 only for 4096-column
/// blocks. The one-pass branch took C = 4096 from 0.89 to 0.96 of the copy bandwidth on an H100
/// (docs/tilegpu.md, "A row read once").
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [1, 8], T in [128, 256],
          where BR * BC <= 8192 && (BC == 4096 || T == 128))
@launch(T)
@aligned(C = A)
kernel softmax(X: tensor<f16>[N, C], Y: tensor<f16>[N, C]) {
  let r = ctx.block.x * BR
  if extent(X, 1) <= BC {
    var x: tile<f32>[BR, BC] = X[r :+ BR, 0 :+ BC]
    mask_cols(x, extent(X, 1), -1.0e30)
    let e = exp(x - rowmax(x))
    Y[r :+ BR, 0 :+ BC] = e * (1.0 / rowsum(e))
  } else {
    var m: tile<f32>[BR, 1] = -1.0e30
    var l: tile<f32>[BR, 1] = 0.0
    for c in range(0, extent(X, 1), BC) {
      var x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
      mask_cols(x, extent(X, 1) - c, -1.0e30)
      var mnew = tmax(m, rowmax(x))
      l = l * exp(m - mnew) + rowsum(exp(x - mnew))
      m = mnew
    }
    let inv = 1.0 / l
    for c in range(0, extent(X, 1), BC) {
      let x = X[r :+ BR, c :+ BC]
      Y[r :+ BR, c :+ BC] = exp(x - m) * inv
    }
  }
}
