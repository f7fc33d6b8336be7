
@autotune(BR in [8])
kernel k32(X8: tensor<f32>[M, 12], O9: tensor<f16>[M, 5]) {
  let row = ctx.block.x * BR
  O9[row :+ BR, 0 :+ 4] = erf(X8[row :+ BR, 0 :+ 4])
}
