// Kernels whose meaning is the fp8 rule (docs/language.md, "fp8"): tests/lit/run/fp8.test runs
// them on the interpreter and the CPU target, bit for bit, on tests/gpu/fp8/inputs.py's values;
// tests/gpu/fp8_device.sh on the GPU lowerings.

// Every code widens exactly to f32 (4 rows of 64: all 256 codes).
kernel widen(X8: tensor<f8e4m3>[N, 64], Y8: tensor<f8e5m2>[N, 64], X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {
  let r = ctx.block.x * 4
  X[r :+ 4, :] = X8[r :+ 4, :]
  Y[r :+ 4, :] = Y8[r :+ 4, :]
}

// f32 -> fp8: nearest, ties to even, saturating (±inf too), NaN -> 0x7F.
kernel narrow(F: tensor<f32>[N, 64], A: tensor<f8e4m3>[N, 64], B: tensor<f8e5m2>[N, 64]) {
  let r = ctx.block.x * 4
  let x = F[r :+ 4, :]
  A[r :+ 4, :] = x
  B[r :+ 4, :] = x
}

// f16 -> fp8 (exact widening to f32, then the one rounding).
kernel narrow16(H: tensor<f16>[N, 64], A: tensor<f8e4m3>[N, 64], B: tensor<f8e5m2>[N, 64]) {
  let r = ctx.block.x * 4
  A[r :+ 4, :] = H[r :+ 4, :]
  B[r :+ 4, :] = H[r :+ 4, :]
}

// fp8 -> fp8 of the other format (e4m3's values fit e5m2's range; e5m2's saturate in e4m3),
// fp8 -> i32 (truncating) and -> f16 and bf16 (exact).
kernel between(X8: tensor<f8e4m3>[N, 64], Y8: tensor<f8e5m2>[N, 64], A: tensor<f8e5m2>[N, 64],
               B: tensor<f8e4m3>[N, 64], I: tensor<i32>[N, 64], H: tensor<f16>[N, 64], G: tensor<bf16>[N, 64]) {
  let r = ctx.block.x * 4
  A[r :+ 4, :] = X8[r :+ 4, :]
  B[r :+ 4, :] = Y8[r :+ 4, :]
  I[r :+ 4, :] = i32(X8[r :+ 4, :] * 16.0)
  H[r :+ 4, :] = Y8[r :+ 4, :]
  G[r :+ 4, :] = X8[r :+ 4, :]
}

// Arithmetic on loaded fp8 is f32 arithmetic, rounded once when stored (a sum of two codes
// and a scaled difference).
kernel arith(X8: tensor<f8e4m3>[N, 64], Y8: tensor<f8e5m2>[N, 64], S: tensor<f8e4m3>[N, 64], D: tensor<f8e5m2>[N, 64]) {
  let r = ctx.block.x * 4
  let x = X8[r :+ 4, :]
  let y = Y8[r :+ 4, :]
  S[r :+ 4, :] = x + y
  D[r :+ 4, :] = (x - y) * 0.5
}
