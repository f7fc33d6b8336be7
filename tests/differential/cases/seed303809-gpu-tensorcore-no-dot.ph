@tensorcore
@launch(64)
@autotune(BR in [32], D in [32])
kernel k303809(X1: tensor<f32>[M, 33], X5: tensor<f16>[M, D, 2], X6: tensor<f16>[H, M, D], X7: tensor<f32>[M, 40], X8: tensor<f32>[M, 1], X10: tensor<f32>[M, D, 2], X11: tensor<f32>[M, D], X12: tensor<f16>[M, D], O14: tensor<f32>[H, M, D]) {
  let row = ctx.block.x * BR
  var v2 = tmax(X1[row + 5 :+ BR, 1 :+ 32], -1.5)
  var acc4: tile<f32>[BR, D] = 0.25
  for k3 in range(0, 4, 1) {
    let t9 = X8[row + 7 :+ BR, :] + X7[row :+ BR, 7 :+ D] - -2.0
    acc4 = acc4 * 0.75 + tmin(X5[row :+ BR, :, 0], X6[ctx.block.y, row + 1 :+ BR, :])
  }
  var v13 = tmin(X10[row :+ BR, :, 1], X11[row :+ BR, :]) / (abs(X12[row + 3 :+ BR, :]) + 1.0)
  O14[ctx.block.y, row :+ BR, :] = acc4
}
