fn f11(p0, p1) {

}

@tensorcore
@launch(64)
@autotune(BR in [64], BC in [8], D in [8])
kernel k301279(X1: tensor<bf16>[M, 1], X2: tensor<bf16>[M, 1], O3: tensor<bf16>[M, 1], X4: tensor<f32>[2, M, 1], X5: tensor<bf16>[3, M, 1], X6: tensor<i32>[M, 1], Y8: tensor<bf16>[M, 24], X9: tensor<f32>[3, M, 24], X10: tensor<f32>[M, 9], X15: tensor<bf16>[M, 24], X16: tensor<i32>[M, 25], X19: tensor<bf16>[M, K], O20: tensor<bf16>[M, 1], X23: tensor<f32>[M, K], X24: tensor<f32>[16, K], X27: tensor<bf16>[K, 4], X29: tensor<f32>[K, 1], O30: tensor<f32>[M, 1], X31: tensor<f32>[M, 16], O32: tensor<bf16>[M, D], O33: tensor<bf16>[3, M, 1]) {
  let row = ctx.block.x * BR
  O3[row + 7 :+ BR, :] = tanh(X1[row :+ BR, :]) + where(X1[row + 3 :+ BR, :] == X1[row :+ BR, :], X1[row :+ BR, :], X2[row :+ BR, :])
  var v7 = where(col_ids(X4[1, row :+ BR, :]) + 5 <= row + row_ids(X4[1, row :+ BR, :]) - 0, X5[1, row + 3 :+ BR, :], X6[row + 3 :+ BR, :])
  f11(Y8[row :+ BR, :], X9[1, row :+ BR, :] + X10[row :+ BR, 5 :+ 1])
  let t12 = v7
  var acc14: tile<f32>[BR, 24] = 0.25
  for k13 in range(0, 8, 2) {
    var acc18: tile<f32>[BR, 1] = 0.0
    for k17 in range(0, K, BC) {
      acc18 += rowsum(exp(X19[row + 3 :+ BR, k17 :+ BC]))
    }
    O20[row :+ BR, :] = acc18
    var acc22: tile<f32>[BR, 16] = 0.5
    for k21 in range(1, K, BC) {
      let t25 = acc22
      acc22 += dot_t(X23[row + 5 :+ BR, k21 :+ BC], X24[0 :+ 16, k21 :+ BC])
    }
    var acc28: tile<f32>[BR, 1] = 0.0
    for k26 in range(0, extent(X27, 0), BC) {
      O30[row :+ BR, :] = v7 * 1.5 * 3.0
      O32[row :+ BR, :] = X31[row :+ BR, 5 :+ D]
      acc28 += dot(X23[row + 5 :+ BR, k26 :+ BC], X29[k26 :+ BC, :])
    }
    acc14 = acc14 * 0.75 + X15[row :+ BR, :] * X16[row :+ BR, 1 :+ 24]
  }
  O3[row + 7 :+ BR, :] = v7
  O33[1, row :+ BR, :] = t12
}
