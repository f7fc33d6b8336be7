// Rotary embeddings of queries and keys: one fn (std's rope) called on two lines.
kernel rotary_qk(Q: tensor<f32>[T, 128], K: tensor<f32>[T, 128], Cos: tensor<f32>[T, 64],
                 Sin: tensor<f32>[T, 64], QO: tensor<f32>[T, 128], KO: tensor<f32>[T, 128]) {
  let t = ctx.block.x * 8
  var q = Q[t :+ 8, :]
  var k = K[t :+ 8, :]
  rope(q, Cos[t :+ 8, :], Sin[t :+ 8, :])
  rope(k, Cos[t :+ 8, :], Sin[t :+ 8, :])
  QO[t :+ 8, :] = q
  KO[t :+ 8, :] = k
}

// Another kernel that calls rope: its call is not rotary_qk's.
kernel rotary_one(X: tensor<f32>[T, 128], Cos: tensor<f32>[T, 64], Sin: tensor<f32>[T, 64], Y: tensor<f32>[T, 128]) {
  let t = ctx.block.x * 8
  var x = X[t :+ 8, :]
  rope(x, Cos[t :+ 8, :], Sin[t :+ 8, :])
  Y[t :+ 8, :] = x
}
