// Row and column reductions of 16-bit tiles, in a kernel the legacy SIMT emitter
// refuses (col_ids, colsum): on the GPU the TileGPU SIMT policy shuffles them in f32.
@grid(N / 8, 1, 1)
kernel half_reductions(X: tensor<f16>[N, 32], R: tensor<f16>[N, 1], C: tensor<f16>[B, 32], n: i32) {
  let r = ctx.block.x * 8
  let x = X[r :+ 8, :]
  R[r :+ 8, 0 :+ 1] = rowsum(where(col_ids(x) < n, x, 0.0)) + rowmax(x)
  C[ctx.block.x :+ 1, :] = colsum(x) + colmax(x)
}
