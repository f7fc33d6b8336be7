// The elementwise functions of issue 16 on one [16, 32] block of rows, each on an input
// whose range exercises it (reference.py's `functions` case): erf, tanh and floor over
// A in [-3, 3]; sin, cos and sigmoid over W in [-10, 10]; log2 over P in (0, 100].
@grid(N / 16, 1, 1)
kernel functions(A: tensor<f32>[N, 32], W: tensor<f32>[N, 32], P: tensor<f32>[N, 32],
                 E: tensor<f32>[N, 32], T: tensor<f32>[N, 32], F: tensor<f32>[N, 32],
                 S: tensor<f32>[N, 32], C: tensor<f32>[N, 32], G: tensor<f32>[N, 32],
                 L: tensor<f32>[N, 32]) {
  let r = ctx.block.x * 16
  let a: tile<f32>[16, 32] = A[r :+ 16, :]
  let w: tile<f32>[16, 32] = W[r :+ 16, :]
  let p: tile<f32>[16, 32] = P[r :+ 16, :]
  E[r :+ 16, :] = erf(a)
  T[r :+ 16, :] = tanh(a * 2.0)
  F[r :+ 16, :] = floor(a * 2.0)
  S[r :+ 16, :] = sin(w)
  C[r :+ 16, :] = cos(w)
  G[r :+ 16, :] = sigmoid(w)
  L[r :+ 16, :] = log2(p)
}
