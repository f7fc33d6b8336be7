/// Attention under a document (varlen) mask: several sequences packed into one, `Start`
/// (`[N, 1]`, i32) giving each position the position its sequence starts at. A query i sees
/// the keys j of its own sequence at or before it, `Start[i] <= j <= i`: FlexAttention's
/// document mask, written as comparisons of index tiles with the queries' `[BR, 1]` column of
/// starts. The key loop starts at the block holding the earliest start among the block's
/// queries (the first query's), so the blocks of earlier sequences are not read at all.
@tensorcore
@autotune(D in [64], BR in [64], BC in [32])
kernel document_attention(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D],
                          Start: tensor<i32>[N, 1], O: tensor<f16>[N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  let start = Start[row :+ BR, 0 :+ 1]
  let first = Start[row, 0] / BC * BC
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(first, row + BR, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    let j = kt + col_ids(s)
    s = where(j >= start && j <= row + row_ids(s), s * scale, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[row :+ BR, :] = acc
}
