// One kernel per elementwise builtin, reduction and index tile (tests/lit/emit/builtins-elementwise.test).
kernel k_exp(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = exp(x)
}
kernel k_exp2(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = exp2(x)
}
kernel k_log(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = log(x)
}
kernel k_log2(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = log2(x)
}
kernel k_sqrt(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = sqrt(x)
}
kernel k_rsqrt(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = rsqrt(x)
}
kernel k_abs(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = abs(x)
}
kernel k_tanh(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = tanh(x)
}
kernel k_erf(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = erf(x)
}
kernel k_sin(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = sin(x)
}
kernel k_cos(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = cos(x)
}
kernel k_floor(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = floor(x)
}
kernel k_sigmoid(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = sigmoid(x)
}
kernel k_tmax(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = tmax(x, 0.5)
}
kernel k_tmin(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = tmin(x, rowmax(x))
}
kernel k_rowsum(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = x - rowsum(x)
}
kernel k_rowmax(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = x - rowmax(x)
}
kernel k_where(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = where(x < 0.0, x, 0.0)
}
kernel k_row_ids(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = where(row_ids(x) == 1, x, 0.0)
}
kernel k_col_ids(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = where(col_ids(x) != 1, x, 0.0)
}
