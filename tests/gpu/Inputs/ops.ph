// One tile operation per kernel, to localise a SIMT lowering fault on the GPU.
kernel op_dot(A: tensor<f32>[M, 32], B: tensor<f32>[32, 64], O: tensor<f32>[M, 64]) {
  let r = ctx.block.x * 32
  let a = A[r :+ 32, :]
  let b = B[0 :+ 32, :]
  var o: tile<f32>[32, 64] = dot(a, b)
  O[r :+ 32, :] = o
}

kernel op_dot_t(A: tensor<f32>[M, 64], B: tensor<f32>[32, 64], O: tensor<f32>[M, 32]) {
  let r = ctx.block.x * 32
  let a = A[r :+ 32, :]
  let b = B[0 :+ 32, :]
  var o: tile<f32>[32, 32] = dot_t(a, b)
  O[r :+ 32, :] = o
}

kernel op_rows(X: tensor<f32>[M, 32], S: tensor<f32>[M, 1], Mx: tensor<f32>[M, 1]) {
  let r = ctx.block.x * 32
  let x = X[r :+ 32, :]
  S[r :+ 32, :] = rowsum(x)
  Mx[r :+ 32, :] = rowmax(x)
}

kernel op_softmax(X: tensor<f32>[M, 32], O: tensor<f32>[M, 32]) {
  let r = ctx.block.x * 32
  var x = X[r :+ 32, :]
  var m = rowmax(x)
  x = exp(x - m)
  var l = rowsum(x)
  x = x / l
  O[r :+ 32, :] = x
}

kernel op_loop(X: tensor<f32>[N, 64], O: tensor<f32>[32, 64]) {
  var acc: tile<f32>[32, 64] = 0.0
  for k in range(0, extent(X, 0), 32) {
    acc = acc * 0.5 + X[k :+ 32, :]
  }
  O[0 :+ 32, :] = acc
}
