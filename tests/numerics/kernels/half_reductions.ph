// Row and column reductions of 16-bit tiles, in a kernel the legacy SIMT emitter
// refuses (col_ids, colsum): on the GPU the TileGPU SIMT policy shuffles them in f32.
@grid(N / 8, 1, 1)
kernel half_reductions(X: tensor<f16>[N, 32], R: tensor<f16>[N, 1], C: tensor<f16>[B, 32], n: i32) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  R[r :+ 8, 0 :+ 1] = rowsum(where(col_ids(x) < n, x, 0.0)) + rowmax(x)
  C[ctx.block.x :+ 1, :] = colsum(x) + colmax(x)
}

// 16-bit sums stored into f32 tensors: each sum is an f16 value rounded once (every
// target accumulates in f32), so the f32 outputs hold f16(the exact sum) to f32's
// tolerance. Rounding each partial sum to f16 (as the interpreter and the CPU target
// did) was up to an f16 ulp away (tests/lit/gpu/odd-extents.ph's `cols` on the GPU).
@grid(N / 8, 1, 1)
kernel half_sums(X: tensor<f16>[N, 32], R: tensor<f32>[N, 1], C: tensor<f32>[B, 32]) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  R[r :+ 8, 0 :+ 1] = rowsum(x)
  C[ctx.block.x :+ 1, :] = colsum(x)
}
