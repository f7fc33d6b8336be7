// Flash attention over four autotune configurations: `ph-run --bench` times
// each and marks the best; `--config` picks one for `--check`.
@launch(128)
@autotune(D in [64], BR in [32, 64], BC in [32, 64])
@aligned(Nq = BR)
kernel flash_autotune(Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
                      O: tensor<f16>[Nq, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}
