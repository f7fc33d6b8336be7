// @tensorcore kernels that reach the tensor-core lowering's less common paths, one or two
// per kernel, checked against the interpreter on the GPU (tests/gpu/check_examples.sh):
// rows masked at the tensor's end, f32 and row-vector stores, elementwise ops on loaded
// tiles, a loaded tile's columns masked (no cp.async), a loop with two loads and dots.

// Masked rows (M not a multiple of 64): cp.async zero-fills, stores are masked per row;
// the scores are stored as f32 pairs; rowmax and rowsum are stored from the row layout.
@tensorcore
@launch(128)
kernel tc_scores(A: tensor<f16>[M, 64], B: tensor<f16>[32, 64], S: tensor<f32>[M, 32],
                 Mx: tensor<f32>[M, 1], Sm: tensor<f32>[M, 1]) {
  let r = ctx.block.x * 64
  let a = A[r :+ 64, :]
  let b = B[0 :+ 32, :]
  var s: tile<f32>[64, 32] = dot_t(a, b)
  s = s * 0.5 + 1.0
  S[r :+ 64, :] = s
  Mx[r :+ 64, :] = rowmax(s)
  Sm[r :+ 64, :] = rowsum(s)
}

// Elementwise on loaded tiles (read from shared memory in the accumulator layout), their
// f16 result the A operand of a dot from registers, and dot(a, b) with b row-major (.trans).
@tensorcore
@launch(128)
@aligned(M = 64)
kernel tc_elem(A: tensor<f16>[M, 32], C: tensor<f16>[M, 32], Bh: tensor<f16>[32, 64], O: tensor<f16>[M, 64]) {
  let r = ctx.block.x * 64
  let a = A[r :+ 64, :]
  let c = C[r :+ 64, :]
  let x: tile<f16>[64, 32] = a * c - a
  let b = Bh[0 :+ 32, :]
  var o: tile<f32>[64, 64] = dot(x, b)
  O[r :+ 64, :] = o
}

// The columns of a loaded tile masked (K's extent is a size, not a constant): loads one
// element at a time with zeros past the end, then ldmatrix as usual.
@tensorcore
@launch(128)
@aligned(M = 64)
kernel tc_cols(A: tensor<f16>[M, K], B: tensor<f16>[32, K], O: tensor<f16>[M, 32]) {
  let r = ctx.block.x * 64
  let a = A[r :+ 64, 0 :+ 64]
  let b = B[0 :+ 32, 0 :+ 64]
  var o: tile<f32>[64, 32] = dot_t(a, b)
  O[r :+ 64, :] = o
}

// A loop whose body loads a tile that moves with the loop and one at a fixed place (both
// double-buffered), two dots summed with a scaled one into registers carried by the loop.
@tensorcore
@launch(128)
@aligned(M = 64, N = 32)
kernel tc_loop(A: tensor<f16>[M, 64], B: tensor<f16>[N, 64], W: tensor<f16>[32, 64], O: tensor<f32>[M, 32]) {
  let r = ctx.block.x * 64
  let a = A[r :+ 64, :]
  var acc: tile<f32>[64, 32] = 0.0
  for k in range(0, extent(B, 0), 32) {
    let w = W[0 :+ 32, :]
    let b = B[k :+ 32, :]
    acc += dot_t(a, b) + dot_t(a, w) * 0.25
  }
  O[r :+ 64, :] = acc
}

// Warps that hold an odd number of 8-column blocks of N (24 and 40 columns on one warp
// column): ldmatrix.x4 reads B two blocks at a time and ldmatrix.x2 the last one, for dot
// (B [K, N] read transposed) and dot_t (B [N, K]); a K loop keeps the operands in rings.
@tensorcore
@launch(128)
@aligned(M = 64, K = 32)
kernel tc_odd_n(A: tensor<f16>[M, K], B: tensor<f16>[K, 24], Bt: tensor<f16>[40, K],
                O: tensor<f32>[M, 24], Ot: tensor<f32>[M, 40]) {
  let r = ctx.block.x * 64
  var acc: tile<f32>[64, 24] = 0.0
  var acct: tile<f32>[64, 40] = 0.0
  for k in range(0, extent(A, 1), 32) {
    let a = A[r :+ 64, k :+ 32]
    acc += dot(a, B[k :+ 32, :])
    acct += dot_t(a, Bt[:, k :+ 32])
  }
  O[r :+ 64, :] = acc
  Ot[r :+ 64, :] = acct
}

// The same over two warp columns (32 rows, 48 columns: warps [2, 2], three 8-column blocks a
// warp, the odd one at a column offset of 16 * 2), and one 8-column block alone (N = 8).
@tensorcore
@launch(128)
@aligned(M = 32, K = 32)
kernel tc_odd_n_w2(A: tensor<f16>[M, K], B: tensor<f16>[K, 48], Bt: tensor<f16>[48, K],
                   O: tensor<f32>[M, 48], Ot: tensor<f32>[M, 48]) {
  let r = ctx.block.x * 32
  var acc: tile<f32>[32, 48] = 0.0
  var acct: tile<f32>[32, 48] = 0.0
  for k in range(0, extent(A, 1), 32) {
    let a = A[r :+ 32, k :+ 32]
    acc += dot(a, B[k :+ 32, :])
    acct += dot_t(a, Bt[:, k :+ 32])
  }
  O[r :+ 32, :] = acc
  Ot[r :+ 32, :] = acct
}

@tensorcore
@launch(128)
@aligned(M = 64, K = 16)
kernel tc_n8(A: tensor<f16>[M, K], B: tensor<f16>[K, 8], Bt: tensor<f16>[8, K], O: tensor<f32>[M, 8],
             Ot: tensor<f32>[M, 8]) {
  let r = ctx.block.x * 64
  var acc: tile<f32>[64, 8] = 0.0
  var acct: tile<f32>[64, 8] = 0.0
  for k in range(0, extent(A, 1), 16) {
    let a = A[r :+ 64, k :+ 16]
    acc += dot(a, B[k :+ 16, :])
    acct += dot_t(a, Bt[:, k :+ 16])
  }
  O[r :+ 64, :] = acc
  Ot[r :+ 64, :] = acct
}
