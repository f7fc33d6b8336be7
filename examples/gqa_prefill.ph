/// Grouped-query attention prefill (LLaMA 2 70B, Mistral): `H` query heads over `HK` key-value
/// heads, each key-value head shared by `H / HK` query heads, causal. One CTA per `BR` queries
/// of one query head (`ctx.block.y`); its key-value head is `h / (H / HK)`. Tensors are
/// `[heads, N, D]`; a slice with the head index fixed is an ordinary `[N, D]` view, passed to
/// the loop as one.
///
/// The causal mask is applied only to the key blocks that cross the diagonal (`if` on the
/// block's position; FlexAttention's block mask skips the mask of a full block the same way).
/// The blocks of queries run last first (`@grid` given, the row counted from the end): a causal
/// block's work grows with its row, and the longest ones started first leave no long tail in the
/// last wave, as FlashAttention-3's scheduler orders them.
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
