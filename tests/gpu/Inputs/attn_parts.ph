// Causal attention with its running state written out, to localise a fault.
@autotune(D in [64], BR in [32], BC in [32])
@aligned(N = BR)
kernel dbg_causal(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D],
                  A: tensor<f32>[N, D], Mo: tensor<f32>[N, 1], Lo: tensor<f32>[N, 1], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    causal_mask(s, row, kt)
    online_softmax(acc, m, l, s, v)
  }
  A[row :+ BR, :] = acc
  Mo[row :+ BR, :] = m
  Lo[row :+ BR, :] = l
}

@autotune(D in [64], BR in [32], BC in [32])
@aligned(N = BR)
kernel dbg_scores(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], S: tensor<f32>[N, BC], P: tensor<f32>[N, BC], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  let k = K[0 :+ BC, :]
  var s: tile<f32>[BR, BC] = dot_t(q, k)
  s = s * scale
  causal_mask(s, row, 0)
  S[row :+ BR, :] = s
  var m = rowmax(s)
  s = exp(s - m)
  P[row :+ BR, :] = s
}
