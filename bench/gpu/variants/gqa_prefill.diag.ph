/// examples/gqa_prefill.ph with its causal mask only on the key blocks that cross the diagonal
/// (`if` on the block's position, as causal_diagonal.ph does; FlexAttention's block mask skips the
/// mask of a full block the same way), and 64-key blocks and 128-query blocks in the space, which
/// mha.ph's D = 64 kernels gained 1.07-1.10x from. A bench variant (defaults_device.sh's attention
/// step, label `diag`): the example measured 0.88x FlexAttention's speed on an H100 (0.471 against
/// 0.415 ms, N = 8192, 8 query heads over 2); this replaces it if it is faster. The blocks of
/// queries run last first (`@grid` given, the row counted from the end): a causal block's work
/// grows with its row, and the longest ones started first leave no long tail in the last wave (as
/// FlashAttention-3's scheduler does).
@tensorcore
@autotune(D in [64], BR in [64, 128], BC in [32, 64])
@grid(N / BR, H)
kernel gqa_prefill(Q: tensor<f16>[H, N, D], K: tensor<f16>[HK, N, D], V: tensor<f16>[HK, N, D],
                   O: tensor<f16>[H, N, D], scale: f32) {
  let h = ctx.block.y
  let hk = h / (extent(Q, 0) / extent(K, 0))
  let row = ((extent(Q, 1) + BR - 1) / BR - 1 - ctx.block.x) * BR
  let q = Q[h, row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  var m: tile<f32>[BR, 1] = -1.0e30
  var l: tile<f32>[BR, 1] = 0.0
  for kt in range(0, row + BR, BC) {
    let k = K[hk, kt :+ BC, :]
    let v = V[hk, kt :+ BC, :]
    var s: tile<f32>[BR, BC] = dot_t(q, k)
    s = s * scale
    if kt + BC > row + 1 {
      s = where(kt + col_ids(s) <= row + row_ids(s), s, -1.0e30)
    }
    online_softmax(acc, m, l, s, v)
  }
  acc = acc / l
  O[h, row :+ BR, :] = acc
}
