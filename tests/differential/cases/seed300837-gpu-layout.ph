@launch(96)
@autotune(BR in [64], BC in [16], D in [32])
kernel k300837(X1: tensor<f16>[M, D], X2: tensor<f16>[M, D], X3: tensor<f32>[M, D], O4: tensor<f16>[3, M, D], X5: tensor<f16>[M, 8], X6: tensor<i32>[M, 8, 2], X7: tensor<f16>[M, 8], X10: tensor<f16>[K, 4], X12: tensor<f32>[M, K], X13: tensor<f32>[1, K], X16: tensor<f16>[M, K], X17: tensor<f16>[M, 1], O18: tensor<f16>[M, 1], X19: tensor<f16>[M, 32], X21: tensor<f16>[M, 2], O23: tensor<f16>[2, M, 1], X26: tensor<f16>[M, K], X27: tensor<f16>[D, K], X28: tensor<f16>[M, D, 2], X29: tensor<f16>[M, D], O30: tensor<f16>[M, D], X33: tensor<f16>[24, K], X37: tensor<f16>[K, 16], O39: tensor<f32>[M, D], O40: tensor<f16>[2, M, 8]) {
  let row = ctx.block.x * BR
  O4[0, row :+ BR, :] = where(X1[row :+ BR, :] >= X2[row :+ BR, :], sin(X3[row :+ BR, :]), -2.0) - rowmax(where(X1[row :+ BR, :] >= X2[row :+ BR, :], sin(X3[row :+ BR, :]), -2.0))
  let t8 = where(X5[row :+ BR, :] == 3.0, X6[row :+ BR, :, 1], X7[row :+ BR, :])
  var acc11: tile<f32>[BR, 1] = 0.0
  for k9 in range(1, extent(X10, 0), BC) {
    var acc15: tile<f32>[BR, 1] = 0.0
    for k14 in range(1, K, BC) {
      O18[row :+ BR, :] = X17[row :+ BR, :]
      let t20 = X19[row :+ BR, :]
      acc15 += rowsum(X16[row :+ BR, k14 :+ BC])
    }
    O18[row :+ BR, :] = acc15
    let t22 = where(row + row_ids(acc11) < 64, X21[row :+ BR, 0 :+ 1] * 0.75, X17[row :+ BR, :] * acc11)
    acc11 += dot_t(X12[row :+ BR, k9 :+ BC], X13[0 :+ 1, k9 :+ BC])
  }
  O23[1, row :+ BR, :] = acc11
  var acc25: tile<f32>[BR, D] = 0.5
  for k24 in range(1, K, BC) {
    O30[row :+ BR, :] = X29[row :+ BR, :] + acc25 - rowsum(acc25) - rowmax(tanh(X28[row :+ BR, :, 0] + acc11))
    var acc32: tile<f32>[BR, 24] = 0.5
    for k31 in range(0, extent(X10, 0), BC) {
      var v34 = where((row + row_ids(acc25) >= 7) || (col_ids(acc25) + 4 < row + row_ids(acc25) - 0), X1[row :+ BR, :] - 3.0, acc25)
      acc32 += dot_t(X16[row :+ BR, k31 :+ BC], X33[0 :+ 24, k31 :+ BC])
    }
    var acc36: tile<f32>[BR, 16] = 0.25
    for k35 in range(0, extent(X10, 0), BC) {
      var v38 = 0.25 + acc11
      acc36 = acc36 * 0.5 + X37[k35 :+ BR, :]
    }
    acc25 += dot_t(X26[row :+ BR, k24 :+ BC], X27[0 :+ D, k24 :+ BC])
  }
  O39[row :+ BR, :] = acc25
  O40[1, row :+ BR, :] = t8
}
