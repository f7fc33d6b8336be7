// Inputs of tensorcore.test: a @tensorcore kernel whose 32 query rows do not split over
// 4 warps of 16 rows (the SIMT lowering takes it), and the same kernel without @tensorcore.
@tensorcore
@launch(128)
@autotune(D in [64], BR in [32], BC in [32])
@aligned(Nq = BR)
kernel narrow(Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
              O: tensor<f16>[Nq, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}

@launch(128)
@autotune(D in [64], BR in [64], BC in [32])
@aligned(Nq = BR)
kernel plain(Q: tensor<f16>[Nq, D], K: tensor<f16>[Nk, D], V: tensor<f16>[Nk, D],
             O: tensor<f16>[Nq, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  attention(acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}
