// Causal attention over f16 tensors with no `@aligned`: the last block of rows is partial,
// and keys past N read zeros and are removed by the causal mask itself.
@autotune(D in [16], BR in [16], BC in [8])
kernel causal_unaligned(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D],
                        O: tensor<f16>[N, D], scale: f32) {
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
  acc = acc / l
  O[row :+ BR, :] = acc
}
