@autotune(BR in [8], BC in [8])
@aligned(M = BR)
kernel k3(X2: tensor<f32>[K, 4], X4: tensor<i32>[M, K], O5: tensor<f32>[H, M, 1]) {
  let row = ctx.block.x * BR
  var acc3: tile<f32>[BR, 1] = -1.0
  for k1 in range(0, extent(X2, 0), BC) {
    acc3 = tmax(acc3, rowmax(abs((X4[row :+ BR, k1 :+ BC]))))
  }
  O5[ctx.block.y, row :+ BR, :] = acc3
}
