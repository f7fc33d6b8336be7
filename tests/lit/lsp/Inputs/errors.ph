// Errors for the parity test: every diagnostic ph-lsp publishes must be what
// `ph check --json` prints. Non-ASCII text (é, 😀, σ) moves UTF-16 columns away from bytes.
@autotune(D in [64], BR in [64], BC in [32])
kernel broken(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, D], O: tensor<f32>[N, D]) {
  let row = ctx.block.x * BR // é😀 σ
  let q = Q[row :+ BR, :]
  let k = K[0 :+ BC, :]
  var s = dot(q, k) /* 😀 */
  var t = dot_t(q, k)
  let m = rowmx(t)
  var acc: tile<f32>[BR, D] = 0.0
  online_softmax(acc, m, t)
  O[row :+ BR, :] = acc + nope
}
