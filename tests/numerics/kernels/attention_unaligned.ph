// Flash attention in f32 with no `@aligned`: a last partial block of query rows is masked
// on load and on store, and a last partial block of keys by `mask_cols` in `attention`.
@autotune(D in [32], BR in [16], BC in [16])
kernel attention_unaligned(Q: tensor<f32>[Nq, D], K: tensor<f32>[Nk, D], V: tensor<f32>[Nk, D],
                           O: tensor<f32>[Nq, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}
