/// Attention with a logit soft-cap (Gemma 2's): each scaled score s becomes
/// `cap * tanh(s / cap)`, which bounds it to (-cap, cap) smoothly, before the softmax. Keys past
/// Nk are masked with a comparison of `col_ids`.
@tensorcore
@autotune(D in [64], BR in [64], BC in [32])
@aligned(Nq = BR)
kernel softcap_attention(Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
                         O: tensor<f16>[Nq, D], scale: f32, cap: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, extent(K, 0), BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = cap * tanh(s * scale / cap)
    s = where(kt + col_ids(s) < extent(K, 0), s, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
