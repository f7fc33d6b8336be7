// Causal attention with tiles too big for one SM: `ph build` refuses it (E0501), `ph check` does not.
@autotune(D in [128], BR in [256], BC in [256])
@aligned(N = BR)
kernel causal_attention(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D],
                        O: tensor<f32>[N, D], scale: f32) {
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
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
