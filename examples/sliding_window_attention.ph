/// Sliding-window causal attention (Mistral's): the query at position i sees the keys j with
/// `i - W < j <= i`, a window of `W` keys ending at itself. The mask is a comparison of index
/// tiles (`row_ids`, `col_ids`) written in the kernel, as FlexAttention's `mask_mod`; the key
/// loop starts at the first block the window reaches and stops after the block's last query.
@tensorcore
@autotune(D in [64], BR in [64], BC in [32])
kernel sliding_window_attention(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D],
                                O: tensor<f16>[N, D], scale: f32, W: i32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  let first = tmax(row - W + 1, 0) / BC * BC
  for kt in range(first, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    let i = row + row_ids(s)
    let j = kt + col_ids(s)
    s = where(j <= i && j > i - W, s * scale, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
