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

// The rest of the table (docs/language.md, "Conversions"), for the CPU target here and the
// GPU lowerings in tests/gpu/conversions_device.sh (inputs: Inputs/conversion_inputs.py,
// special values such as ties, overflow, NaN, infinities, subnormals and +-0 among random ones).

// f32 -> f16 and bf16: round to nearest even, overflow to +-inf, NaN stays NaN, subnormals kept.
kernel narrow_f32(X: tensor<f32>[N, 64], H: tensor<f16>[N, 64], B: tensor<bf16>[N, 64]) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  H[r :+ 8, :] = x
  B[r :+ 8, :] = x
}

// 16-bit -> f32 (exact) and -> i32 (truncated, saturating: an f16 infinity is INT_MAX, NaN 0).
kernel widen_16(A: tensor<f16>[N, 64], B: tensor<bf16>[N, 64], FA: tensor<f32>[N, 64], FB: tensor<f32>[N, 64],
                IA: tensor<i32>[N, 64], IB: tensor<i32>[N, 64]) {
  let r = ctx.block.x * 8
  let a = A[r :+ 8, :]
  let b = B[r :+ 8, :]
  FA[r :+ 8, :] = a
  FB[r :+ 8, :] = b
  IA[r :+ 8, :] = a * 256.0
  IB[r :+ 8, :] = b
}

// i32 -> float: rounded to nearest even from the integer itself (2^24 + 1 is 2^24 in f32;
// i32 -> bf16 is one rounding, not two through f32; past 65 504 an f16 is +-inf).
kernel int_to_float(I: tensor<i32>[N, 64], F: tensor<f32>[N, 64], H: tensor<f16>[N, 64], B: tensor<bf16>[N, 64]) {
  let r = ctx.block.x * 8
  let i = I[r :+ 8, :]
  F[r :+ 8, :] = i
  H[r :+ 8, :] = i
  B[r :+ 8, :] = i
}

// Explicit conversions narrow where they stand: f16(x) is rounded before the f32 product,
// i32(x) truncates and saturates before it is widened again.
kernel explicit_casts(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64], Z: tensor<f32>[N, 64], W: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  Y[r :+ 8, :] = f16(x) * 3.0
  Z[r :+ 8, :] = bf16(x) * 3.0
  W[r :+ 8, :] = f32(i32(x * 4.0)) + 0.5
}

// Chains of 16-bit arithmetic: every operation rounds to its 16-bit type (docs/language.md,
// "Precision"), so a target that keeps the f32 value between operations, or fuses a * b + c
// into one rounding, differs from the interpreter in the last bit.
kernel chain_f16(A: tensor<f16>[N, 64], B: tensor<f16>[N, 64], C: tensor<f32>[N, 64], D: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  let a = A[r :+ 8, :]
  let b = B[r :+ 8, :]
  C[r :+ 8, :] = a * b + a
  D[r :+ 8, :] = sqrt(a * a + b * b) / (b - 3.0)
}

kernel chain_bf16(A: tensor<bf16>[N, 64], B: tensor<bf16>[N, 64], C: tensor<f32>[N, 64], D: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  let a = A[r :+ 8, :]
  let b = B[r :+ 8, :]
  C[r :+ 8, :] = a * b + a
  D[r :+ 8, :] = sqrt(a * a + b * b) / (b - 3.0)
}

// f32 a * b + c: two roundings by the language; a fused multiply-add rounds once.
kernel mul_add_f32(A: tensor<f32>[N, 64], B: tensor<f32>[N, 64], C: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 8
  let a = A[r :+ 8, :]
  C[r :+ 8, :] = a * B[r :+ 8, :] + a
}
