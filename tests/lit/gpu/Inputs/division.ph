/// f32 division: PTX div.full.f32 on the GPU, within 2 ulp (docs/language.md, "Precision").
kernel div_f32(X: tensor<f32>[N, 64], D: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  Y[r :+ 8, :] = X[r :+ 8, :] / D[r :+ 8, :]
}

/// A divisor broadcast along rows, as attention's epilogue `acc / l`.
kernel div_rows(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  Y[r :+ 8, :] = x / (rowsum(abs(x)) + 1.0)
}

/// A 16-bit division stays correctly rounded: div.rn.f32 of the widened operands.
kernel div_f16(A: tensor<f16>[N, 64], B: tensor<f16>[N, 64], Y: tensor<f16>[N, 64]) {
  let r = ctx.block.x * 8
  Y[r :+ 8, :] = A[r :+ 8, :] / B[r :+ 8, :]
}

/// By a power of two: a multiplication, which is exact.
kernel div_pow2(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  Y[r :+ 8, :] = X[r :+ 8, :] / 4.0
}
