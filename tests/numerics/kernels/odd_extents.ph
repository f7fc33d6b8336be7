// Tiles whose extents are not powers of two (24 and 48 columns, 12 rows, 3 warps), with
// index tiles (which only the TileGPU lowering takes on the GPU), row and column
// reductions, a part of a tile read (`x[:, 0 :+ 4]`) and a part assigned
// (`y[:, 3 :+ 4] = ...`). On the GPU the blocked layouts cover 24 columns in three
// passes of 8 and wrap around where a pass is wider than the tile; reduced dimensions
// are covered exactly, so that nothing is counted twice.
@grid(N / 16, 1, 1)
kernel odd_extents(X: tensor<f32>[N, 24], Y: tensor<f32>[N, 24], R: tensor<f32>[N, 1], C: tensor<f32>[B, 24], n: i32) {
  let r = ctx.block.x * 16
  let x = X[r :+ 16, :]
  var y: tile<f32>[16, 24] = where(col_ids(x) < n, x * 2.0, x)
  y[:, 3 :+ 4] = exp(x[:, 0 :+ 4])
  Y[r :+ 16, :] = y
  R[r :+ 16, 0 :+ 1] = rowsum(y) + rowmax(x)
  C[ctx.block.x :+ 1, :] = colsum(x) + colmax(y)
}

@launch(96)
@grid(N / 12, 1, 1)
kernel odd_extents_half(X: tensor<f16>[N, 48], Y: tensor<f16>[N, 48], R: tensor<f32>[N, 1], C: tensor<f32>[B, 48]) {
  let r = ctx.block.x * 12
  let x = X[r :+ 12, :]
  var y: tile<f32>[12, 48] = where(row_ids(x) + r < N, f32(x), 0.0) + f32(col_ids(x)) * 0.0625
  y[:, 40 :+ 8] = f32(x[:, 0 :+ 8]) * 3.0
  Y[r :+ 12, :] = y
  R[r :+ 12, 0 :+ 1] = rowsum(y)
  C[ctx.block.x :+ 1, :] = colsum(y)
}
