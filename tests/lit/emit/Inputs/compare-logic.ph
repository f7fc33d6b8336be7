// Comparisons, `&&` `||` `!` and i32 arithmetic on tiles and scalars, one kernel per kind of
// operand (tests/lit/emit/compare-logic.test). Each comparison picks its own `where`, in the
// order < <= > >= == !=.
kernel k_cmp_f32(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  var y = where(x < 1.0, x, 0.0)
  y = where(x <= 2.0, y, 0.0)
  y = where(x > 3.0, y, 0.0)
  y = where(x >= 4.0, y, 0.0)
  y = where(x == 5.0, y, 0.0)
  y = where(x != 6.0, y, 0.0)
  Y[0 :+ 4, :] = y
}
kernel k_cmp_i32(X: tensor<i32>[N, 8], Y: tensor<i32>[N, 8]) {
  let x = X[0 :+ 4, :]
  var y = where(x < 1, x, 0)
  y = where(x <= 2, y, 0)
  y = where(x > 3, y, 0)
  y = where(x >= 4, y, 0)
  y = where(x == 5, y, 0)
  y = where(x != 6, y, 0)
  Y[0 :+ 4, :] = y
}
kernel k_cmp_scalar_f32(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], a: f32, b: f32) {
  let x = X[0 :+ 4, :]
  var y = where(a < b, x, 0.0)
  y = where(a <= b, y, 0.0)
  y = where(a > b, y, 0.0)
  y = where(a >= b, y, 0.0)
  y = where(a == b, y, 0.0)
  y = where(a != b, y, 0.0)
  Y[0 :+ 4, :] = y
}
kernel k_cmp_scalar_i32(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], n: i32, m: i32) {
  let x = X[0 :+ 4, :]
  var y = where(n < m, x, 0.0)
  y = where(n <= m, y, 0.0)
  y = where(n > m, y, 0.0)
  y = where(n >= m, y, 0.0)
  y = where(n == m, y, 0.0)
  y = where(n != m, y, 0.0)
  Y[0 :+ 4, :] = y
}
kernel k_logic(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8]) {
  let x = X[0 :+ 4, :]
  let inside = x > 1.0 && x < 3.0
  let outside = x < -1.0 || x > 2.0
  Y[0 :+ 4, :] = where(!inside, where(outside, x, 1.0), 2.0)
}
kernel k_logic_scalar(X: tensor<f32>[N, 8], Y: tensor<f32>[N, 8], a: f32, b: f32, n: i32, m: i32) {
  let x = X[0 :+ 4, :]
  Y[0 :+ 4, :] = where(!(a < b && n < m || a > b), x, 0.0)
}
kernel k_int(X: tensor<i32>[N, 8], Z: tensor<i32>[N, 8], Y: tensor<i32>[N, 8]) {
  let x = X[0 :+ 4, :]
  let z = Z[0 :+ 4, :]
  Y[0 :+ 4, :] = tmax(tmin(x / z, z % x), x + z * x - z)
}
