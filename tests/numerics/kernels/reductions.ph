// colsum, colmax, rowmin, rowargmax and explicit conversions on one [16, 64] block
// of rows; the column results of each block go to its own row of CS and CM.
@grid(N / 16, 1, 1)
kernel reductions(X: tensor<f32>[N, 64], RM: tensor<f32>[N, 1], RA: tensor<i32>[N, 1],
                  CS: tensor<f32>[B, 64], CM: tensor<f32>[B, 64], H: tensor<f32>[N, 64],
                  T: tensor<i32>[N, 64]) {
  let r = ctx.block.x * 16
  let x: tile<f32>[16, 64] = X[r :+ 16, :]
  // Rows past N read zeros: they take part in the column results as zeros.
  RM[r :+ 16, 0 :+ 1] = rowmin(x)
  RA[r :+ 16, 0 :+ 1] = rowargmax(x)
  CS[ctx.block.x :+ 1, :] = colsum(x)
  CM[ctx.block.x :+ 1, :] = colmax(x)
  H[r :+ 16, :] = f32(f16(x * 100.0))
  T[r :+ 16, :] = i32(x * 10.0)
}
