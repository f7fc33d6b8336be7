// One kernel per builtin of issue 16's step 3 (tests/lit/emit/builtins.test).
kernel k_colsum(X: tensor<f32>[N, 8], Y: tensor<f32>[1, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 1, :] = colsum(x)
}
kernel k_colmax(X: tensor<f32>[N, 8], Y: tensor<f32>[1, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 1, :] = colmax(x)
}
kernel k_rowmin(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 1]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = rowmin(x)
}
kernel k_rowmin_i32(X: tensor<i32>[N, 8], Y: tensor<i32>[N, 1]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = rowmin(x)
}
kernel k_rowargmax(X: tensor<f16>[N, 8], Y: tensor<i32>[N, 1]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = rowargmax(x)
}
kernel k_convert(X: tensor<f32>[N, 8], H: tensor<f16>[N, 8], I: tensor<i32>[N, 8], F: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  H[0 :+ 4, :] = f16(x)
  I[0 :+ 4, :] = i32(x)
  F[0 :+ 4, :] = f32(bf16(x)) + f32(i32(2.7))
}
kernel k_if(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32) {
  var x = X[0 :+ 4, :]
  if n > 2 && extent(X, 0) > 4 {
    x = x * 2.0
  } else if n == 0 {
    x = exp(x)
  }
  if n < 0 {
    Y[0 :+ 4, :] = x
  }
}
