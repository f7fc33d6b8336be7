fn f6(p0, p1, p2) {
  var v7 = log(abs(p2) + 1.0) * (p1 / (abs(p1) + 1.0))
  p0 += v7 + (p2 - p2)
}

@launch(192)
@autotune(BR in [32], BC in [16], D in [16])
@aligned(M = BR)
kernel k301271(X3: tensor<f16>[M, K], X4: tensor<f16>[D, K], X5: tensor<f32>[M, 1], O8: tensor<f16>[2, M, D]) {
  let row = ctx.block.x * BR
  var acc2: tile<f32>[BR, D] = 0.0
  for k1 in range(0, K, BC) {
    acc2 += dot_t(X3[row :+ BR, k1 :+ BC], X4[0 :+ D, k1 :+ BC])
  }
  acc2 += where(!(col_ids(acc2) + 3 != row + row_ids(acc2) - 3), acc2 * X5[row :+ BR, :], acc2 - rowsum(acc2))
  f6(acc2, acc2 - rowsum(acc2), 0.5)
  O8[1, row :+ BR, :] = acc2
}
