// An error inside online_softmax (std/attention.ph), reached through the call below:
// ph-lsp shows it at the call with ph check's code and message.
@autotune(D in [64], BR in [32], BC in [32])
kernel k(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D], O: tensor<f32>[N, D]) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  let k = K[0 :+ BC, :]
  let v = V[0 :+ 16, :]
  var s: tile<f32>[BR, BC] = dot_t(q, k)
  online_softmax(acc, m, l, s, v)
  O[row :+ BR, :] = acc
}
