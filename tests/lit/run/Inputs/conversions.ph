// Kernels whose meaning depends on the conversion rules (docs/language.md, "Conversions"
// and "Precision"); tests/lit/run/conversions.test runs each on the CPU target with --check.

// f16 -> bf16 and back: through f32, one rounding (an MLIR verifier error before).
kernel f16_to_bf16(X: tensor<f16>[N, 64], Y: tensor<bf16>[N, 64]) {
  let r = ctx.block.x * 8
  Y[r :+ 8, :] = X[r :+ 8, :]
}

kernel bf16_to_f16(X: tensor<bf16>[N, 64], Y: tensor<f16>[N, 64]) {
  let r = ctx.block.x * 8
  Y[r :+ 8, :] = X[r :+ 8, :] * 2.0
}

// f16 + f16 is an f16 sum (rounded), widened into the f32 output: every target and the
// interpreter agree exactly.
kernel add16_into_f32(A: tensor<f16>[N, 64], B: tensor<f16>[N, 64], C: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  C[r :+ 8, :] = A[r :+ 8, :] + B[r :+ 8, :]
}

// Float -> i32 truncates toward zero and saturates; NaN gives 0 (sqrt of a negative).
kernel float_to_int(X: tensor<f32>[N, 64], Big: tensor<i32>[N, 64], Root: tensor<i32>[N, 64]) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  Big[r :+ 8, :] = x * 1.0e30
  Root[r :+ 8, :] = sqrt(x) * 100.0
}
