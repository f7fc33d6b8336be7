/// examples/rms_norm.ph with a one-pass branch (membound_device.sh's `onepass` variant): when
/// the row fits one block (C <= BC), it is read once and the scaled row written from
/// registers, instead of being read a second time (from L2) by the writing loop. BC = 4096 on
/// 128 or 256 threads; longer rows take the two loops.
@autotune(BR in [1, 4], BC in [1024, 2048, 4096], A in [1, 8], T in [128, 256],
          where BR * BC <= 8192 && (BC == 4096 || T == 128))
@launch(T)
@aligned(C = A)
kernel rms_norm(X: tensor<f16>[N, C], W: tensor<f16>[1, C], Y: tensor<f16>[N, C], eps: f32) {
  let r = ctx.block.x * BR
  if extent(X, 1) <= BC {
    let x: tile<f32>[BR, BC] = X[r :+ BR, 0 :+ BC]
    let rms = rsqrt(rowsum(x * x) / extent(X, 1) + eps)
    Y[r :+ BR, 0 :+ BC] = x * rms * W[0 :+ 1, 0 :+ BC]
  } else {
    var s2: tile<f32>[BR, 1] = 0.0
    for c in range(0, extent(X, 1), BC) {
      var x: tile<f32>[BR, BC] = X[r :+ BR, c :+ BC]
      s2 += rowsum(x * x)
    }
    var rms = rsqrt(s2 / extent(X, 1) + eps)
    for c in range(0, extent(X, 1), BC) {
      let x = X[r :+ BR, c :+ BC]
      Y[r :+ BR, c :+ BC] = x * rms * W[0 :+ 1, c :+ BC]
    }
  }
}
