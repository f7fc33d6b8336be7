@tensorcore
@launch(192)
@autotune(BR in [32], BC in [16], D in [64])
kernel k202261(X8: tensor<i32>[M, 65], X10: tensor<f32>[M, 67], X11: tensor<f32>[K, D], O16: tensor<bf16>[H, M, D]) {
  let row = ctx.block.x * BR
  let t9 = exp2(tmin(X8[row :+ BR, 0 :+ D], 4)) - rowsum(exp2(tmin(X8[row :+ BR, 0 :+ D], 4)))
  var att12: tile<f32>[BR, D] = 0.0
  attention(att12, X10[row :+ BR, 2 :+ D], X11, X11, 0.125, BR, BC)
  O16[ctx.block.y, row :+ BR, :] = att12
  O16[ctx.block.y, row :+ BR, :] = where(t9 == t9, t9, 0.0)
}
