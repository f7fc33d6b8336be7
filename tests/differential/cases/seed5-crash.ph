@autotune(BR in [8])
kernel k5(X1: tensor<bf16>[M, 4], O10: tensor<f32>[M, 4]) {
  let row = ctx.block.x * BR
  var v2: tile<f32>[BR, 4] = X1[row :+ BR, :]
  O10[row :+ BR, :] = v2
}
