// An f32 copy of examples/alibi_attention.ph without @tensorcore: the TileGPU SIMT policy's test
// (simt-tilegpu.test).
// Causal attention with ALiBi (Press et al.): each score gains `-slope * (i - j)`, a bias
// linear in the distance between query i and key j, with one `slope` per head (here one head
// per launch, given as an argument). The bias is a function of index tiles, as
// FlexAttention's `score_mod`.
@autotune(D in [64], BR in [32], BC in [32])
kernel alibi_attention(Q: tensor<f32>[N, D], K: tensor<f32>[N, D], V: tensor<f32>[N, D],
                       O: tensor<f32>[N, D], scale: f32, slope: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    let dist = row + row_ids(s) - kt - col_ids(s)
    s = where(dist >= 0, s * scale - slope * dist, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
