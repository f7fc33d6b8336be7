/// examples/softmax.ph with a one-pass branch (membound_device.sh's `onepass` variant): when
/// the row fits one block (C <= BC), it is read once, kept in registers, and written from
/// them (Triton's softmax tutorial's form), instead of being read a second time (from L2)
/// by the writing loop. BC = 4096 on 128 or 256 threads (32 or 16 f32 registers a thread a
/// row); longer rows take the two loops.
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
