/// Causal attention that masks only the key blocks that need it: a block wholly below the
/// diagonal (and inside the keys) is used as it is, and only a block that crosses the
/// diagonal or the end of the keys is masked, with `if` on the block's position. Any N
/// (the last block of queries is partial, keys past N are masked); f16 in and out, under
/// `@tensorcore`.
@tensorcore
@autotune(D in [64], BR in [64], BC in [64])
kernel causal_diagonal(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D],
                       O: tensor<f16>[N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  // Keys past the block's last query never count, so the loop stops there.
  for kt in range(0, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    if kt + BC > row + 1 || kt + BC > extent(K, 0) {
      let j = kt + col_ids(s)
      s = where(j <= row + row_ids(s) && j < extent(K, 0), s, -1.0e30)
    }
    online_softmax(acc, m, l, s, v)
  }
  O[row :+ BR, :] = acc / l
}
