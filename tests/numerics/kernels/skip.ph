// `if` inside a loop around loads, a dot and a column sum: a block of keys skipped
// (causal_skip: key blocks past the query block's last row are never read), and the SIMT
// policy's FMA dot in a branch (simt_skip; n iterations add, the others halve).
@tensorcore
@autotune(D in [64], BR in [64], BC in [64])
kernel causal_skip(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D],
                   O: tensor<f16>[N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, extent(K, 0), BC) {
    if kt < row + BR {
      let k = K[kt :+ BC, :]
      let v = V[kt :+ BC, :]
      var s: tile<f32>[BR, BC] = dot_t(q, k)
      s = s * scale
      let j = kt + col_ids(s)
      s = where(j <= row + row_ids(s) && j < extent(K, 0), s, -1.0e30)
      online_softmax(acc, m, l, s, v)
    }
  }
  O[row :+ BR, :] = acc / l
}
kernel simt_skip(X: tensor<f32>[N, 32], Y: tensor<f32>[N, 32], W: tensor<f32>[32, 32], n: i32) {
  let r = ctx.block.x * 16
  var acc: tile<f32>[16, 32] = 0.0
  for i in range(0, 4, 1) {
    if i < n {
      let x = X[r :+ 16, :]
      acc += dot(x, W[0 :+ 32, :]) + colsum(x)
    } else {
      acc = acc * 0.5
    }
  }
  Y[r :+ 16, :] = acc
}
