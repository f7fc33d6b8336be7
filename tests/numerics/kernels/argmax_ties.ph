// rowargmax where it is easy to get wrong: rows full of ties (X quantised to four values) and
// rows holding two NaNs: the first maximum, or the first NaN, as numpy's argmax, on f32 and on
// f16 tiles.
@grid(N / 8, 1, 1)
kernel argmax_ties(X: tensor<f32>[N, 64], A: tensor<i32>[N, 1], H: tensor<i32>[N, 1]) {
  let r = ctx.block.x * 8
  var x: tile<f32>[8, 64] = X[r :+ 8, :]
  x = floor(x * 2.0)
  A[r :+ 8, 0 :+ 1] = rowargmax(x)
  let z = x - x
  let nan = z / z
  let q = row_ids(x) + r
  let y = where(q % 3 == 0 && (col_ids(x) == 40 || col_ids(x) == 9 + q % 5), nan, x)
  H[r :+ 8, 0 :+ 1] = rowargmax(f16(y))
}
